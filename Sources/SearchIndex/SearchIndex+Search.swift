import Foundation
import GRDB

/// Searching: FTS5 ranks (bm25, title words weigh more), then the matching line is found in
/// Swift for the few hits returned, so ranking never reads a note's text.
extension SearchIndex {
    /// Parses `text` and searches; a query that cannot be searched throws `.query`.
    public func search(_ text: String, limit: Int = 100) throws(SearchIndexError) -> [SearchHit] {
        let query: SearchQuery
        do { query = try SearchQuery(text) } catch { throw .query(error) }
        return try search(query, limit: limit)
    }

    /// The best `limit` notes for `query`: by bm25, newest first on ties.
    public func search(_ query: SearchQuery, limit: Int = 100) throws(SearchIndexError) -> [SearchHit] {
        let expression = query.matchExpression
        let rows = try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT n.path, n.name, n.rev, n.modified, n.modified_by, b.body, r.score
                FROM (SELECT rowid AS id, bm25(note_fts, 4.0, 1.0, 1.0) AS score FROM note_fts WHERE note_fts MATCH ?) r
                JOIN note n ON n.id = r.id JOIN note_body b ON b.id = r.id
                ORDER BY r.score, n.modified DESC LIMIT ?
                """, arguments: [expression, max(1, limit)])
        }
        return rows.map { row in
            let name: String = row["name"]
            let body: String = row["body"]
            let line = Self.firstMatchingLine(in: body, for: query)
            let inTitle = Self.matches(SearchText.tokens(IndexedNote.title(of: name)), query: query)
            let kind: SearchMatchKind = line == nil ? .filename : (inTitle ? .both : .content)
            return SearchHit(path: row["path"], name: name, rev: row["rev"],
                             modified: (row["modified"] as Double?).map { Date(timeIntervalSince1970: $0) },
                             modifiedBy: row["modified_by"], match: kind, line: line, score: row["score"])
        }
    }

    /// The first line of `text` where a required term matches, with every match in that line.
    static func firstMatchingLine(in text: String, for query: SearchQuery) -> SearchLine? {
        let required = query.required
        var index = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            defer { index += 1 }
            let tokens = SearchText.tokens(line)
            var ranges: [Range<Int>] = []
            for term in required { ranges += occurrences(of: term, in: tokens) }
            guard !ranges.isEmpty else { continue }
            ranges.sort { $0.lowerBound < $1.lowerBound }
            var text = String(line)
            if text.hasSuffix("\r") { text.removeLast() }
            return SearchLine(text: text, index: index, column: ranges[0].lowerBound, ranges: ranges)
        }
        return nil
    }

    /// Whether every required term occurs in `tokens` (for the title).
    static func matches(_ tokens: [SearchText.Token], query: SearchQuery) -> Bool {
        !tokens.isEmpty && query.required.allSatisfy { !occurrences(of: $0, in: tokens).isEmpty }
    }

    /// Where `term`'s tokens occur one after another in `tokens` (CJK characters adjacent).
    static func occurrences(of term: SearchQuery.Term, in tokens: [SearchText.Token]) -> [Range<Int>] {
        let count = term.tokens.count
        guard count > 0, tokens.count >= count else { return [] }
        var found: [Range<Int>] = []
        var start = 0
        while start + count <= tokens.count {
            var ok = true
            for k in 0..<count {
                let token = tokens[start + k]
                let wanted = term.tokens[k]
                let isLast = k == count - 1
                if token.isCJK != term.cjk[k] { ok = false; break }
                if term.cjk[k] && k > 0 && term.joined[k] && tokens[start + k - 1].range.upperBound != token.range.lowerBound { ok = false; break }
                if isLast && term.isPrefix ? !token.folded.hasPrefix(wanted) : token.folded != wanted { ok = false; break }
            }
            if ok {
                found.append(tokens[start].range.lowerBound..<tokens[start + count - 1].range.upperBound)
                start += count
            } else {
                start += 1
            }
        }
        return found
    }
}
