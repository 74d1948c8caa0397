@testable import ClubServer
import DropboxWire
import Foundation
import XCTest

/// Listings as values, without a disk: the cache's key and lifetime (``ListingCache``), search
/// by name (``FolderSearch``), and deltas from journal records (``ListingDelta``).
final class FolderListingTests: XCTestCase {
    private func file(_ display: String, modified: TimeInterval = 0) -> Metadata {
        .file(FileMetadata(name: (display as NSString).lastPathComponent, id: "id:" + display, pathLower: display.lowercased(),
                           pathDisplay: display, clientModified: Date(timeIntervalSince1970: modified),
                           serverModified: Date(timeIntervalSince1970: modified), rev: "0123456789", size: 1, contentHash: "h"))
    }

    private func folder(_ display: String) -> Metadata {
        .folder(FolderMetadata(name: (display as NSString).lastPathComponent, id: "id:" + display, pathLower: display.lowercased(), pathDisplay: display))
    }

    private func walked(_ display: String) -> WalkedEntry {
        let path = DropboxPath(components: display.split(separator: "/").map(String.init))
        return WalkedEntry(FolderPaths.Resolved(host: "/club" + display, path: path, exists: true, isDirectory: false), info: stat())
    }

    func testACachedListingIsReusedOnlyUnderItsKeyAndForAFewSeconds() {
        var cache = ListingCache()
        let start = ContinuousClock.now
        let key = ListingCache.key(host: "/club/Notes", folderStamp: "1.2", journalHead: 7, readsOnly: false)
        XCTAssertNil(cache.entries(for: key, now: start))
        cache.keep([walked("/Notes/a.md")], for: key, at: start)
        XCTAssertEqual(cache.entries(for: key, now: start + .seconds(4))?.count, 1)
        XCTAssertNil(cache.entries(for: key, now: start + .seconds(5)), "an edit in place does not touch the folder's stamp")
        XCTAssertNil(cache.entries(for: ListingCache.key(host: "/club/Notes", folderStamp: "1.2", journalHead: 8, readsOnly: false), now: start),
                     "a newer journal head lists again")
        XCTAssertNil(cache.entries(for: ListingCache.key(host: "/club/Notes", folderStamp: "1.2", journalHead: 7, readsOnly: true), now: start),
                     "a reader is never handed an editor's answer")
    }

    func testABigWalkIsKeptWhileItIsPagedThrough() {
        var cache = ListingCache()
        let start = ContinuousClock.now
        let key = ListingCache.key(host: "/club/Notes", folderStamp: "1.2", journalHead: 7, readsOnly: false)
        let small = ListingCache.key(host: "/club/Small", folderStamp: "1.2", journalHead: 7, readsOnly: false)
        let big = (0...ListingCache.metadataKept).map { walked("/Notes/n\($0).md") }
        cache.keep(big, for: key, at: start)
        cache.keep([walked("/Small/a.md")], for: small, at: start)
        for second in [4, 8, 12, 16] {
            XCTAssertEqual(cache.entries(for: key, now: start + .seconds(second))?.count, big.count,
                           "a page \(second) s after the walk, 4 s after the last page: each page stats its entries again")
        }
        XCTAssertNil(cache.entries(for: small, now: start + .seconds(8)), "a walk whose metadata is kept goes after 5 s")
        XCTAssertNil(cache.entries(for: key, now: start + .seconds(21)), "5 s after its last page, a big walk goes too")
    }

    func testAPagesMetadataIsKeptWithItsWalkAndGoesWithIt() {
        var cache = ListingCache()
        let start = ContinuousClock.now
        let key = ListingCache.key(host: "/club/Notes", folderStamp: "1.2", journalHead: 7, readsOnly: false)
        cache.remember([(0, file("/Notes/a.md"))], for: key)
        XCTAssertNil(cache.metadata(for: key)[0], "nothing is kept for a walk that is not")
        cache.keep([walked("/Notes/a.md"), walked("/Notes/b.md")], for: key, at: start)
        cache.remember([(1, file("/Notes/b.md"))], for: key)
        XCTAssertEqual(cache.metadata(for: key)[1]?.pathLower, "/notes/b.md")
        XCTAssertNil(cache.metadata(for: key)[0])
        cache.keep([walked("/Notes/a.md")], for: key, at: start + .seconds(1))
        XCTAssertNil(cache.metadata(for: key)[1], "a new walk starts with none")
    }

    func testTwoListingsPagedSideBySideAreBothKeptAndTheOldestGoesFirst() {
        var cache = ListingCache()
        let start = ContinuousClock.now
        let keys = (0..<4).map { ListingCache.key(host: "/club", folderStamp: "\($0)|all", journalHead: 7, readsOnly: false) }
        cache.keep([walked("/Notes/a.md")], for: keys[0], at: start)
        cache.keep([walked("/photos/a.jpg"), walked("/photos/b.jpg")], for: keys[1], at: start)
        XCTAssertEqual(cache.entries(for: keys[0], now: start)?.count, 1, "the notes' listing outlives a page of the photos'")
        XCTAssertEqual(cache.entries(for: keys[1], now: start)?.count, 2)
        cache.keep([], for: keys[2], at: start + .seconds(1))
        cache.keep([], for: keys[3], at: start + .seconds(2))
        XCTAssertNil(cache.entries(for: keys[0], now: start + .seconds(2)), "\(ListingCache.slots) at most: the oldest is dropped")
        XCTAssertNotNil(cache.entries(for: keys[3], now: start + .seconds(2)))
    }

    func testListingsAreOrderedByLowerCasePath() {
        let sorted = ListingOrder.sorted([walked("/b.md"), walked("/A"), walked("/a/c.md"), walked("/B.txt")])
        XCTAssertEqual(sorted.map(\.lower), ["/a", "/a/c.md", "/b.md", "/b.txt"])
        XCTAssertEqual(ListingOrder.start(after: nil, in: sorted), 0)
        XCTAssertEqual(ListingOrder.start(after: "/a/c.md", in: sorted), 2, "the first past the key")
        XCTAssertEqual(ListingOrder.start(after: "/a/b", in: sorted), 1, "a key no longer listed: the next one")
        XCTAssertEqual(ListingOrder.start(after: "/z", in: sorted), 4)
    }

    func testSearchNeedsEveryWordAndTheExtensionOrCategoryAsked() {
        let listing = [folder("/Trip Photos"), file("/Trip Photos/beach.JPG", modified: 5), file("/trip notes.md", modified: 9),
                       file("/Other.md", modified: 1)]
        let words = FolderSearch(query: "  TRIP  ", extensions: [], categories: [], newestFirst: false)
        XCTAssertEqual(words.results(listing).map(\.pathLower), ["/trip photos", "/trip notes.md"])
        let jpegs = FolderSearch(query: "", extensions: [".jpg"], categories: [], newestFirst: false)
        XCTAssertEqual(jpegs.results(listing).map(\.pathLower), ["/trip photos/beach.jpg"], "extensions match files only")
        let images = FolderSearch(query: "", extensions: [], categories: [.image, .folder], newestFirst: false)
        XCTAssertEqual(images.results(listing).map(\.pathLower), ["/trip photos", "/trip photos/beach.jpg"])
        let others = FolderSearch(query: "", extensions: [], categories: [.others], newestFirst: false)
        XCTAssertTrue(others.results(listing).isEmpty, ".md is a document")
        let newest = FolderSearch(query: "", extensions: [], categories: [], newestFirst: true)
        XCTAssertEqual(newest.results(listing).map(\.pathLower), ["/trip notes.md", "/trip photos/beach.jpg", "/other.md", "/trip photos"],
                       "newest first; a folder has no time and comes last")
    }

    func testADeltaCollapsesEachPathToItsStateNow() {
        var seq: UInt64 = 0
        func record(_ kind: JournalRecord.Kind, _ display: String) -> JournalRecord {
            seq += 1
            return JournalRecord(seq: seq, kind: kind, display: display)
        }
        let records = [record(.written, "/Notes/a.md"), record(.removed, "/Notes/a.md"), record(.written, "/Notes/a.md"),
                       record(.written, "/Notes/gone.md"), record(.removed, "/Notes/old"), record(.written, "/Notes/sub/deep.md"),
                       record(.written, "/Other/x.md")]
        let now: [String: Metadata] = ["/Notes/a.md": file("/Notes/a.md"), "/Notes/sub/deep.md": file("/Notes/sub/deep.md")]
        let delta = ListingDelta.entries(of: DropboxPath(components: ["Notes"]), recursive: false, records: records) { now[$0] }
        XCTAssertEqual(delta.map(\.pathLower), ["/notes/a.md", "/notes/a.md", "/notes/gone.md", "/notes/old"])
        XCTAssertEqual(delta.map(\.rank), [0, 1, 0, 0], "a path removed and written again is told deleted first")
        guard case .deleted = delta[2].metadata else { return XCTFail("written, but gone now: a deletion") }

        let recursive = ListingDelta.entries(of: DropboxPath(components: ["Notes"]), recursive: true, records: records) { now[$0] }
        XCTAssertTrue(recursive.contains { $0.pathLower == "/notes/sub/deep.md" && $0.rank == 1 })

        let folderGone = ListingDelta.entries(of: DropboxPath(components: ["Notes", "sub"]), recursive: false,
                                              records: [record(.removed, "/Notes")]) { _ in nil }
        XCTAssertEqual(folderGone.map(\.pathLower), ["/notes/sub"], "an ancestor removed is the folder's own deletion")
    }
}
