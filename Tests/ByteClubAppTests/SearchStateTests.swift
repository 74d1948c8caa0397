import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// The search results screen as a value: keys and answers in, actions out. Typing never waits
/// for the index, a newer query supersedes an older one, and the selection survives a refresh.
final class SearchStateTests: XCTestCase {
    private func hit(_ name: String, line: String = "a boat hire", ranges: [Range<Int>] = [2..<6]) -> SearchResult {
        SearchResult(path: "/byteclub/\(name)", name: name, modified: nil, modifiedBy: "ann", line: line, lineNumber: 0, ranges: ranges)
    }

    private func type(_ text: String, into state: inout SearchState) -> [SearchState.Action] {
        text.map { state.handle(.char($0)) }
    }

    func testTypingRunsOneQueryAtATimeAndTheNewestTextNext() {
        var state = SearchState()
        XCTAssertEqual(state.handle(.char("b")), .run(query: "b", generation: 1, folder: nil))
        XCTAssertTrue(state.isSearching)
        // Keys typed while the first query runs only make it stale: no second query piles up.
        XCTAssertEqual(type("oat", into: &state), [.none, .none, .none])
        XCTAssertEqual(state.query.text, "boat")
        XCTAssertTrue(state.isStale)
        // The first answer is shown, and the newest text is asked for next.
        let next = state.deliver(.success(.init(query: "b", results: [hit("a.txt"), hit("b.txt")])), generation: 1)
        XCTAssertEqual(next, .run(query: "boat", generation: 2, folder: nil))
        XCTAssertEqual(state.hits.map(\.name), ["a.txt", "b.txt"])
        XCTAssertEqual(state.answered, "b")
        XCTAssertEqual(state.deliver(.success(.init(query: "boat", results: [hit("b.txt")])), generation: 2), .none)
        XCTAssertEqual(state.hits.map(\.name), ["b.txt"])
        XCTAssertFalse(state.isSearching)
    }

    func testAnAnswerNobodyWaitsForIsDropped() {
        var state = SearchState()
        XCTAssertEqual(state.handle(.char("x")), .run(query: "x", generation: 1, folder: nil))
        // Cleared while it ran: its answer must not bring hits back.
        XCTAssertEqual(state.handle(.backspace), .none)
        XCTAssertFalse(state.isSearching)
        XCTAssertEqual(state.deliver(.success(.init(query: "x", results: [hit("a.txt")])), generation: 1), .none)
        XCTAssertTrue(state.hits.isEmpty)
        XCTAssertNil(state.answered)
        // The next query has a new generation; the old one's late answer still changes nothing.
        XCTAssertEqual(state.handle(.char("y")), .run(query: "y", generation: 3, folder: nil))
        XCTAssertEqual(state.deliver(.success(.init(query: "x", results: [hit("a.txt")])), generation: 1), .none)
        XCTAssertTrue(state.hits.isEmpty)
    }

    func testABadQueryShowsItsMessageAndTheNextKeyTriesAgain() {
        var state = SearchState()
        _ = state.handle(.char("\""))
        XCTAssertEqual(state.deliver(.failure(.local("Unclosed quote")), generation: 1), .none)
        XCTAssertEqual(state.error, "Unclosed quote")
        XCTAssertEqual(state.handle(.char("a")), .run(query: "\"a", generation: 2, folder: nil))
        XCTAssertEqual(state.deliver(.success(.init(query: "\"a", results: [hit("a.txt")])), generation: 2), .none)
        XCTAssertNil(state.error)
    }

    func testArrowsSelectEnterOpensEscCloses() {
        var state = SearchState()
        _ = state.handle(.char("b"))
        _ = state.deliver(.success(.init(query: "b", results: [hit("a.txt"), hit("b.txt"), hit("c.txt")])), generation: 1)
        XCTAssertEqual(state.handle(.down), .none)
        XCTAssertEqual(state.handle(.down), .none)
        XCTAssertEqual(state.handle(.down), .none, "stops at the last")
        XCTAssertEqual(state.selectedHit?.name, "c.txt")
        XCTAssertEqual(state.handle(.up), .none)
        XCTAssertEqual(state.handle(.enter), .open(hit("b.txt")))
        XCTAssertEqual(state.handle(.escape), .close)
        // Letters are the query's, even j and k and n.
        XCTAssertEqual(state.handle(.char("j")), .run(query: "bj", generation: 2, folder: nil))
    }

    func testARefreshKeepsTheSelectedNoteSelected() {
        var state = SearchState()
        _ = state.handle(.char("b"))
        _ = state.deliver(.success(.init(query: "b", results: [hit("a.txt"), hit("b.txt")])), generation: 1)
        _ = state.handle(.down)
        XCTAssertEqual(state.selectedHit?.name, "b.txt")
        // Another member's note came in and ranks first: the index changed, the query runs again.
        XCTAssertEqual(state.indexChanged(), .run(query: "b", generation: 2, folder: nil))
        _ = state.deliver(.success(.init(query: "b", results: [hit("new.txt"), hit("a.txt"), hit("b.txt")])), generation: 2)
        XCTAssertEqual(state.selectedHit?.name, "b.txt")
        XCTAssertEqual(state.hits.count, 3)
    }

    func testThePageKeepsTheSelectionInView() {
        var state = SearchState()
        _ = state.handle(.char("b"))
        _ = state.deliver(.success(.init(query: "b", results: (0..<20).map { hit("\($0).txt") })), generation: 1)
        state.fit(pageSize: 5)
        _ = state.handle(.pageDown)
        _ = state.handle(.pageDown)
        XCTAssertEqual(state.selected, 10)
        XCTAssertTrue((state.offset..<state.offset + 5).contains(10))
        _ = state.handle(.pageUp)
        XCTAssertEqual(state.selected, 5)
        XCTAssertTrue((state.offset..<state.offset + 5).contains(5))
    }

    func testMatchedTextsAreTheLinesMatchesOnceEach() {
        let result = hit("a.txt", line: "Boat hire, boat, ボート", ranges: [0..<4, 11..<15, 17..<20, 40..<44])
        XCTAssertEqual(result.matchedTexts, ["Boat", "ボート"], "case-folded duplicates once; a range past the line is skipped")
    }

    func testTheIndexingFigureGroupsThousands() {
        XCTAssertEqual(IndexingProgress(done: 3200, total: 10000).figure, "Indexing 3,200/10,000")
        XCTAssertEqual(IndexingProgress(done: 7, total: 999).figure, "Indexing 7/999")
    }
}
