import ByteClubConfig
import ClubKit
import Foundation
import Remote
import XCTest

/// Operations both shells call, run here against the embedded club server on loopback with no
/// binary and no terminal (issue 54): the outbox's one sender, the watch loop, joining's
/// config.toml writer and the address an invite is made with.
final class CoreOperationsTests: EmbeddedClubTestCase {
    func testTheOutboxIsSentThroughItsOneSenderAndASaveOverAChangeMerges() async throws {
        let backend = try XCTUnwrap(backend)
        let path = "/byteclub/Core.md"
        let first = try await backend.store.upload(data: Data("one\ntwo\nthree\n".utf8), to: path, mode: .add, autorename: false)
        // Someone else changes the last line after we read the first.
        _ = try await backend.store.upload(data: Data("one\ntwo\nTHREE\n".utf8), to: path, mode: .update(rev: try XCTUnwrap(first.rev)), autorename: false)
        var item = OutboxItem(kind: .save, path: path, baseRev: first.rev, title: "Core", text: "ONE\ntwo\nthree\n", queued: Date())
        item.baseText = "one\ntwo\nthree\n"
        _ = try backend.outbox.append(item)
        let reports = Reports()
        let run = await backend.sendOutbox { await reports.add($0) }
        XCTAssertEqual(run, .done)
        let results = await reports.all.map(\.result)
        guard case .merged? = results.first else { return XCTFail("a save over another member's change merges: \(results)") }
        let now = try await backend.store.read(path).data
        XCTAssertEqual(String(decoding: now, as: UTF8.self), "ONE\ntwo\nTHREE\n")
        XCTAssertTrue(backend.outbox.isEmpty)
    }

    func testTheWatchLoopTellsThatItStartedThenEachChange() async throws {
        let backend = try XCTUnwrap(backend)
        let notices = Notices()
        let store = backend.store
        let watching = Task {
            var watcher = ChangeWatcher(store: store, folder: "/byteclub", recursive: true, pollTimeout: 30) { await notices.add($0) }
            try await watcher.run()
        }
        defer { watching.cancel() }
        try await notices.waitFor("the watch to start") { $0.contains { if case .started = $0 { true } else { false } } }
        _ = try await store.upload(data: Data("hello\n".utf8), to: "/byteclub/Watched.md", mode: .add, autorename: false)
        try await notices.waitFor("the new note") {
            $0.contains { if case .change(let line) = $0 { line.text.contains("/byteclub/Watched.md") && line.text.hasPrefix("added") } else { false } }
        }
    }

    func testJoiningWritesARemoteTableAfterWhatTheUserWroteAndMakesItTheDefault() throws {
        let config = Paths.config
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "# my settings\nsoft_wrap = true\n".write(to: config, atomically: true, encoding: .utf8)
        let token = scratch.appendingPathComponent("state/remotes/club.token")
        try SecretFile.write("secret\n", to: token)
        try ClubRemoteWriter.append(name: "club", url: URL(string: "https://10.0.0.7:8421")!, pin: "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", tokenFile: token, makeDefault: true)
        let text = try String(contentsOf: config, encoding: .utf8)
        XCTAssertEqual(text, "default = \"club\"\n# my settings\nsoft_wrap = true\n\n[remote.club]\ntype = \"club\"\nurl = \"https://10.0.0.7:8421\"\npin = \"sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\"\ntoken_file = \"\(token.path)\"\n")
        let loaded = try XCTUnwrap(try ClubConfig.load())
        XCTAssertEqual(loaded.defaultName, "club")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: token.path)[.posixPermissions] as? Int, 0o600)
    }

    func testConnectingTakesConfigsDefaultRemoteUnlessAFlagNamesTheBackend() async throws {
        let config = Paths.config
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "default = \"home\"\n\n[remote.home]\ntype = \"club\"\nurl = \"http://127.0.0.1:9\"\n".write(to: config, atomically: true, encoding: .utf8)
        let questions = ConnectQuestions(pin: { _, _, _ in XCTFail("no pin is asked over http"); return nil },
                                         password: { _, _ in XCTFail("no password is asked for a club"); return "" })
        XCTAssertEqual(try ClubConnector.resolveRemote(ClubTarget(flags: .none, remote: nil, token: nil))?.1.name, "home")
        XCTAssertNil(try ClubConnector.resolveRemote(ClubTarget(flags: .embedded(root: scratch), remote: nil, token: nil)),
                     "a flag that names the backend leaves config.toml's default alone")
        if (ProcessInfo.processInfo.environment["BYTECLUB_TOKEN"] ?? "").isEmpty {
            do {
                _ = try await ClubConnector.connect(ClubTarget(flags: .none, remote: nil, token: nil), connection: ConnectionOptions(), questions: questions)
                XCTFail("a club remote with no token connected")
            } catch let error as ConfigError {
                XCTAssertTrue(error.description.contains("remote \"home\" needs a token"), error.description)
            }
        }
        do {
            _ = try ClubConnector.resolveRemote(ClubTarget(flags: .none, remote: "away", token: nil))
            XCTFail("an unknown remote resolved")
        } catch {
            XCTAssertTrue(error.description.contains("away"), error.description)
        }
        // The flags' embedded club, connected through the same function (and not encrypted).
        let embedded = try await ClubConnector.connect(ClubTarget(flags: .embedded(root: scratch.appendingPathComponent("other")), remote: nil, token: nil),
                                                       connection: ConnectionOptions(), questions: questions)
        let listed = try await embedded.store.list(embedded.folder)
        await embedded.close()
        XCTAssertTrue(listed.contains { $0.name == "Welcome to Byte Club.txt" })
        XCTAssertFalse(embedded.store is EncryptedStore)
    }

    func testAnInviteNeedsAnAddressAndAnHTTPSOneNeedsAKey() throws {
        let root = scratch.appendingPathComponent("served").path
        XCTAssertThrowsError(try ServerAddress.forInvites(root: root, url: nil)) {
            XCTAssertTrue("\($0)".contains("the server has not run from \(root) yet"), "\($0)")
        }
        XCTAssertThrowsError(try ServerAddress.forInvites(root: root, url: "https://club.example:8421")) {
            XCTAssertTrue("\($0)".contains("no key fingerprint known"), "\($0)")
        }
        XCTAssertEqual(try ServerAddress.forInvites(root: root, url: "http://10.0.0.7:8421"), ServerAddress(url: URL(string: "http://10.0.0.7:8421")!, pin: nil))
        ServerAddress.record(ServerAddress(url: URL(string: "https://10.0.0.7:8421")!, pin: "sha256//k="), root: root)
        XCTAssertEqual(try ServerAddress.forInvites(root: root, url: nil).pin, "sha256//k=")
    }
}

private actor Reports {
    var all: [OutboxReport] = []
    func add(_ report: OutboxReport) { all.append(report) }
}

private actor Notices {
    var all: [WatchNotice] = []
    func add(_ notice: WatchNotice) { all.append(notice) }

    /// Polls what was told until `condition` holds, for at most 20 s.
    func waitFor(_ what: String, _ condition: ([WatchNotice]) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(20)
        while !condition(all) {
            guard Date() < deadline else { return XCTFail("timed out waiting for \(what): \(all)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
