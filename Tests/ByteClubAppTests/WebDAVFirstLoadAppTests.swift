@testable import ByteClubApp
import Foundation
import Remote
import TestSupport
import XCTest

/// The app's first load on WebDAV (issue 56). A change cursor there is a look at the whole
/// folder, which the app took before it listed the folder, so on a 100,000-note club the first
/// frame waited for two whole PROPFINDs. Now the list loads first and the cursor comes from
/// that look: the folder is listed once, and the live updates still start at a cursor.
@MainActor
final class WebDAVFirstLoadAppTests: XCTestCase {
    private var server: RcloneWebDAV?
    private var proxy: WebDAVProxy?

    override func tearDown() async throws {
        proxy?.stop()
        server?.remove()
    }

    func testTheFirstLoadListsTheFolderOnceAndTheLiveUpdatesStartFromThatLook() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        // rclone's own directory cache on: with none (`--dir-cache-time 0s`, the fixture's
        // default) it reads the folder again for each entry it answers, 16 KB/s for this one.
        let server = try RcloneWebDAV(dirCacheTime: nil)
        self.server = server
        let folder = server.file("byteclub")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 1...3_000 {
            try Data("note \(index)\n".utf8).write(to: folder.appendingPathComponent(String(format: "note-%05d.md", index)))
        }
        let proxy = try WebDAVProxy(upstreamPort: server.port, recording: true)
        self.proxy = proxy
        let store = try await WebDAVStore.connect(url: proxy.url, user: server.user, password: server.password)
        let harness = Harness(store: store)
        defer { harness.app.stopLiveUpdates() }
        harness.app.start()
        await harness.waitUntil("the notes listed and watched", timeout: 60) {
            harness.app.state.notes.hasLoaded && harness.app.live.isWatching(.notes)
        }
        XCTAssertEqual(harness.app.state.notes.entries.count, 3_000)
        let listings = proxy.exchanges.filter { $0.method == "PROPFIND" && $0.path.hasSuffix("/byteclub/") && $0.requestHeaders["depth"] == "1" }
        XCTAssertEqual(listings.count, 1, "one look at the club folder for its list and its cursor: \(listings.map(\.path))")

        // The live updates work from that cursor: a note another member writes appears.
        let other = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
        _ = try await other.upload(data: Data("new\n".utf8), to: "/byteclub/arrived.md", mode: .add, autorename: false)
        await harness.waitUntil("the new note", timeout: 60) {
            harness.app.state.notes.entries.contains { $0.name == "arrived.md" }
        }
        // The list's tags are read with one look at the folder, not one per 100 notes (a store
        // that reads a folder's tags at once is asked once: ``TaggingStore/tagPathsPerCall``);
        // then one for the note that arrived.
        let tagLooks = { proxy.exchanges.filter { $0.method == "PROPFIND" && $0.path.hasSuffix("/byteclub/")
            && String(decoding: $0.requestBody, as: UTF8.self).contains("urn:x-byteclub:") } }
        await harness.waitUntil("the list's tags asked", timeout: 60) { !tagLooks().isEmpty }
        XCTAssertLessThanOrEqual(tagLooks().count, 3, "the tags of 3,000 notes in one folder: \(tagLooks().count) looks at it")
    }
}
