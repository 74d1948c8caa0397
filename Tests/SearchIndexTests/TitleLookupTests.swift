import Foundation
import GRDB
import XCTest
@testable import SearchIndex

/// Notes found by name through the title column and the path index (issue 71: one note costs
/// one note), every note of the name whatever its letters, and the change mark that a removal by
/// anyone forgets.
final class TitleLookupTests: XCTestCase {
    var folder: IndexFolder!
    var index: SearchIndex!

    override func setUpWithError() throws {
        folder = try IndexFolder()
        index = try SearchIndex(directory: folder.url)
        try index.upsert([
            note("/byteclub/Trip plan.md", "# Trip"),
            note("/byteclub/Old/TRIP PLAN.txt", "old"),
            note("/byteclub/Trip plan extra.md", "not this one"),
            note("/byteclub/Café notes.md", "coffee"),
            note("/byteclub/A/CAFÉ NOTES.md", "more coffee"),
            note("/byteclub/日本.md", "japan"),
            note("/byteclub/!!!.md", "bang"),
            note("/byteclub/v1.2.md", "version"),
            note("/byteclub/People/Ann.md", "---\naliases: [Annie, \"The Boss\"]\n---\nAnn's page"),
            note("/byteclub/People/Bob.md", "---\ntags: [x]\n---\nAnnie is mentioned, not an alias here"),
        ])
    }

    private func paths(_ names: Set<String>) throws -> [String] {
        try index.notes(named: names).map(\.path).sorted()
    }

    func testEveryNoteOfANameIsFoundInAnyCaseAndNoOther() throws {
        XCTAssertEqual(try paths(["trip plan.md", "trip plan.txt"]), ["/byteclub/Old/TRIP PLAN.txt", "/byteclub/Trip plan.md"])
        XCTAssertEqual(try paths(["café notes.md"]), ["/byteclub/A/CAFÉ NOTES.md", "/byteclub/Café notes.md"],
                       "a name with no ASCII-only word but its own: Swift's lowercase, not SQLite's")
        XCTAssertEqual(try paths(["日本.md"]), ["/byteclub/日本.md"])
        XCTAssertEqual(try paths(["!!!.md"]), ["/byteclub/!!!.md"], "a name with no word at all")
        XCTAssertEqual(try paths(["v1.2.md"]), ["/byteclub/v1.2.md"])
        XCTAssertEqual(try paths(["nowhere.md"]), [])
        let trip = try XCTUnwrap(index.notes(named: ["trip plan.md"]).first)
        XCTAssertEqual(trip.rev, "r1")
        XCTAssertEqual(trip.name, "Trip plan.md")
        XCTAssertEqual(try index.notes(atPaths: ["/byteclub/old/trip plan.txt", "/byteclub/none.md"]).map(\.path), ["/byteclub/Old/TRIP PLAN.txt"])
    }

    func testTheNotesAnAliasMayNameAreThoseWhoseFrontMatterMayHoldIt() throws {
        XCTAssertEqual(try index.notesWithFrontMatter(naming: "aliases", mayHolding: "annie").map(\.path), ["/byteclub/People/Ann.md"],
                       "Bob's text holds the word, but his front matter gives no aliases")
        XCTAssertEqual(try index.notesWithFrontMatter(naming: "aliases", mayHolding: "the boss").map(\.path), ["/byteclub/People/Ann.md"])
        XCTAssertEqual(try index.notesWithFrontMatter(naming: "aliases", mayHolding: "nobody").map(\.path), [])
        XCTAssertEqual(try index.notesWithFrontMatter(naming: "aliases", mayHolding: "…").map(\.path), ["/byteclub/People/Ann.md"],
                       "no word to look for: every note whose front matter gives aliases")
    }

    func testTheChangeMarkIsForgottenWhenAnyoneTakesANoteOut() throws {
        XCTAssertNil(try index.changeMark(folder: "/byteclub"), "none before one is set")
        try index.setChangeMark("cursor-1", folder: "/ByteClub")
        XCTAssertEqual(try index.changeMark(folder: "/byteclub"), "cursor-1")
        try index.upsert(note("/byteclub/New.md", "new"))
        try index.upsert(note("/byteclub/Trip plan.md", "# Trip, again", rev: "r2"))
        XCTAssertEqual(try index.changeMark(folder: "/byteclub"), "cursor-1", "a note added or replaced keeps it")

        // Another process on the same file (the app, an older byteclub) takes a note out.
        let other = try DatabaseQueue(path: folder.file.path)
        try other.write { db in try db.execute(sql: "DELETE FROM note WHERE path_lower = '/byteclub/new.md'") }
        XCTAssertNil(try index.changeMark(folder: "/byteclub"), "a note taken out by another writer forgets the mark")

        try index.setChangeMark("cursor-2", folder: "/byteclub")
        try index.remove(path: "/byteclub/Trip plan.md")
        XCTAssertNil(try index.changeMark(folder: "/byteclub"))
        try index.setChangeMark("cursor-3", folder: "/byteclub")
        try index.setChangeMark(nil, folder: "/byteclub")
        XCTAssertNil(try index.changeMark(folder: "/byteclub"))
    }
}
