import Foundation
import LoopbackHTTP
import TestSupport
import XCTest

/// What the CLI and the app send on Dropbox's routes, and what the club server answers there, is
/// Dropbox's API and nothing more (issue 54): every request of a day's use goes through a
/// recording proxy in front of `byteclub serve`, in club mode (`--server`) and in Dropbox mode
/// (`--dropbox --dropbox-api`), and `scripts/check-dropbox-routes` decodes each argument and each
/// answer with the official Dropbox SDK's own route definitions in strict mode: a field the API
/// lacks, or a route it does not have, fails the test. byteclub's own routes (`/2/byteclub/…`)
/// are left alone.
final class DropboxRouteFieldsTests: XCTestCase {
    private var app: AppHarness!
    private var server: MemberServe?
    private var proxy: WebDAVProxy?
    private var root: URL!

    override func setUpWithError() throws {
        app = try AppHarness()
        root = app.base.appendingPathComponent("served")
        let notes = root.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: notes.appendingPathComponent("photos/Trip"), withIntermediateDirectories: true)
        try "# Plan\n\nsee [[Ideas]]\n".write(to: notes.appendingPathComponent("Plan.md"), atomically: true, encoding: .utf8)
        try "ideas\n".write(to: notes.appendingPathComponent("Ideas.md"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("Resources/SampleClub/byteclub/photos/city-dusk.jpg"),
                                         to: notes.appendingPathComponent("photos/Trip/city-dusk.jpg"))
        server = try MemberServe(root: root, members: [("ray", "ray-route-token"), ("ann", "ann-route-token")])
        proxy = try WebDAVProxy(upstreamPort: try XCTUnwrap(server?.port), recording: true)
    }

    override func tearDownWithError() throws {
        proxy?.stop()
        server?.kill()
        app.close()
    }

    private var url: String { "http://127.0.0.1:\(proxy?.port ?? 0)" }

    func testTheClubModeCLIAndAppSendAndGetOnlyDropboxFieldsOnDropboxRoutes() throws {
        try day(["--server", url, "--token", "ray-route-token"])
        try check(atLeast: 8)
    }

    func testTheDropboxModeCLIAndAppSendAndGetOnlyDropboxFieldsOnDropboxRoutes() throws {
        let tokens = app.state.appendingPathComponent("tokens.json")
        try FileManager.default.createDirectory(at: app.state, withIntermediateDirectories: true)
        let login: [String: Any] = ["access_token": "ray-route-token", "refresh_token": "ray-refresh", "account_id": "dbid:RayRoute1",
                                    "expires_at": Int(Date().timeIntervalSince1970) + 3600, "app_key": "test-app"]
        try JSONSerialization.data(withJSONObject: login).write(to: tokens)
        try day(["--dropbox", "--dropbox-api", url])
        try check(atLeast: 8)
    }

    /// A day's use through the proxy: the CLI's commands, then the app (open, edit and save a
    /// note, PanoPhotos' thumbnails).
    private func day(_ remote: [String]) throws {
        let local = app.base.appendingPathComponent("local")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        try "written from the shell\n".write(to: local.appendingPathComponent("Shell.md"), atomically: true, encoding: .utf8)
        let batch = local.appendingPathComponent("batch")
        try FileManager.default.createDirectory(at: batch, withIntermediateDirectories: true)
        for number in 1...3 { try "note \(number)\n".write(to: batch.appendingPathComponent("Batch \(number).md"), atomically: true, encoding: .utf8) }
        let commands: [[String]] = [
            ["ls"], ["ls", "--json", "photos/Trip"], ["cat", "Plan"], ["get", "Plan.md", local.appendingPathComponent("Plan.md").path],
            ["put", local.appendingPathComponent("Shell.md").path, "/byteclub/Shell.md"], ["mv", "Shell.md", "Moved.md"],
            ["log", "Moved.md"], ["share", "Ideas.md"], ["tag", "Ideas.md", "+red"], ["search", "ideas"], ["links", "Plan"],
            ["get", "-r", "photos", local.appendingPathComponent("photos").path], ["put", "-r", batch.path, "Batch"], ["rm", "Moved.md"],
        ]
        for command in commands {
            let result = try app.cli(command + remote, within: 30)
            // `search` exits 1 with no hit, `tag` 1 where a store has no tags: both still asked the server.
            XCTAssertTrue([0, 1].contains(result.status), "\(command): exit \(result.status): \(result.stderr)")
        }
        let tmux = try app.launch(remote)
        tmux.waitFor("Plan")
        try tmux.press("/")
        try tmux.type("Plan")
        try tmux.press("Enter")
        try tmux.press("Enter")
        tmux.waitFor("see [[Ideas]]")
        try tmux.press("C-End")
        try tmux.type(" and more")
        try tmux.press("C-s")
        tmux.waitFor("Saved")
        try tmux.press("Escape")
        AppHarness.eventually("the note closed") { !tmux.capture().contains("and more") }
        try tmux.press("Tab")
        tmux.waitFor("Trip")
        try tmux.press("q")
    }

    /// The recorded exchanges as the checker reads them, and its verdict.
    private func check(atLeast routes: Int) throws {
        let exchanges = try XCTUnwrap(proxy).exchanges
        let lines = exchanges.map { exchange -> String in
            var object: [String: Any] = ["method": exchange.method, "path": exchange.path, "status": exchange.status]
            object["arg"] = Self.json(exchange.requestHeaders["dropbox-api-arg"])
                ?? (exchange.requestHeaders["content-type"]?.hasPrefix("application/json") == true ? Self.json(exchange.requestBody) : nil)
            let answer = Self.json(exchange.responseHeaders["dropbox-api-result"])
                ?? (exchange.responseHeaders["content-type"]?.hasPrefix("application/json") == true && !exchange.cut ? Self.json(exchange.responseBody) : nil)
            if exchange.status == 409 { object["error"] = answer } else { object["result"] = answer }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        let file = app.base.appendingPathComponent("exchanges.jsonl")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let checker = Self.repository.appendingPathComponent("scripts/check-dropbox-routes")
        let result = try ChildProcess.run(["/usr/bin/env", "python3", checker.path, file.path], within: 60)
        print(result.stdout)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        // Not a pass by silence: the day reached many of Dropbox's routes.
        let summary = try XCTUnwrap(result.stdout.split(separator: "\n").last.map(String.init))
        let count = Int(summary.split(separator: " ").dropFirst(4).first ?? "") ?? 0
        XCTAssertGreaterThanOrEqual(count, routes, summary)
    }

    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func json(_ header: String?) -> Any? {
        guard let header else { return nil }
        return json(Array(header.utf8))
    }

    private static func json(_ bytes: [UInt8]) -> Any? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }
}
