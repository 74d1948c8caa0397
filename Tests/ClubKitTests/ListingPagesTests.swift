import ClubKit
import Foundation
import Remote
import XCTest

/// The Notes tab's listing taken a page at a time into a table (issue 56), over a real club
/// server on loopback: it must be exactly the list the whole listing gave, sorted the way the
/// list always sorted it, however the pages fall.
final class ListingPagesTests: XCTestCase {
    /// Gathers the pages as they come, to count them.
    private struct Counted: ListingPages {
        var pages: [[RemoteEntry]] = []
        mutating func take(_ page: [RemoteEntry]) { pages.append(page) }
        mutating func restart() { pages = [] }
    }

    func testNotesTakenPageByPageAreTheWholeListingSortedAsBefore() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // 4,500 notes in 30 folders (three pages of the server's 2,000), written before the server
        // starts: a few seconds apart, so many share a time and are ordered by path; some names
        // not ASCII, some upper case; attachments and a hidden folder beside them.
        let notes = root.appendingPathComponent("byteclub")
        var generator = SystemRandomNumberGenerator()
        for folder in 0..<30 {
            let dir = notes.appendingPathComponent(folder % 7 == 0 ? "Été \(folder)" : "f\(folder)/sub")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            for note in 0..<150 {
                let name = note % 11 == 0 ? "Ünïcode \(note).md" : note % 5 == 0 ? "UPPER \(note).TXT" : "note \(note).md"
                let file = dir.appendingPathComponent(name)
                try Data("folder \(folder) note \(note)\n".utf8).write(to: file)
                let time = Date(timeIntervalSince1970: 1_790_000_000 + Double(Int.random(in: 0..<40, using: &generator)))
                try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: file.path)
            }
            try Data("%PDF".utf8).write(to: dir.appendingPathComponent("scan \(folder).pdf"))
        }
        try FileManager.default.createDirectory(at: notes.appendingPathComponent(".obsidian"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: notes.appendingPathComponent(".obsidian/app.md"))

        let backend = try await Backend.connect(.embedded(root: root), connection: ConnectionOptions())
        let store = backend.store
        let layout = ClubLayout(folder: "/byteclub")

        var counted = Counted()
        try await store.listRecursively(layout.folder, into: &counted)
        XCTAssertGreaterThanOrEqual(counted.pages.count, 3, "the listing came in pages")
        let whole = try await store.listRecursively(layout.folder)
        XCTAssertEqual(counted.pages.flatMap { $0 }, whole, "the pages are the listing, in order")

        let listing = try await layout.fetchListing(.notes, from: store)
        // What the list was before it came in pages: the whole listing, filtered and sorted.
        let expectedNotes = ClubLayout.newestFirst(whole.filter { layout.isInNotes($0) && $0.kind == .file })
        XCTAssertGreaterThanOrEqual(expectedNotes.count, 4_500)
        XCTAssertEqual(Array(listing.entries), expectedNotes)
        XCTAssertEqual(listing.folders, whole.filter { layout.isInNotes($0) && $0.kind == .folder }.sorted { $0.pathLower < $1.pathLower })
        XCTAssertEqual(listing.files.map(\.name).sorted(), (0..<30).map { "scan \($0).pdf" }.sorted())
        XCTAssertFalse(listing.entries.contains { $0.pathLower.contains("/.obsidian/") }, "a hidden folder's notes are not notes")
        let array = try await layout.fetch(.notes, from: store)
        XCTAssertEqual(array, listing.all, "the array answer is the same list")
        let indexed = try await ClubIndexSync.notes(in: layout, from: store)
        XCTAssertEqual(indexed, listing.entries)
        await backend.close()
    }
}
