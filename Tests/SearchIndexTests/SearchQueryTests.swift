import XCTest
@testable import SearchIndex

/// The query language: what the user types becomes a safe FTS5 expression.
final class SearchQueryTests: XCTestCase {
    func testWordsPrefixesPhrasesAndExclusions() throws {
        let query = try SearchQuery(#"Trip* "Boat  hire" -rain Été"#)
        XCTAssertEqual(query.terms.map(\.tokens), [["trip"], ["boat", "hire"], ["rain"], ["ete"]])
        XCTAssertEqual(query.terms.map(\.isPrefix), [true, false, false, false])
        XCTAssertEqual(query.terms.map(\.isExcluded), [false, false, true, false])
        XCTAssertEqual(query.matchExpression,
                       #"(({name words} : "trip" *) AND ({name words} : "boat hire") AND ({name words} : "ete")) NOT ({name words} : "rain")"#)
    }

    func testCJKBecomesBigramPhrases() throws {
        XCTAssertEqual(try SearchQuery("東京都").matchExpression, #"((cjk : "東京 京都"))"#)
        XCTAssertEqual(try SearchQuery("京").matchExpression, #"((cjk : "京" *))"#)
        XCTAssertEqual(try SearchQuery("iPhone用").matchExpression, #"(({name words} : "iphone" AND cjk : "用" *))"#)
    }

    func testHostileTextNeverReachesMatchAsSyntax() throws {
        for text in [#"NEAR(a b)"#, #"a" OR "b"#, "((( a", "a AND", "x:y", "col : value", #"""a"""#, "^start", "a + b", "{name}: x", "'; DROP TABLE note; --"] {
            let query = try SearchQuery(text)
            XCTAssertFalse(query.terms.isEmpty, text)
            for term in query.terms { XCTAssertTrue(term.tokens.allSatisfy { !$0.contains("\"") && !$0.contains("(") }, text) }
        }
    }

    func testNothingToSearchIsAClearError() {
        for (text, error) in [("", SearchQueryError.empty), ("   ", .empty), ("*", .empty), ("-", .empty), (#"" ""#, .empty),
                              ("()", .empty), ("-rain", .onlyExclusions), (#"-"a b" -c"#, .onlyExclusions)] {
            XCTAssertThrowsError(try SearchQuery(text), text) { XCTAssertEqual($0 as? SearchQueryError, error, text) }
        }
        XCTAssertThrowsError(try SearchQuery(String(repeating: "a ", count: 600))) { XCTAssertEqual($0 as? SearchQueryError, .tooLong) }
    }

    func testTokensCarryCharacterOffsets() {
        let tokens = SearchText.tokens("Café, 東京! e\u{301}t")
        XCTAssertEqual(tokens.map(\.folded), ["cafe", "東", "京", "et"])
        XCTAssertEqual(tokens.map(\.range), [0..<4, 6..<7, 7..<8, 10..<12])
    }
}
