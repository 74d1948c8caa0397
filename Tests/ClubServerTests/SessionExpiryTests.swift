import ClubServer
import Foundation
import XCTest

/// Upload sessions expire: their files go at start and while the server runs, counted from the
/// last append (the file's mtime, set back here rather than waited for).
final class SessionExpiryTests: XCTestCase {
    var club: ServerFixture!

    override func tearDown() async throws {
        await club?.tearDown()
    }

    var sessions: URL { club.root.appendingPathComponent(".byteclub/sessions") }

    func sessionFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: sessions.path)) ?? []).sorted()
    }

    func startSession(_ bytes: String, close: Bool = false) async throws -> String {
        let reply = try await club.content("2/files/upload_session/start", ["close": close], body: Data(bytes.utf8))
        XCTAssertEqual(reply.status, 200, reply.text)
        return try XCTUnwrap(reply.json["session_id"] as? String)
    }

    /// Sets a file's modification time `age` seconds into the past (negative: the future).
    func age(_ name: String, by seconds: TimeInterval) throws {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)],
                                              ofItemAtPath: sessions.appendingPathComponent(name).path)
    }

    func append(_ id: String, at offset: Int, _ bytes: String) async throws -> ServerFixture.Reply {
        try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": id, "offset": offset], "close": false],
                               body: Data(bytes.utf8))
    }

    func testExpiredSessionsAreGoneAfterARestart() async throws {
        club = try await ServerFixture { $0.sessionExpiry = .seconds(3600) }
        let stale = try await startSession("abandoned bytes")
        let closed = try await startSession("closed and abandoned", close: true)
        let fresh = try await startSession("fresh")
        try age(stale, by: 2 * 3600)
        try age(closed, by: 2 * 3600)
        try Data("?".utf8).write(to: sessions.appendingPathComponent("stray"))
        try age("stray", by: 3 * 3600)
        // Each session with its member's `.owner` marker, swept with it.
        // A closed session is marked in its file's mode, with no marker file of its own.
        XCTAssertEqual(sessionFiles(), [closed, closed + ".owner", fresh, fresh + ".owner", stale, stale + ".owner", "stray"].sorted())

        club = try await club.restart()
        XCTAssertEqual(sessionFiles(), [fresh, fresh + ".owner"], "only the session younger than the expiry is left")
        let gone = try await append(stale, at: 15, "more")
        XCTAssertEqual(gone.summary, "not_found", gone.text)
        // The survivor carries on where it was.
        let more = try await append(fresh, at: 5, " and more")
        XCTAssertEqual(more.status, 200, more.text)
        let finish = try await club.content("2/files/upload_session/finish", [
            "cursor": ["session_id": fresh, "offset": 14], "commit": ["path": "/byteclub/done.txt", "mode": "add"],
        ])
        XCTAssertEqual(finish.status, 200, finish.text)
        XCTAssertEqual(club.read("byteclub/done.txt"), "fresh and more")
    }

    func testARunningServerSweepsExpiredSessions() async throws {
        // A 4 s expiry sweeps every second.
        club = try await ServerFixture { $0.sessionExpiry = .seconds(4) }
        let stale = try await startSession("old")
        let kept = try await startSession("kept")
        try age(stale, by: 24 * 3600)
        // Touched "in the future": younger than the expiry for the whole test, however slow.
        try age(kept, by: -24 * 3600)
        let deadline = ContinuousClock.now + .seconds(15)
        // The sweep removes a session's data, then its owner record: wait for both.
        while sessionFiles().contains(where: { $0.hasPrefix(stale) }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTAssertEqual(sessionFiles(), [kept, kept + ".owner"], "the stale session was swept while the server ran")
        let more = try await append(kept, at: 4, "!")
        XCTAssertEqual(more.status, 200, more.text)
    }
}
