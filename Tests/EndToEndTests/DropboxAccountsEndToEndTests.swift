import Foundation
import TestSupport
import XCTest

/// Two Dropbox logins on one machine (issue 23): each account has its own outbox and cache
/// folder, named from its account id, so what one queued offline is never listed, sent or shown
/// as the other's. The "Dropbox" is a `byteclub serve --member …` reached with the hidden
/// `--dropbox-api`, so the login is a token file like the one `byteclub login dropbox` writes.
final class DropboxAccountsEndToEndTests: XCTestCase {
    var app: AppHarness!
    var server: MemberServe?
    var root: URL!

    override func setUpWithError() throws {
        app = try AppHarness()
        root = app.base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/photos"), withIntermediateDirectories: true)
        try "from the club\n".write(to: root.appendingPathComponent("byteclub/Shared.txt"), atomically: true, encoding: .utf8)
        server = try MemberServe(root: root, members: [("ray", "ray-dropbox-token"), ("ann", "ann-dropbox-token")])
    }

    override func tearDownWithError() throws {
        server?.kill()
        app.close()
    }

    private var tokens: URL { app.state.appendingPathComponent("tokens.json") }
    private var dropboxAPI: String { "http://127.0.0.1:\(port)" }
    private var port = 0

    /// Writes the token file a login leaves: `member`'s token, and its account id unless the
    /// file is from before ids were kept.
    private func logIn(_ member: String, accountID: String?) throws {
        var object: [String: Any] = ["access_token": "\(member)-dropbox-token", "refresh_token": "\(member)-refresh",
                                     "expires_at": Int(Date().timeIntervalSince1970) + 3600, "app_key": "test-app"]
        if let accountID { object["account_id"] = accountID }
        try FileManager.default.createDirectory(at: app.state, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: object).write(to: tokens)
    }

    /// Runs `byteclub ARGS --dropbox --dropbox-api …` with the harness's HOME and XDG folders.
    private func byteclub(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = try AppHarness.binary
        process.arguments = arguments + ["--dropbox", "--dropbox-api", dropboxAPI]
        process.environment = [
            "HOME": app.home.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
            "XDG_DATA_HOME": app.base.appendingPathComponent("data").path,
            "XDG_STATE_HOME": app.base.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": app.base.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": app.base.appendingPathComponent("cache").path,
        ]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    private func folders(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0.hasPrefix("dropbox") }.sorted()
    }

    func testTwoDropboxLoginsNeverShareAnOutboxOrACache() throws {
        port = server?.port ?? 0
        // Ray: a save made while Dropbox cannot be reached waits in his outbox.
        try logIn("ray", accountID: "dbid:RayAccount1")
        let tmux = try app.launch(["--dropbox", "--dropbox-api", dropboxAPI])
        tmux.waitFor("Shared")
        AppHarness.eventually("ray's lists cached") { self.folders(self.app.base.appendingPathComponent("cache/byteclub")).count == 1 }
        server?.kill()
        try tmux.press("n")
        try tmux.type("Ray offline")
        try tmux.press("Tab")
        try tmux.type("only ray's")
        try tmux.press("C-s")
        tmux.waitFor("offline · 1 waiting")
        try tmux.press("Escape")
        tmux.waitFor("Closed")
        try tmux.press("q")
        tmux.waitFor(app.exitLine(0))
        let rays = try byteclub(["outbox", "--json"])
        XCTAssertTrue(rays.out.contains("Ray offline"), "ray's outbox: \(rays.out) \(rays.err)")
        XCTAssertEqual(folders(app.state.appendingPathComponent("outbox")).count, 1)
        XCTAssertEqual(folders(app.base.appendingPathComponent("cache/byteclub")).count, 1, "ray's cache")
        XCTAssertTrue(folders(app.state.appendingPathComponent("outbox")).first?.contains("_52ay_41ccount1") ?? false,
                      "named from the account id, case kept: \(folders(app.state.appendingPathComponent("outbox")))")

        // Ann logs in on the same machine, with a token file from before ids were kept, while
        // Dropbox is still down: her outbox is not ray's.
        try logIn("ann", accountID: nil)
        let anns = try byteclub(["outbox", "--json"])
        XCTAssertEqual(anns.status, 0, anns.err)
        XCTAssertFalse(anns.out.contains("Ray offline"), "ann must not see ray's outbox: \(anns.out)")
        let annSends = try byteclub(["outbox", "--send"])
        XCTAssertEqual(annSends.status, 0, annSends.err)
        XCTAssertTrue(annSends.out.contains("The outbox is empty"), annSends.out)
        // An outbox from before each account had folders of its own (plain `dropbox`) follows
        // the first login whose id becomes known, rather than staying there unsent.
        let outboxes = app.state.appendingPathComponent("outbox")
        let rayFolder = try XCTUnwrap(folders(outboxes).first)
        let legacy = outboxes.appendingPathComponent("dropbox")
        try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: true)
        try "queued before".write(to: legacy.appendingPathComponent("marker"), atomically: true, encoding: .utf8)

        // Dropbox back: ann's login learns her account id (asked once, kept in the token file);
        // her outbox is still empty, and ray's item is sent only when ray is logged in.
        server = try MemberServe(root: root, members: [("ray", "ray-dropbox-token"), ("ann", "ann-dropbox-token")])
        port = server?.port ?? 0
        let annOnline = try byteclub(["outbox", "--send"])
        XCTAssertTrue(annOnline.out.contains("The outbox is empty"), annOnline.out + annOnline.err)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: tokens)) as? [String: Any]
        XCTAssertEqual((stored?["account_id"] as? String)?.isEmpty, false, "ann's id kept: \(stored ?? [:])")
        XCTAssertNil(AppHarness.text(root.appendingPathComponent("byteclub/Ray offline.md")), "not sent as ann")
        let adopted = folders(outboxes).filter { $0 != rayFolder }
        XCTAssertEqual(adopted.count, 1, "\(folders(outboxes))")
        XCTAssertTrue(adopted.first?.hasPrefix("dropbox-dbid") ?? false, "named from ann's id: \(adopted)")
        XCTAssertEqual(AppHarness.text(outboxes.appendingPathComponent(adopted.first ?? "-").appendingPathComponent("marker")), "queued before",
                       "the old outbox moved with her: \(folders(outboxes))")

        try logIn("ray", accountID: "dbid:RayAccount1")
        let raySends = try byteclub(["outbox", "--send"])
        XCTAssertEqual(raySends.status, 0, raySends.out + raySends.err)
        XCTAssertEqual(AppHarness.text(root.appendingPathComponent("byteclub/Ray offline.md")), "only ray's")
    }
}
