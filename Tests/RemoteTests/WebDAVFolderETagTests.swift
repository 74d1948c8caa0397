import Foundation
import TestSupport
import Hummingbird
import Logging
@testable import Remote
import Synchronization
import Transfer
import XCTest

/// A WebDAV folder whose collection has an ETag (as Nextcloud's and Apache's do; rclone's has
/// none), on loopback: `PROPFIND` of `/byteclub/` at `Depth: 0` or `1`, counted, over files a
/// test changes. The folder's ETag changes with every change in it.
final class FolderETagServer: Sendable {
    struct File: Sendable {
        var etag: String
        var size: Int
    }

    struct State: Sendable {
        var files: [String: File] = [:]
        var version = 1
        /// Whether the folder itself has a `getetag`.
        var folderETag = true
        var depth0 = 0
        var depth1 = 0
    }

    /// The state, shared with the route.
    final class Shared: Sendable {
        let mutex = Mutex(State())
    }

    private let shared = Shared()
    let baseURL: URL
    private let task: GracefulServer

    init(files: [String: File]) async throws {
        shared.mutex.withLock { $0.files = files }
        let router = Router()
        let shared = self.shared
        router.on("/byteclub", method: HTTPRequest.Method("PROPFIND")!) { request, _ -> Response in
            let depth = request.headers.first { $0.name.canonicalName == "depth" }?.value ?? "infinity"
            let snapshot = shared.mutex.withLock { state -> State in
                if depth == "0" { state.depth0 += 1 } else { state.depth1 += 1 }
                return state
            }
            guard depth == "0" || depth == "1" else { return Response(status: .forbidden) }
            return Self.multistatus(snapshot, depth: depth)
        }
        let (base, task) = await runOnLoopback(router, label: "folder-etag-server")
        self.task = task
        baseURL = URL(string: base.absoluteString + "/")!
    }

    func stop() { task.stop() }

    /// Another member's write: the file's ETag, and so the folder's, change.
    func change(_ name: String, to file: File?) {
        update {
            $0.files[name] = file
            $0.version += 1
        }
    }

    func update(_ body: (inout State) -> Void) {
        shared.mutex.withLock { body(&$0) }
    }

    var depths: (zero: Int, one: Int) { shared.mutex.withLock { ($0.depth0, $0.depth1) } }

    private static func multistatus(_ state: State, depth: String) -> Response {
        func response(_ href: String, _ props: String) -> String {
            "<d:response><d:href>\(href)</d:href><d:propstat><d:prop>\(props)</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
        }
        var body = #"<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:">"#
        body += response("/byteclub/", "<d:resourcetype><d:collection/></d:resourcetype>"
                         + (state.folderETag ? "<d:getetag>\"folder-\(state.version)\"</d:getetag>" : ""))
        if depth == "1" {
            for (name, file) in state.files.sorted(by: { $0.key < $1.key }) {
                body += response("/byteclub/\(name)", "<d:resourcetype/><d:getetag>\"\(file.etag)\"</d:getetag>"
                                 + "<d:getcontentlength>\(file.size)</d:getcontentlength><d:getlastmodified>Sat, 21 Nov 2026 12:00:00 GMT</d:getlastmodified>")
            }
        }
        body += "</d:multistatus>"
        return Response(status: .init(code: 207), headers: [.contentType: "application/xml; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

/// Polling a folder that has an ETag: while it stands still, each look is one `Depth: 0`
/// PROPFIND and no listing; when it moves, the folder is listed and diffed. Without a folder
/// ETag, or once the full-listing period is up, every look lists.
final class WebDAVFolderETagTests: XCTestCase {
    var server: FolderETagServer!
    var store: WebDAVStore!

    override func setUp() async throws {
        server = try await FolderETagServer(files: ["a.txt": .init(etag: "a1", size: 5), "b.txt": .init(etag: "b1", size: 7)])
        store = WebDAVStore(root: server.baseURL, configuration: .ephemeral)
        store.polling.schedule = WebDAVPollSchedule(interval: .milliseconds(100), burstInterval: .milliseconds(100))
    }

    override func tearDown() async throws {
        store = nil
        server?.stop()
    }

    func testAFolderWhoseETagStandsStillIsNotListedAgain() async throws {
        let store: WebDAVStore = self.store
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        XCTAssertEqual(server.depths.one, 1, "the cursor is one listing")
        let quiet = try await store.longpoll(cursor, timeout: 1)
        XCTAssertFalse(quiet.changes)
        let (zero, one) = server.depths
        XCTAssertGreaterThanOrEqual(zero, 5, "a look every 100 ms, each asking the folder's ETag alone")
        XCTAssertEqual(one, 1, "no listing while the folder's ETag stands still")
        XCTAssertEqual(store.pollCounts.skippedListings, zero)

        server.change("a.txt", to: .init(etag: "a2", size: 9))
        server.change("c.txt", to: .init(etag: "c1", size: 3))
        let woke = try await store.longpoll(cursor, timeout: 30)
        XCTAssertTrue(woke.changes)
        let delta = try await store.listChanges(since: cursor)
        var revs: [String: String?] = [:]
        for case .updated(let entry) in delta.changes { revs[entry.path] = entry.rev }
        XCTAssertEqual(revs, ["/byteclub/a.txt": "\"a2\"", "/byteclub/c.txt": "\"c1\""])
        // From the new cursor, quiet again: ETag checks only.
        let listed = server.depths.one
        _ = try await store.longpoll(delta.cursor, timeout: 0.5)
        XCTAssertEqual(server.depths.one, listed)
    }

    /// The app asks for 30 s longpolls and looks are 10 s apart: a longpoll that ends between
    /// two looks must not stretch the interval (three looks a longpoll, not two).
    func testLooksKeepTheirPaceAcrossLongpolls() async throws {
        let store: WebDAVStore = self.store
        store.polling.schedule = WebDAVPollSchedule(interval: .milliseconds(500), burstInterval: .milliseconds(500))
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        let before = store.pollCounts.checks
        let began = ContinuousClock.now
        for _ in 0..<8 { _ = try await store.longpoll(cursor, timeout: 0.75) }
        let elapsed = ContinuousClock.now - began
        let looks = store.pollCounts.checks - before
        // 6 s at one look every 500 ms: 12 (each longpoll on its own would look once: 8).
        XCTAssertGreaterThanOrEqual(looks, 10, "\(looks) looks in \(elapsed)")
    }

    func testWithoutAFolderETagEveryLookLists() async throws {
        let store: WebDAVStore = self.store
        server.update { $0.folderETag = false }
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        _ = try await store.longpoll(cursor, timeout: 1)
        let (zero, one) = server.depths
        XCTAssertEqual(zero, 0, "no ETag to ask for")
        XCTAssertGreaterThanOrEqual(one, 5)
    }

    func testTheFolderIsListedWholeOnceThePeriodIsUpWhateverItsETag() async throws {
        let store: WebDAVStore = self.store
        store.polling.schedule.fullListingEvery = .milliseconds(350)
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        // A server whose folder ETag misses a file rewritten in place: only the full listing sees it.
        server.update { $0.files["b.txt"] = .init(etag: "b2", size: 8) }
        let woke = try await store.longpoll(cursor, timeout: 30)
        XCTAssertTrue(woke.changes)
        XCTAssertGreaterThanOrEqual(server.depths.zero, 1, "ETag checks until the period was up")
    }
}

/// The schedule as a value: 10 s, 2 s for 30 s after an own write, a full listing every 5 minutes.
final class WebDAVPollScheduleTests: XCTestCase {
    func testTheShortIntervalLastsThirtySecondsAfterAnOwnWrite() {
        let schedule = WebDAVPollSchedule()
        let t0 = ContinuousClock.now
        XCTAssertEqual(schedule.interval(at: t0, lastWrite: nil), .seconds(10))
        XCTAssertEqual(schedule.interval(at: t0 + .seconds(1), lastWrite: t0), .seconds(2))
        XCTAssertEqual(schedule.interval(at: t0 + .milliseconds(29_900), lastWrite: t0), .seconds(2))
        XCTAssertEqual(schedule.interval(at: t0 + .seconds(30), lastWrite: t0), .seconds(10))
        // A write brings a look that was 10 s away to 2 s after the last one.
        XCTAssertEqual(schedule.nextCheck(after: t0, at: t0 + .seconds(1), lastWrite: nil), t0 + .seconds(10))
        XCTAssertEqual(schedule.nextCheck(after: t0, at: t0 + .seconds(1), lastWrite: t0 + .milliseconds(500)), t0 + .seconds(2))
    }

    func testAFullListingIsDueEveryFiveMinutesAndAtFirst() {
        let schedule = WebDAVPollSchedule()
        let t0 = ContinuousClock.now
        XCTAssertTrue(schedule.fullListingDue(listed: nil, at: t0))
        XCTAssertFalse(schedule.fullListingDue(listed: t0, at: t0 + .seconds(299)))
        XCTAssertTrue(schedule.fullListingDue(listed: t0, at: t0 + .seconds(300)))
    }
}
