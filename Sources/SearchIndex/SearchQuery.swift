import Foundation

/// A parsed search: words, prefixes (`trip*`), phrases (`"boat hire"`) and exclusions (`-word`).
///
/// The user's text never reaches FTS5's MATCH as it is: quotes, parentheses, `NEAR`, `AND`, a
/// `*` or a `-` alone would be syntax there (or an SQL error). Each term is cut into tokens the
/// way the index cuts notes (``SearchText``) and written back as quoted FTS5 strings, so the
/// only syntax in the expression is ours. All terms must match (AND), excluded ones must not.
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
    /// One term of the query.
    public struct Term: Sendable, Hashable {
        /// The term's tokens, folded (lower case, no diacritics); CJK characters one per token.
        public var tokens: [String]
        /// Which tokens are CJK characters (matched as substrings through bigrams).
        var cjk: [Bool]
        /// Which tokens follow the previous one with nothing between (for CJK runs).
        var joined: [Bool]
        /// `trip*`: the last token is a prefix.
        public var isPrefix: Bool
        /// `-word`: notes containing it are left out.
        public var isExcluded: Bool
    }

    /// The text as the user typed it.
    public let text: String
    public let terms: [Term]

    /// Terms that must match.
    public var required: [Term] { terms.filter { !$0.isExcluded } }

    public var description: String { text }

    /// Parses `text`; throws when nothing in it can be searched for.
    public init(_ text: String) throws(SearchQueryError) {
        guard text.utf8.count <= 1000 else { throw .tooLong }
        self.text = text
        var terms: [Term] = []
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            if c.isWhitespace {
                index = text.index(after: index)
                continue
            }
            var excluded = false
            if c == "-" {
                excluded = true
                index = text.index(after: index)
                guard index < text.endIndex else { break }
            }
            var body: Substring
            var prefix = false
            if text[index] == "\"" {
                // A phrase, to the closing quote or (forgiving an unclosed one) to the end.
                let start = text.index(after: index)
                let close = text[start...].firstIndex(of: "\"") ?? text.endIndex
                body = text[start..<close]
                index = close < text.endIndex ? text.index(after: close) : close
                if index < text.endIndex, text[index] == "*" {
                    prefix = true
                    index = text.index(after: index)
                }
            } else {
                let end = text[index...].firstIndex(where: { $0.isWhitespace }) ?? text.endIndex
                body = text[index..<end]
                index = end
                if body.hasSuffix("*") {
                    prefix = true
                    while body.hasSuffix("*") { body = body.dropLast() }
                }
            }
            let tokens = SearchText.tokens(body)
            guard !tokens.isEmpty else { continue }
            var joined: [Bool] = [false]
            for i in tokens.indices.dropFirst() { joined.append(tokens[i - 1].range.upperBound == tokens[i].range.lowerBound) }
            // A prefix means something only after a word: `東京*` is already a substring search.
            let lastIsWord = tokens.last.map { !$0.isCJK } ?? false
            terms.append(Term(tokens: tokens.map(\.folded), cjk: tokens.map(\.isCJK), joined: joined,
                              isPrefix: prefix && lastIsWord, isExcluded: excluded))
        }
        guard !terms.isEmpty else { throw .empty }
        guard terms.contains(where: { !$0.isExcluded }) else { throw .onlyExclusions }
        guard terms.count <= 32 else { throw .tooManyTerms }
        self.terms = terms
    }

    /// The FTS5 MATCH expression: `(a) AND (b) NOT (c)`, every token quoted.
    var matchExpression: String {
        let positive = required.map { "(" + Self.expression($0) + ")" }.joined(separator: " AND ")
        let negative = terms.filter(\.isExcluded).map { " NOT (" + Self.expression($0) + ")" }.joined()
        return "(" + positive + ")" + negative
    }

    /// One term: its word tokens as a phrase over the name and the words column, each run of
    /// CJK characters as a phrase of bigrams over the `cjk` column (or a prefix, for one).
    static func expression(_ term: Term) -> String {
        var parts: [String] = []
        var words: [String] = []
        var run: [String] = []
        func closeWords(prefix: Bool) {
            guard !words.isEmpty else { return }
            parts.append("{name words} : " + quoted(words.joined(separator: " ")) + (prefix ? " *" : ""))
            words.removeAll()
        }
        func closeRun() {
            guard !run.isEmpty else { return }
            if run.count == 1 {
                parts.append("cjk : " + quoted(run[0]) + " *")
            } else {
                let pairs = (0..<(run.count - 1)).map { run[$0] + run[$0 + 1] }
                parts.append("cjk : " + quoted(pairs.joined(separator: " ")))
            }
            run.removeAll()
        }
        for i in term.tokens.indices {
            if term.cjk[i] {
                closeWords(prefix: false)
                if !run.isEmpty && !term.joined[i] { closeRun() }
                run.append(term.tokens[i])
            } else {
                closeRun()
                words.append(term.tokens[i])
            }
        }
        closeRun()
        closeWords(prefix: term.isPrefix)
        return parts.joined(separator: " AND ")
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Why a query cannot be searched for; `description` is the message for the user.
public enum SearchQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing searchable: empty, or only punctuation.
    case empty
    /// Only `-word`s: there is nothing to find, only things to leave out.
    case onlyExclusions
    case tooManyTerms
    case tooLong

    public var description: String {
        switch self {
        case .empty: return "nothing to search for: type a word, a prefix (trip*) or a \"phrase\""
        case .onlyExclusions: return "a search needs a word to find, not only words to leave out (-word)"
        case .tooManyTerms: return "too many words in one search (at most 32)"
        case .tooLong: return "the search is too long (at most 1000 bytes)"
        }
    }
}
