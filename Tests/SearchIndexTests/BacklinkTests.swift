import Foundation
import GRDB
import XCTest
@testable import SearchIndex

/// Links indexed with the text: backlinks by title, by path and by path without the extension,
/// kept current by every write, rename and removal, and none from code.
final class BacklinkTests: XCTestCase {
    var folder: IndexFolder!
    var index: SearchIndex!

    override func setUpWithError() throws {
        folder = try IndexFolder()
        index = try SearchIndex(directory: folder.url)
        try index.upsert([
            note("/byteclub/Trip plan.md", "# Trip\nBook the boat.\n[[Trip plan]] links to itself", modified: 100),
            note("/byteclub/Packing.md", "Before the [[trip PLAN|trip]] we pack.\nAnd again: [[Trip plan#Boat]]", modified: 300),
            note("/byteclub/Budget.md", "Costs\n\nSee [the plan](Trip%20plan.md) for dates.", modified: 200),
            note("/byteclub/Obsidian.md", "A link [plan](Trip%20plan) without the extension", modified: 50),
            note("/byteclub/Code.md", "```\n[[Trip plan]]\n```\nand `[[Trip plan]]` in a span", modified: 400),
            note("/byteclub/Desk.md", "![my desk](photos/desk.jpg) and https://example.com/Trip%20plan.md", modified: 10),
        ])
    }

    func testBacklinksComeByTitlePathAndBarePathNewestFirst() throws {
        let links = try index.backlinks(to: "/byteclub/Trip plan.md")
        XCTAssertEqual(links.map(\.path), ["/byteclub/Packing.md", "/byteclub/Budget.md", "/byteclub/Obsidian.md"],
                       "newest first; the note's own link and links in code are not backlinks")
        let packing = try XCTUnwrap(links.first)
        XCTAssertEqual(packing.line, 0)
        XCTAssertEqual(packing.context, "Before the [[trip PLAN|trip]] we pack.")
        XCTAssertEqual(packing.count, 2, "two links from Packing lead here")
        XCTAssertEqual(packing.title, "Packing")
        XCTAssertEqual(links[1].line, 2)
        XCTAssertEqual(links[1].context, "See [the plan](Trip%20plan.md) for dates.")
        XCTAssertEqual(try index.backlinks(to: "/BYTECLUB/trip plan.md").map(\.path), links.map(\.path), "any case")
    }

    func testPhotosHaveBacklinksAndWebAddressesAreNotStored() throws {
        XCTAssertEqual(try index.backlinks(to: "/byteclub/photos/desk.jpg").map(\.path), ["/byteclub/Desk.md"])
        // Packing 2, Budget, Obsidian, Trip plan's own, Desk's photo: the address and code are not links to notes.
        XCTAssertEqual(try index.linkCount(), 6)
    }

    func testAWriteReplacesTheLinksAndARemovalForgetsThem() throws {
        try index.upsert(note("/byteclub/Packing.md", "No links any more", rev: "r2", modified: 300))
        XCTAssertEqual(try index.backlinks(to: "/byteclub/Trip plan.md").map(\.path), ["/byteclub/Budget.md", "/byteclub/Obsidian.md"])
        try index.remove(path: "/byteclub/budget.md")
        XCTAssertEqual(try index.backlinks(to: "/byteclub/Trip plan.md").map(\.path), ["/byteclub/Obsidian.md"])
        try index.upsert(note("/byteclub/New.md", "Now [[Trip plan]] again", modified: 900))
        XCTAssertEqual(try index.backlinks(to: "/byteclub/Trip plan.md").map(\.path), ["/byteclub/New.md", "/byteclub/Obsidian.md"])
    }

    /// A renamed linking note keeps its links under its new path; a renamed target is linked by
    /// its old title until the links are updated.
    func testRenamesMoveTheLinksWithTheNote() throws {
        try index.rename(from: "/byteclub/Packing.md", to: "/byteclub/Bags.md")
        XCTAssertEqual(try index.backlinks(to: "/byteclub/Trip plan.md").first?.path, "/byteclub/Bags.md")
        try index.rename(from: "/byteclub/Trip plan.md", to: "/byteclub/Journey.md")
        XCTAssertEqual(try index.backlinks(to: "/byteclub/Journey.md"), [])
        XCTAssertEqual(try index.backlinks(to: "/byteclub/Trip plan.md").map(\.path),
                       ["/byteclub/Bags.md", "/byteclub/Budget.md", "/byteclub/Journey.md", "/byteclub/Obsidian.md"],
                       "the links still name the old title and path (Journey's own link included)")
    }

    /// Where a link leads is the core's `NoteResolver`'s to say; offline, it resolves among
    /// the notes the index holds, by the paths as displayed.
    func testThePathsOfEveryIndexedNoteAsDisplayed() throws {
        XCTAssertEqual(try index.paths(), ["/byteclub/Budget.md", "/byteclub/Code.md", "/byteclub/Desk.md", "/byteclub/Obsidian.md",
                                          "/byteclub/Packing.md", "/byteclub/Trip plan.md"])
        try index.remove(path: "/byteclub/code.md")
        XCTAssertFalse(try index.paths().contains("/byteclub/Code.md"))
    }

    func testALongLineIsCutAndTheLimitHolds() throws {
        let long = String(repeating: "word ", count: 100) + "[[Target]]"
        try index.upsert((0..<5).map { note("/byteclub/L\($0).md", long, modified: Double($0)) })
        let links = try index.backlinks(to: "/byteclub/Target.md", limit: 3)
        XCTAssertEqual(links.map(\.path), ["/byteclub/L4.md", "/byteclub/L3.md", "/byteclub/L2.md"])
        XCTAssertEqual(links[0].context.count, SearchIndex.contextLength)
        XCTAssertTrue(links[0].context.hasSuffix("…"))
    }

    /// An index file of the version before links is rebuilt (its notes had no links indexed).
    func testAnIndexWithoutLinksIsRebuilt() throws {
        let old = try IndexFolder()
        let pool = try DatabasePool(path: old.file.path)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE note(id INTEGER PRIMARY KEY, path_lower TEXT NOT NULL UNIQUE, path TEXT NOT NULL, name TEXT NOT NULL,
                                  rev TEXT, modified REAL, modified_by TEXT);
                CREATE TABLE note_body(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                CREATE VIRTUAL TABLE note_fts USING fts5(name, words, cjk, content='');
                PRAGMA user_version = 1;
                """)
        }
        try pool.close()
        let reopened = try SearchIndex(directory: old.url)
        XCTAssertEqual(reopened.openOutcome, .rebuilt(reason: "version 1, now \(SearchIndex.schemaVersion)"))
        XCTAssertEqual(try reopened.linkCount(), 0)
    }
}
