import Foundation
import GRDB
import XCTest
@testable import SearchIndex

/// The index against a real SQLite file: the query language, matching lines, incremental updates.
final class SearchIndexTests: XCTestCase {
    var folder: IndexFolder!
    var index: SearchIndex!

    override func setUpWithError() throws {
        folder = try IndexFolder()
        index = try SearchIndex(directory: folder.url)
        XCTAssertEqual(index.openOutcome, .created)
        try index.upsert([
            note("/byteclub/Trip to Rome.txt", "Packing list\nBoat hire on the lake, then trips by train.\nRain expected.", modified: 100),
            note("/byteclub/Harbour.txt", "The boat needs paint.\nWe hire a van.", modified: 200, by: "dbid:bob"),
            note("/byteclub/Café.txt", "Déjà vu at the CAFÉ.\nRésumé of the week.", modified: 300),
            note("/byteclub/東京.txt", "旅行の計画\n東京都に行きます。iPhone用の充電器", modified: 400),
            note("/byteclub/Groceries.txt", "eggs\ntripod for the camera", modified: 500),
        ])
    }

    func paths(_ query: String) throws -> [String] {
        try index.search(query).map(\.path)
    }

    func testWordsArePrefixesOnlyWithAStar() throws {
        XCTAssertEqual(try paths("trip"), ["/byteclub/Trip to Rome.txt"])
        XCTAssertEqual(Set(try paths("trip*")), ["/byteclub/Trip to Rome.txt", "/byteclub/Groceries.txt"])
    }

    func testPhrasesNeedTheWordsTogether() throws {
        XCTAssertEqual(try paths(#""boat hire""#), ["/byteclub/Trip to Rome.txt"])
        XCTAssertEqual(Set(try paths("boat hire")), ["/byteclub/Trip to Rome.txt", "/byteclub/Harbour.txt"])
    }

    /// What the app opens a search hit from while offline: the note's text and rev, by path in
    /// any case; nil for a path never indexed or forgotten.
    func testANoteIsReadBackWholeByItsPathInAnyCase() throws {
        let harbour = try XCTUnwrap(try index.note(at: "/BYTECLUB/harbour.TXT"))
        XCTAssertEqual(harbour.path, "/byteclub/Harbour.txt")
        XCTAssertEqual(harbour.text, "The boat needs paint.\nWe hire a van.")
        XCTAssertEqual(harbour.rev, "r1")
        XCTAssertEqual(harbour.modifiedBy, "dbid:bob")
        XCTAssertEqual(harbour.modified, Date(timeIntervalSince1970: 200))
        XCTAssertNil(try index.note(at: "/byteclub/Nowhere.txt"))
        try index.remove(path: "/byteclub/Harbour.txt")
        XCTAssertNil(try index.note(at: "/byteclub/Harbour.txt"))
    }

    func testExcludedWordsLeaveNotesOut() throws {
        XCTAssertEqual(try paths("boat -rain"), ["/byteclub/Harbour.txt"])
    }

    func testCaseAndAccentsDoNotMatter() throws {
        XCTAssertEqual(try paths("cafe"), ["/byteclub/Café.txt"])
        XCTAssertEqual(try paths("DEJA"), ["/byteclub/Café.txt"])
        XCTAssertEqual(try paths("resume"), ["/byteclub/Café.txt"])
        XCTAssertEqual(try paths("Résumé"), ["/byteclub/Café.txt"])
    }

    func testCJKWordsAreFoundInsideRuns() throws {
        for word in ["東京", "京都", "計画", "旅行の計画", "充電器", "用", "器"] {
            XCTAssertEqual(try paths(word), ["/byteclub/東京.txt"], word)
        }
        XCTAssertEqual(try paths("iphone"), ["/byteclub/東京.txt"])
        XCTAssertEqual(try paths("大阪"), [])
        XCTAssertEqual(try paths("都東"), [], "characters must be adjacent and in order")
    }

    func testHitCarriesTheMatchingLineAndWhere() throws {
        let hits = try index.search("hire")
        let trip = try XCTUnwrap(hits.first { $0.path == "/byteclub/Trip to Rome.txt" })
        XCTAssertEqual(trip.line, SearchLine(text: "Boat hire on the lake, then trips by train.", index: 1, column: 5, ranges: [5..<9]))
        XCTAssertEqual(trip.modifiedBy, "dbid:alice")
        XCTAssertEqual(trip.modified, Date(timeIntervalSince1970: 100))
        XCTAssertEqual(trip.rev, "r1")
        XCTAssertEqual(trip.match, .content)

        let cjk = try XCTUnwrap(try index.search("東京").first)
        XCTAssertEqual(cjk.match, .both)
        XCTAssertEqual(cjk.line, SearchLine(text: "東京都に行きます。iPhone用の充電器", index: 1, column: 0, ranges: [0..<2]))

        let accents = try XCTUnwrap(try index.search("cafe").first)
        XCTAssertEqual(accents.line?.ranges, [15..<19])
        XCTAssertEqual(accents.match, .both)

        let title = try XCTUnwrap(try index.search("rome").first)
        XCTAssertEqual(title.match, .filename)
        XCTAssertNil(title.line)
    }

    func testALongLinesMatchesAreFoundWhereverTheyAre() throws {
        // 3,000 characters before the match, and "footnotes", which the byte probe meets first.
        let filler = String(repeating: "sail on ", count: 375)
        let line = filler + "footnotes then notes, then " + String(repeating: "x", count: 600) + " notes"
        try index.upsert([note("/byteclub/Long.txt", "title line\n" + line, modified: 900)])
        let hit = try XCTUnwrap(try index.search("notes").first { $0.path == "/byteclub/Long.txt" })
        XCTAssertEqual(hit.line?.index, 1)
        XCTAssertEqual(hit.line?.column, 3_015, "the whole word, not the end of footnotes")
        XCTAssertEqual(hit.line?.ranges.first, 3_015..<3_020)
        XCTAssertEqual(hit.line?.text, line)
        // Two words: each one's matches in the part of the line looked at, the first one first.
        let both = try XCTUnwrap(try index.search("then footnotes").first { $0.path == "/byteclub/Long.txt" })
        XCTAssertEqual(both.line?.ranges, [3_000..<3_009, 3_010..<3_014, 3_022..<3_026])
    }

    func testATitleOnlyHitSaysWhereInTheTitleItMatched() throws {
        let hits = try index.search("rome")
        XCTAssertEqual(hits.map(\.path), ["/byteclub/Trip to Rome.txt"])
        XCTAssertNil(hits.first?.line)
        XCTAssertEqual(hits.first?.titleRanges, [8..<12])
        // Matched in the text too: the line is what is shown; the title's ranges are there as well.
        let both = try index.search("東京")
        XCTAssertEqual(both.first?.titleRanges, [0..<2])
        XCTAssertEqual(try index.search("packing").first?.titleRanges, [])
    }

    func testTitleWordsRankFirstAndTiesGoNewestFirst() throws {
        try index.upsert([note("/byteclub/Paint.txt", "Nothing here.", modified: 50)])
        XCTAssertEqual(try paths("paint").first, "/byteclub/Paint.txt")
        try index.upsert([note("/a/Same1.txt", "zebra", modified: 10), note("/a/Same2.txt", "zebra", modified: 20)])
        XCTAssertEqual(try paths("zebra"), ["/a/Same2.txt", "/a/Same1.txt"])
    }

    func testPastTheRankingCapMatchesComeNewestFirst() throws {
        try index.upsert([note("/byteclub/Paint.txt", "Nothing here.", modified: 50)])
        let query = try SearchQuery("paint")
        // Ranked, the title match (weighing four times) leads although it is the oldest.
        XCTAssertEqual(try index.search(query, mostRanked: 2).map(\.path), ["/byteclub/Paint.txt", "/byteclub/Harbour.txt"])
        // Two matches past a cap of one: the newest first, scores aside; a folder still keeps its own.
        XCTAssertEqual(try index.search(query, mostRanked: 1).map(\.path), ["/byteclub/Harbour.txt", "/byteclub/Paint.txt"])
        XCTAssertEqual(try index.search(query, limit: 1, mostRanked: 1).map(\.path), ["/byteclub/Harbour.txt"])
        XCTAssertEqual(try index.search(query, under: "/elsewhere", mostRanked: 1).map(\.path), [])
    }

    /// Past the cap, the newest matches are found by walking the notes by date (each asked of
    /// FTS5 by its rowid); they are the notes, in the order, that sorting every match gives.
    func testPastTheCapTheNewestMatchesComeFromAWalkByDateAsASortOfAllWouldGiveThem() throws {
        // 60 notes with "kayak", every third without it; dates out of order with the paths.
        try index.upsert((0..<60).map { n in
            note("/club/\(n % 2 == 0 ? "even" : "odd")/K\(n).txt", n % 3 == 0 ? "a canoe" : "a kayak trip",
                 modified: Double((n * 37) % 60) * 10)
        })
        let query = try SearchQuery("kayak")
        let matching = (0..<60).filter { $0 % 3 != 0 }
        func newest(_ notes: [Int], _ count: Int) -> [String] {
            notes.sorted { ($0 * 37) % 60 > ($1 * 37) % 60 }.prefix(count)
                .map { "/club/\($0 % 2 == 0 ? "even" : "odd")/K\($0).txt" }
        }
        try index.reading { db in
            let walked = try XCTUnwrap(try SearchIndex.newestMatching(db, query.matchExpression, prefix: "", limit: 5))
            XCTAssertEqual(walked.map { $0["path"] as String }, newest(matching, 5))
            // A folder keeps its own; a walk that finds too few (40 match) gives up.
            let odd = try XCTUnwrap(try SearchIndex.newestMatching(db, query.matchExpression, prefix: "/club/odd/", limit: 3))
            XCTAssertEqual(odd.map { $0["path"] as String }, newest(matching.filter { $0 % 2 == 1 }, 3))
            XCTAssertNil(try SearchIndex.newestMatching(db, query.matchExpression, prefix: "", limit: 41))
            XCTAssertNil(try SearchIndex.newestMatching(db, query.matchExpression, prefix: "/elsewhere/", limit: 1))
        }
        // Through `search`: the walk's answer, and when it gives up, the sort of all: the same order.
        XCTAssertEqual(try index.search(query, limit: 5, mostRanked: 10).map(\.path), newest(matching, 5))
        XCTAssertEqual(try index.search(query, limit: 41, mostRanked: 10).map(\.path), newest(matching, 40))
        XCTAssertEqual(try index.search(query, limit: 3, under: "/club/odd", mostRanked: 10).map(\.path),
                       newest(matching.filter { $0 % 2 == 1 }, 3))
        // Newer notes without the word, more than the walk asks (3 × 8): it gives up, the sort answers.
        try index.upsert((0..<30).map { note("/club/new/N\($0).txt", "a canoe", modified: 10_000 + Double($0)) })
        try index.reading { db in XCTAssertNil(try SearchIndex.newestMatching(db, query.matchExpression, prefix: "", limit: 3)) }
        XCTAssertEqual(try index.search(query, limit: 3, mostRanked: 10).map(\.path), newest(matching, 3))
    }

    /// An index made before the walk's date index gets it when opened, its notes kept.
    func testAnIndexWithoutTheDateIndexGetsItWhenOpened() throws {
        func dated(_ index: SearchIndex) throws -> Bool {
            try index.reading { db in try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'note_modified'") ?? false }
        }
        XCTAssertTrue(try dated(index))
        try index.writing { db in try db.execute(sql: "DROP INDEX note_modified") }
        XCTAssertFalse(try dated(index))
        // Without it (a file that could not take it), the walk sorts the notes itself: the same answer.
        XCTAssertEqual(try index.search(try SearchQuery("hire"), limit: 1, mostRanked: 1).map(\.path), ["/byteclub/Harbour.txt"])
        let reopened = try SearchIndex(directory: folder.url)
        XCTAssertEqual(reopened.openOutcome, .opened)
        XCTAssertTrue(try dated(reopened))
        XCTAssertEqual(try reopened.search(try SearchQuery("hire"), mostRanked: 1).map(\.path), ["/byteclub/Harbour.txt", "/byteclub/Trip to Rome.txt"])
    }

    func testHostileQueriesNeverFailInSQLite() throws {
        for text in [#"NEAR(boat hire, 2)"#, #"boat" OR "hire"#, "((( boat", "boat AND", "name:boat", "{name}: boat", #""boat"#,
                     "^boat", "boat + hire", "'; DROP TABLE note; --", "*boat", "bo*at", "NOT boat", "-boat hire"] {
            XCTAssertNoThrow(try index.search(text), text)
        }
        XCTAssertEqual(Set(try paths(#""boat"#)), Set(try paths("boat")), "an unclosed quote is forgiven")
        XCTAssertThrowsError(try index.search("-boat")) { XCTAssertEqual($0 as? SearchIndexError, .query(.onlyExclusions)) }
        XCTAssertEqual(try index.count(), 5)
    }

    func testUpsertReplacesRemoveForgetsRenameMoves() throws {
        try index.upsert(note("/BYTECLUB/harbour.txt", "Now about kayaks.", rev: "r2", modified: 900))
        XCTAssertEqual(try paths("kayaks"), ["/BYTECLUB/harbour.txt"])
        XCTAssertEqual(try paths("paint"), [], "the old text is gone from the index")
        XCTAssertEqual(try index.count(), 5)
        XCTAssertEqual(try index.revisions()["/byteclub/harbour.txt"], "r2")

        XCTAssertTrue(try index.rename(from: "/byteclub/harbour.txt", to: "/byteclub/Kayak club.txt", rev: "r3"))
        XCTAssertEqual(try paths("kayaks"), ["/byteclub/Kayak club.txt"])
        XCTAssertEqual(try index.search("club").first?.match, .filename)
        XCTAssertNil(try index.revisions()["/byteclub/harbour.txt"])
        XCTAssertFalse(try index.rename(from: "/nowhere.txt", to: "/else.txt"))

        try index.remove(path: "/byteclub/kayak CLUB.txt")
        XCTAssertEqual(try paths("kayaks"), [])
        try index.remove(path: "/byteclub/kayak club.txt")
        try index.remove(under: "/BYTECLUB")
        XCTAssertEqual(try index.count(), 0)
        XCTAssertEqual(try paths("boat"), [])
    }

    func testTheIndexOutlivesItsOpener() throws {
        index = nil
        let again = try SearchIndex(directory: folder.url)
        XCTAssertEqual(again.openOutcome, .opened)
        XCTAssertEqual(Set(try again.search("boat").map(\.path)), ["/byteclub/Trip to Rome.txt", "/byteclub/Harbour.txt"])
        try again.verify()
    }
}
