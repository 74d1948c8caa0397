import Foundation
import XCTest
@testable import SearchIndex

/// Issue 54: the app and `byteclub search` keep one index per club in one file. Each
/// SearchIndex below opens the file through connections of its own, as another process would.
final class SharedIndexTests: XCTestCase {
    var folder: IndexFolder!

    override func setUpWithError() throws {
        folder = try IndexFolder()
    }

    /// One of them makes the file anew (it found it damaged, or of another version): the other,
    /// still open on the old file, reads and writes the new one from its next call, instead of a
    /// file nobody else sees any more.
    func testAnIndexMadeAnewByAnotherOpenerIsTheOneReadAndWritten() throws {
        let app = try SearchIndex(directory: folder.url)
        try app.upsert(note("/club/Kayak.txt", "kayaks on the lake"))
        let cli = try SearchIndex(directory: folder.url)
        try cli.reset(reason: "found damaged")
        try cli.upsert(note("/club/Trips/Papaya.txt", "a papaya in a subfolder"))

        XCTAssertEqual(try app.search("papaya").map(\.path), ["/club/Trips/Papaya.txt"], "the file there now")
        XCTAssertEqual(try app.count(), 1)
        try app.upsert(note("/club/Mango.txt", "mangoes"))
        XCTAssertEqual(try cli.search("mangoes").map(\.path), ["/club/Mango.txt"], "written where the other reads")
    }

    /// What another connection writes is told apart from what this index writes itself, so the
    /// app learns that `byteclub search` changed the file under it, and only then.
    func testWritesOfAnotherConnectionAreToldApartFromItsOwn() throws {
        let app = try SearchIndex(directory: folder.url, checkpointDelay: 60)
        let cli = try SearchIndex(directory: folder.url, checkpointDelay: 60)
        _ = try app.changedElsewhere()
        try app.upsert(note("/club/Kayak.txt", "kayaks"))
        try app.upsert(note("/club/Trips/Day one.txt", "day one"))
        try app.remove(path: "/club/Kayak.txt")
        XCTAssertFalse(try app.changedElsewhere(), "its own writes do not count")

        try cli.remove(path: "/club/Trips/Day one.txt")
        XCTAssertTrue(try app.changedElsewhere(), "the other's do")
        XCTAssertFalse(try app.changedElsewhere(), "once")
        XCTAssertTrue(try cli.changedElsewhere(), "and the other way round")

        try cli.reset(reason: "found damaged")
        XCTAssertTrue(try app.changedElsewhere(), "a file made anew is a change too")
        XCTAssertFalse(try app.changedElsewhere())
    }

    /// Two writers at once: one waits for the other's transaction (SQLite's busy timeout)
    /// instead of failing with "database is locked".
    func testTwoWritersAtOnceBothWrite() throws {
        let first = try SearchIndex(directory: folder.url)
        let second = try SearchIndex(directory: folder.url)
        let failures = Recorder<String>()
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            let index = writer == 0 ? first : second
            for batch in 0..<20 {
                let notes = (0..<50).map { note("/club/w\(writer)/b\(batch)/n\($0).txt", "writer\(writer) note \($0) of batch \(batch)") }
                do { try index.upsert(notes) } catch { failures.append("writer \(writer), batch \(batch): \(error)") }
            }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(try first.count(), 2 * 20 * 50)
    }
}
