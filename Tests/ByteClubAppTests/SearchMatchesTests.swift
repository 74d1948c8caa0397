import ByteClubApp
import TerminalUI
import XCTest

/// `n`/`N` in a note opened from the search results: the matches are found as the index finds
/// them (case and accents ignored, CJK too), and stepping wraps at both ends.
final class SearchMatchesTests: XCTestCase {
    private let body = """
    Day 1: Lyon
    We need a boat. BOAT hire is cheap at the lake; bóat too
    ボートに乗る
    nothing here
    last boat
    """

    private func position(_ match: SearchMatches.Match?) -> String? { match.map { "\($0.position)" } }

    func testMatchesIgnoreCaseAndAccentsAndCountCharacters() {
        let matches = SearchMatches(texts: ["boat"], in: body)
        XCTAssertEqual(matches.matches.map { "\($0.position)" }, ["1:10", "1:16", "1:48", "4:5"])
        XCTAssertEqual(matches.matches.map(\.length), [4, 4, 4, 4])
        let cjk = SearchMatches(texts: ["ボート"], in: body)
        XCTAssertEqual(cjk.matches.map { "\($0.position)" }, ["2:0"], "offsets count characters, not bytes")
    }

    func testNextAndPreviousWrapAround() {
        var matches = SearchMatches(texts: ["boat"], in: body)
        XCTAssertEqual(position(matches.start(atLine: 1, column: 16)), "1:16", "starts on the index's hit")
        XCTAssertEqual(matches.summary, "match 2 of 4")
        XCTAssertEqual(position(matches.next()), "1:48")
        XCTAssertEqual(position(matches.next()), "4:5")
        XCTAssertEqual(position(matches.next()), "1:10", "after the last, the first")
        XCTAssertEqual(position(matches.previous()), "4:5", "before the first, the last")
        XCTAssertEqual(position(matches.previous()), "1:48")
    }

    func testAHitWhoseLineMovedStartsAtTheNextMatch() {
        var matches = SearchMatches(texts: ["boat"], in: body)
        // The note changed since it was indexed: line 3 has no match any more.
        XCTAssertEqual(position(matches.start(atLine: 3, column: 0)), "4:5")
        XCTAssertEqual(position(matches.start(atLine: 9, column: 0)), "1:10", "past the end: the first")
        XCTAssertEqual(position(matches.start(atLine: nil, column: 0)), "1:10", "a title hit: the first")
    }

    func testSeveralTextsMergeInTextOrderWithoutOverlaps() {
        let matches = SearchMatches(texts: ["hire", "boat hire", "lake"], in: body)
        XCTAssertEqual(matches.matches.map { "\($0.position)" }, ["1:16", "1:42"], "boat hire swallows the hire inside it")
        XCTAssertEqual(matches.matches.first?.length, 9)
    }

    func testNoMatchLeavesTheCursorAlone() {
        var matches = SearchMatches(texts: ["zebra"], in: body)
        XCTAssertNil(matches.start(atLine: 0, column: 0))
        XCTAssertNil(matches.next())
        XCTAssertNil(matches.previous())
        XCTAssertEqual(matches.summary, "no match in the text")
    }
}
