import Foundation
import Remote
import XCTest

/// DropboxStore's longpolls and change pages against a fake Dropbox with a separate notify host
/// that refuses any Authorization header, as real Dropbox's layout has it.
final class NotifyHostTests: XCTestCase {
    var fake: FakeNotifyDropbox!

    override func setUp() async throws {
        fake = try await FakeNotifyDropbox()
    }

    override func tearDown() async throws {
        fake?.stop()
    }

    func testLongpollGoesToTheNotifyHostWithoutAuthorization() async throws {
        let store = fake.store()
        let cursor = try await store.latestCursor("/club", recursive: false)
        XCTAssertEqual(cursor, RemoteCursor(folder: "/club", recursive: false, value: "c0"))
        let answer = try await store.longpoll(cursor, timeout: 30)
        XCTAssertEqual(answer, LongpollAnswer(changes: true))
        let seen = fake.script.update { $0 }
        XCTAssertEqual(seen.longpolls.count, 1, "the notify host got the longpoll (the API host refuses them)")
        XCTAssertEqual(seen.refusedForAuthorization, 0, "no Authorization header went to the notify host")
    }

    func testDropboxEndpointsSendLongpollsToTheNotifyHost() {
        XCTAssertEqual(DropboxEndpoints.dropbox.notify.absoluteString, "https://notify.dropboxapi.com")
        let club = DropboxEndpoints.club(URL(string: "http://127.0.0.1:8421")!)
        XCTAssertEqual(club.notify, club.rpc, "a club server takes longpolls at its one address")
    }

    func testBackoffIsReturnedAndTheNextLongpollWaitsItOut() async throws {
        fake.script.update { $0.backoffs = [1] }
        let store = fake.store()
        let cursor = RemoteCursor(folder: "/club", recursive: false, value: "c0")
        let first = try await store.longpoll(cursor, timeout: 30)
        XCTAssertEqual(first, LongpollAnswer(changes: false, backoff: 1))
        let second = try await store.longpoll(cursor, timeout: 30)
        XCTAssertTrue(second.changes)
        let times = fake.script.update { $0.longpolls.map(\.at) }
        XCTAssertEqual(times.count, 2)
        let gap = times[1] - times[0]
        XCTAssertGreaterThanOrEqual(gap, .milliseconds(990), "the second longpoll waited out the 1 s backoff")
        XCTAssertLessThan(gap, .seconds(3))
    }

    func testALongpollOutlastsTheStoresIdleTimeout() async throws {
        // The store gives up on a silent connection after 1 s; a longpoll's server is silent for
        // longer by design (up to timeout + 90 s), so it runs on its own, longer, idle timeout.
        fake.script.update { $0.longpollDelay = 1.6 }
        let store = fake.store(idleTimeout: 1)
        let answer = try await store.longpoll(RemoteCursor(folder: "/club", recursive: false, value: "c0"), timeout: 30)
        XCTAssertTrue(answer.changes)
        XCTAssertEqual(DropboxStore.longpollIdleTimeout(30), 120)
        XCTAssertEqual(DropboxStore.longpollIdleTimeout(480), 570)
        XCTAssertEqual(DropboxStore.longpollIdleTimeout(5), 120, "Dropbox's floor is 30 s")
    }

    func testACancelledLongpollStopsAtOnce() async throws {
        fake.script.update { $0.longpollDelay = 30 }
        let store = fake.store()
        let poll = Task { () async throws(RemoteError) -> LongpollAnswer in
            try await store.longpoll(RemoteCursor(folder: "/club", recursive: false, value: "c0"), timeout: 30)
        }
        let deadline = Date().addingTimeInterval(5)
        while fake.script.update({ $0.longpolls.count }) == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let started = ContinuousClock.now
        poll.cancel()
        let result = await poll.result
        // Cancelled, not waited out: the longpoll's 30 s never run.
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? RemoteError, .cancelled) }
    }

    func testChangesFollowPagesAndTellDeletions() async throws {
        let store = fake.store()
        let delta = try await store.listChanges(since: RemoteCursor(folder: "/club", recursive: true, value: "c0"))
        XCTAssertEqual(delta.cursor, RemoteCursor(folder: "/club", recursive: true, value: "c2"))
        XCTAssertEqual(delta.changes.map(\.path), ["/club/new.txt", "/club/Sub", "/club/Old.txt", "/club/Sub/deep.txt"])
        guard case .updated(let file) = delta.changes[0], case .updated(let folder) = delta.changes[1],
              case .deleted(let name, _, let lower) = delta.changes[2] else {
            return XCTFail("unexpected changes \(delta.changes)")
        }
        XCTAssertEqual(file.rev, "0000000a1")
        XCTAssertEqual(folder.kind, .folder)
        XCTAssertEqual(name, "old.txt")
        XCTAssertEqual(lower, "/club/old.txt")
    }

    func testAChangeOutsideTheFolderIsRefused() async throws {
        let store = fake.store()
        await assertThrows(.server(status: 0, detail: "the server answered a listing of /club with /etc/passwd, which is not inside it; refused")) {
            () async throws(RemoteError) in try await store.listChanges(since: RemoteCursor(folder: "/club", recursive: true, value: "outside"))
        }
    }

    func testEndlessChangePagesStop() async throws {
        let store = fake.store()
        let started = ContinuousClock.now
        await assertThrows(.server(status: 0, detail: "the listing of /club sent 100 empty pages in a row, each saying there was more; stopped")) {
            () async throws(RemoteError) in try await store.listChanges(since: RemoteCursor(folder: "/club", recursive: false, value: "endless-0"))
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    func testAnUnknownCursorIsAReset() async throws {
        let store = fake.store()
        await assertThrows(.cursorReset) { () async throws(RemoteError) in
            try await store.listChanges(since: RemoteCursor(folder: "/club", recursive: false, value: "compacted"))
        }
        XCTAssertEqual(RemoteError.cursorReset.message, "The server no longer knows this cursor (reset); list the folder again")
    }
}
