import ClubServer
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// `list_folder/longpoll` over real HTTP: no token needed, woken by commits and by changes made
/// on disk, `{"changes":false}` after its timeout, refused timeouts and dead cursors.
///
/// A longpoll's second lasts 10 ms here (`longpollTimeUnit`), so `timeout: 30` ends after 0.3 s
/// and `timeout: 480` after 4.8 s: long enough that a wake-up is never mistaken for a timeout.
final class LongpollTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture {
            $0.longpollTimeUnit = .milliseconds(10)
            $0.rescanInterval = .milliseconds(50)
        }
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    /// A longpoll sent without any Authorization header, as Dropbox's notify host takes it.
    func longpoll(_ cursor: String, timeout: Any? = nil, token: String = "") async throws -> ServerFixture.Reply {
        var argument: [String: Any] = ["cursor": cursor]
        if let timeout { argument["timeout"] = timeout }
        return try await club.rpc("2/files/list_folder/longpoll", argument, token: token)
    }

    /// Starts a longpoll and returns once the server holds it waiting.
    func waitingLongpoll(_ cursor: String) async throws -> Task<(ServerFixture.Reply, Duration), any Error> {
        let before = club.server.waitingLongpolls
        let club = self.club!
        let task = Task {
            let start = ContinuousClock.now
            let reply = try await club.rpc("2/files/list_folder/longpoll", ["cursor": cursor, "timeout": 480], token: "")
            return (reply, ContinuousClock.now - start)
        }
        let deadline = ContinuousClock.now + .seconds(3)
        while club.server.waitingLongpolls <= before, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertGreaterThan(club.server.waitingLongpolls, before, "the longpoll never started waiting")
        return task
    }

    func testFalseAfterItsTimeoutWithoutAToken() async throws {
        let cursor = try await club.latestCursor("")
        let start = ContinuousClock.now
        let reply = try await longpoll(cursor)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.json as NSDictionary, ["changes": false] as NSDictionary)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(280), "the default timeout is 30 (s)")
        XCTAssertEqual(club.server.waitingLongpolls, 0)
    }

    func testWokenByACommit() async throws {
        _ = try await club.rpc("2/files/create_folder_v2", ["path": "/w"])
        let cursor = try await club.latestCursor("/w")
        let waiting = try await waitingLongpoll(cursor)
        try await club.upload("/w/new.txt", Data("n".utf8))
        let (reply, elapsed) = try await waiting.value
        XCTAssertEqual(reply.json as NSDictionary, ["changes": true] as NSDictionary)
        XCTAssertLessThan(elapsed, .seconds(3))
        let delta = try await club.changes(cursor)
        XCTAssertEqual(delta.paths, ["/w/new.txt"])
    }

    func testWokenByABatchCommitItAsksItsWatcherToComeBackInASecond() async throws {
        _ = try await club.rpc("2/files/create_folder_v2", ["path": "/b"])
        let cursor = try await club.latestCursor("/b")
        let waiting = try await waitingLongpoll(cursor)
        var entries: [[String: Any]] = []
        for index in 0..<3 {
            let data = Data("note \(index)\n".utf8)
            let started = try await club.content("2/files/upload_session/start", ["close": true], body: data)
            let session = try XCTUnwrap(started.json["session_id"] as? String, started.text)
            entries.append(["cursor": ["session_id": session, "offset": data.count],
                            "commit": ["path": "/b/n\(index).md", "mode": "add", "autorename": false, "mute": false]])
        }
        let batch = try await club.rpc("2/files/upload_session/finish_batch_v2", ["entries": entries])
        XCTAssertEqual(batch.status, 200, batch.text)
        let (reply, _) = try await waiting.value
        // Another member's put -r: its watcher takes the burst a page a second (Dropbox's backoff).
        XCTAssertEqual(reply.json as NSDictionary, ["changes": true, "backoff": 1] as NSDictionary)
        let delta = try await club.changes(cursor)
        XCTAssertTrue(delta.paths.contains("/b/n0.md"), "\(delta.paths)")
    }

    func testWokenByAChangeMadeDirectlyOnDisk() async throws {
        try await club.upload("/disk/a.txt", Data("a".utf8))
        let cursor = try await club.latestCursor("/disk")
        let waiting = try await waitingLongpoll(cursor)
        try club.write("disk/a.txt", "edited in an editor")
        let (reply, elapsed) = try await waiting.value
        XCTAssertEqual(reply.json["changes"] as? Bool, true)
        XCTAssertLessThan(elapsed, .seconds(3))
        let delta = try await club.changes(cursor)
        XCTAssertEqual(delta.entries.first?["size"] as? Int, 19)
    }

    func testOnlyChangesUnderItsFolderWakeIt() async throws {
        try await club.upload("/a/x.txt", Data("x".utf8))
        let cursor = try await club.latestCursor("/a")
        let waiting = try await waitingLongpoll(cursor)
        try await club.upload("/b/y.txt", Data("y".utf8))
        try await club.upload("/a/sub/deep.txt", Data("d".utf8))
        // `/a/sub` is a new child of /a: that wakes it; `/b` and the file inside sub did not count.
        let (reply, _) = try await waiting.value
        XCTAssertEqual(reply.json["changes"] as? Bool, true)
        let delta = try await club.changes(cursor)
        XCTAssertEqual(delta.paths, ["/a/sub"])

        let quiet = try await club.latestCursor("/a")
        try await club.upload("/b/z.txt", Data("z".utf8))
        let unrelated = try await longpoll(quiet, timeout: 30)
        XCTAssertEqual(unrelated.json["changes"] as? Bool, false)
    }

    func testAnswersAtOnceWhenChangesAreAlreadyIn() async throws {
        let cursor = try await club.latestCursor("")
        try await club.upload("/early.txt", Data("e".utf8))
        let start = ContinuousClock.now
        let reply = try await longpoll(cursor, timeout: 480)
        XCTAssertEqual(reply.json["changes"] as? Bool, true)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2))
    }

    func testATokenSentAnywayIsAccepted() async throws {
        let cursor = try await club.latestCursor("")
        let withToken = try await longpoll(cursor, timeout: 30, token: club.token)
        XCTAssertEqual(withToken.status, 200, withToken.text)
        let wrongToken = try await longpoll(cursor, timeout: 30, token: "not-the-token")
        XCTAssertEqual(wrongToken.status, 200, wrongToken.text)
        // Every other endpoint still wants the token.
        let listing = try await club.rpc("2/files/list_folder/get_latest_cursor", ["path": ""], token: "")
        XCTAssertEqual(listing.status, 401)
    }

    func testTimeoutOutsideItsRangeIsRefused() async throws {
        let cursor = try await club.latestCursor("")
        for timeout: Any in [29, 481, 0, -1, "30", 30.5] {
            let reply = try await longpoll(cursor, timeout: timeout)
            XCTAssertEqual(reply.status, 400, "\(timeout): \(reply.text)")
            XCTAssertTrue(reply.text.contains("timeout"), reply.text)
        }
        let missing = try await club.rpc("2/files/list_folder/longpoll", ["timeout": 30], token: "")
        XCTAssertEqual(missing.status, 400)
        let notJSON = try await club.post("2/files/list_folder/longpoll", body: Data("{".utf8), headers: ["Content-Type": "application/json"], token: "")
        XCTAssertEqual(notJSON.status, 400)
    }

    func testADeadCursorGetsReset() async throws {
        await club.tearDown()
        club = try await ServerFixture {
            $0.journalLimit = 2
            $0.longpollTimeUnit = .milliseconds(10)
        }
        _ = try await club.rpc("2/files/create_folder_v2", ["path": "/z"])
        let cursor = try await club.latestCursor("/z")
        for index in 0..<6 { try await club.upload("/elsewhere/\(index).txt", Data("\(index)".utf8)) }
        let reply = try await longpoll(cursor, timeout: 30)
        XCTAssertEqual(reply.status, 409, reply.text)
        XCTAssertEqual(reply.summary, "reset")
    }

    func testLongpollsOfClientsThatHungUpAreBoundedByTheirCap() async throws {
        await club.tearDown()
        club = try await ServerFixture {
            $0.longpollTimeUnit = .milliseconds(10)
            $0.limits.maxConnectionsPerClient = 4
        }
        let cursor = try await club.latestCursor("")
        let body = "{\"cursor\":\"\(cursor)\",\"timeout\":480}"
        let request = "POST /2/files/list_folder/longpoll HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        // Twelve longpolls from 127.0.0.2 whose clients hang up at once. Hummingbird does not
        // cancel a request whose client is gone, so each waits out its timeout (4.8 s here) and
        // keeps its connection: past the per-client cap of 4, that client is refused, not served.
        for _ in 0..<12 {
            let socket = try TestSocket(port: club.server.port, source: "127.0.0.2")
            try socket.send(request)
        }
        let deadline = ContinuousClock.now + .seconds(2)
        while club.server.waitingLongpolls < 4, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertEqual(club.server.waitingLongpolls, 4)
        // Another client is not affected.
        let other = try await waitingLongpoll(cursor)
        XCTAssertEqual(club.server.waitingLongpolls, 5)
        try await club.upload("/wake.txt", Data("w".utf8))
        let (reply, _) = try await other.value
        XCTAssertEqual(reply.json["changes"] as? Bool, true)
    }

    /// A stop returns within its graces whatever a client does: a download whose client reads
    /// nothing keeps its request in flight, so the service group does not end by itself; the
    /// stop closes the connection after one grace and returns. (Its first wait was a task group
    /// whose child awaited the server's task, and a group waits for its children: the stop
    /// waited as long as the client did, which held a whole test run once.)
    func testAStopReturnsWhileAClientHoldsADownloadItDoesNotRead() async throws {
        await club.tearDown()
        club = try await ServerFixture()
        // Put in the club's folder, not uploaded: the fixture's client holds no connection, so the
        // one counted below is ours.
        try Data(count: 64 << 20).write(to: club.root.appendingPathComponent("big.bin"))
        XCTAssertEqual(club.server.openConnections, 0)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(club.server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0)
        // A small receive buffer, never read: the server's writes stall once it is full.
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let request = "POST /2/files/download HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(club.token)\r\n"
            + "Dropbox-API-Arg: {\"path\":\"/big.bin\"}\r\nContent-Length: 0\r\n\r\n"
        XCTAssertEqual(request.withCString { send(fd, $0, strlen($0), 0) }, request.utf8.count)
        // The server is answering it: the connection is open and counted.
        let admitted = ContinuousClock.now + .seconds(10)
        while club.server.openConnections == 0, ContinuousClock.now < admitted { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertEqual(club.server.openConnections, 1)
        // It is sending the file (12 bytes read; the rest fills the buffers and stalls).
        var head = [UInt8](repeating: 0, count: 12)
        XCTAssertEqual(recv(fd, &head, 12, Int32(MSG_WAITALL)), 12)
        XCTAssertEqual(String(decoding: head, as: UTF8.self), "HTTP/1.1 200")
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        await club.server.stop(grace: .milliseconds(300))
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(3), "the stop returned within its graces")
    }

    func testStoppingTheServerAnswersWaitingLongpolls() async throws {
        await club.tearDown()
        club = try await ServerFixture()
        let cursor = try await club.latestCursor("")
        // A real 480-second wait: only the shutdown can end it in time.
        let waiting = try await waitingLongpoll(cursor)
        let start = ContinuousClock.now
        await club.server.stop()
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(3))
        if let (reply, _) = try? await waiting.value { XCTAssertEqual(reply.json["changes"] as? Bool, false) }
    }
}
