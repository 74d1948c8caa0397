import Foundation
import GRDB

/// Searching: FTS5 ranks (bm25, title words weigh more), then the matching line is found in
/// Swift for the few hits returned, so ranking never reads a note's text.
extension SearchIndex {
    /// Parses `text` and searches; a query that cannot be searched throws `.query`.
    public func search(_ text: String, limit: Int = 100, under folder: String? = nil) throws(SearchIndexError) -> [SearchHit] {
        let query: SearchQuery
        do { query = try SearchQuery(text) } catch { throw .query(error) }
        return try search(query, limit: limit, under: folder)
    }

    /// Past this many matches a query's notes come newest first, not by bm25 (``search(_:limit:under:mostRanked:)``).
    public static let mostRankedMatches = 20_000

    /// The best `limit` notes for `query`: by bm25, newest first on ties.
    ///
    /// Ranked and cut to `limit` before any text is joined: a common word matches every note,
    /// and sorting their texts along with their scores cost tens of milliseconds.
    /// `folder` (a club path) keeps the notes at any depth under it.
    ///
    /// A query matching more than `mostRanked` notes (a word nearly every note has) is answered
    /// newest first instead: scoring each of 100,000 matches took 150 ms of SQLite's time alone,
    /// and among that many a score tells little a date does not. The matches are counted only
    /// up to the cap. Past it, the newest notes are walked by their date and each is asked
    /// whether it matches (``newestMatching(_:_:prefix:limit:)``): in a club where so many notes
    /// match, the first `limit` are among the newest few hundred. Sorting every match by its
    /// date instead took 140 ms at 100,000 notes, and was Ctrl-F's slowest answer.
    public func search(_ query: SearchQuery, limit: Int = 100, under folder: String? = nil,
                       mostRanked: Int = SearchIndex.mostRankedMatches) throws(SearchIndexError) -> [SearchHit] {
        let expression = query.matchExpression
        let prefix = folder.map { $0.lowercased() + "/" } ?? ""
        let limit = max(1, limit)
        let rows = try reading { db in
            let matches = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM (SELECT rowid FROM note_fts WHERE note_fts MATCH ? LIMIT ?)"),
                                           arguments: [expression, mostRanked + 1]) ?? 0
            if matches > mostRanked, let newest = try Self.newestMatching(db, expression, prefix: prefix, limit: limit) {
                return newest
            }
            let score = matches > mostRanked ? "0.0" : "bm25(note_fts, 4.0, 1.0, 1.0)"
            return try Row.fetchAll(db, sql: """
                SELECT n.path, n.name, n.rev, n.modified, n.modified_by, b.body, r.score
                FROM (SELECT f.rowid AS id, \(score) AS score, m.modified AS modified
                      FROM note_fts f JOIN note m ON m.id = f.rowid
                      WHERE note_fts MATCH ? AND substr(m.path_lower, 1, length(?)) = ?
                      ORDER BY score, m.modified DESC LIMIT ?) r
                JOIN note n ON n.id = r.id JOIN note_body b ON b.id = r.id
                ORDER BY r.score, r.modified DESC
                """, arguments: [expression, prefix, prefix, limit])
        }
        return rows.map { row in
            let name: String = row["name"]
            let body: String = row["body"]
            let line = Self.firstMatchingLine(in: body, for: query)
            let titleTokens = SearchText.tokens(IndexedNote.title(of: name))
            let inTitle = Self.matches(titleTokens, query: query)
            let kind: SearchMatchKind = line == nil ? .filename : (inTitle ? .both : .content)
            var hit = SearchHit(path: row["path"], name: name, rev: row["rev"],
                                modified: (row["modified"] as Double?).map { Date(timeIntervalSince1970: $0) },
                                modifiedBy: row["modified_by"], match: kind, line: line, score: row["score"])
            if inTitle {
                hit.titleRanges = query.required.flatMap { Self.occurrences(of: $0, in: titleTokens) }.sorted { $0.lowerBound < $1.lowerBound }
            }
            return hit
        }
    }

    /// How many of the newest notes ``newestMatching(_:_:prefix:limit:)`` asks, for each hit wanted.
    static let newestWalked = 8

    /// The `limit` newest notes under `prefix` that match `expression`, found by walking the
    /// notes newest first (the `note_modified` index, which SQLite takes for the order; an index
    /// file that could not be given it sorts the notes instead) and asking FTS5 about each one by its
    /// rowid; nil once `limit` × ``newestWalked`` notes were asked without finding `limit` (the
    /// matches are not among the newest: the caller sorts them all by date instead).
    ///
    /// Asked of a query with more matches than the ranking cap only. Each question costs about
    /// 50–150 µs (FTS5 reads the terms' lists up to the rowid), so a walk that finds its hits
    /// costs a few milliseconds and one that gives up at most a few tens.
    static func newestMatching(_ db: Database, _ expression: String, prefix: String, limit: Int) throws -> [Row]? {
        let asks = try db.cachedStatement(sql: "SELECT 1 FROM note_fts WHERE note_fts MATCH ? AND rowid = ?")
        let walk = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT id, path_lower FROM note ORDER BY modified DESC LIMIT ?
            """), arguments: [limit * newestWalked])
        var found: [Int64] = []
        while found.count < limit, let note = try walk.next() {
            let path: String = note["path_lower"]
            // Bytes, as the ranked query's `substr(…) = ?` compares them.
            guard path.utf8.starts(with: prefix.utf8) else { continue }
            let id: Int64 = note["id"]
            if try Int.fetchOne(asks, arguments: [expression, id]) != nil { found.append(id) }
        }
        guard found.count == limit else { return nil }
        // The rows as the ranked query gives them, in the walk's order (newest first).
        let rows = try Row.fetchAll(db, sql: """
            SELECT n.id, n.path, n.name, n.rev, n.modified, n.modified_by, b.body, 0.0 AS score
            FROM note n JOIN note_body b ON b.id = n.id WHERE n.id IN (\(found.map(String.init).joined(separator: ",")))
            """)
        let order = Dictionary(uniqueKeysWithValues: found.enumerated().map { ($1, $0) })
        return rows.sorted { order[$0["id"] as Int64] ?? 0 < order[$1["id"] as Int64] ?? 0 }
    }

    /// The first line of `text` where a required term matches, with every match in that line.
    ///
    /// Works on the UTF-8 bytes: a note is split at newline bytes, and an ASCII line is skipped by
    /// a byte scan unless it holds the first word of some term (in any case); only the lines left
    /// are made Strings and cut into tokens. Grapheme-by-grapheme splitting of every hit's whole
    /// text cost more than the FTS5 query itself.
    static func firstMatchingLine(in text: String, for query: SearchQuery) -> SearchLine? {
        let required = query.required
        let probes: [[UInt8]] = required.compactMap { term in
            term.tokens.first.flatMap { $0.utf8.allSatisfy { $0 < 0x80 } ? Array($0.utf8) : nil }
        }
        let bytes = Array(text.utf8)
        var lineStart = 0
        var index = 0
        while lineStart <= bytes.count {
            var lineEnd = lineStart
            var ascii = true
            while lineEnd < bytes.count && bytes[lineEnd] != 0x0A {
                if bytes[lineEnd] >= 0x80 { ascii = false }
                lineEnd += 1
            }
            defer {
                lineStart = lineEnd + 1
                index += 1
            }
            if ascii, !probes.contains(where: { containsASCII(bytes, lineStart..<lineEnd, lowercased: $0) }) { continue }
            var end = lineEnd
            if end > lineStart && bytes[end - 1] == 0x0D { end -= 1 }
            let line = String(decoding: bytes[lineStart..<end], as: UTF8.self)
            // A long ASCII line is cut into tokens up to a little past its first probe's match
            // (at a space, which always ends a token): 50 hits' kilobyte lines, whole, were most
            // of a search's time.
            var ranges: [Range<Int>] = []
            if ascii, end - lineStart > Self.longLine,
               let first = probes.compactMap({ firstASCII(bytes, lineStart..<end, lowercased: $0) }).min() {
                var windowEnd = min(end, first + Self.longLine / 2)
                while windowEnd < end, bytes[windowEnd] != UInt8(ascii: " "), bytes[windowEnd] != UInt8(ascii: "\t") { windowEnd += 1 }
                let tokens = SearchText.tokens(String(decoding: bytes[lineStart..<windowEnd], as: UTF8.self))
                for term in required { ranges += occurrences(of: term, in: tokens) }
            }
            if ranges.isEmpty {
                let tokens = SearchText.tokens(line)
                for term in required { ranges += occurrences(of: term, in: tokens) }
            }
            guard !ranges.isEmpty else { continue }
            ranges.sort { $0.lowerBound < $1.lowerBound }
            return SearchLine(text: line, index: index, column: ranges[0].lowerBound, ranges: ranges)
        }
        return nil
    }

    /// Past this many bytes an ASCII line's matches are looked for near its first one only.
    static let longLine = 512

    /// Whether `bytes[range]` holds `needle` (lower-case ASCII letters and digits) in any case.
    static func containsASCII(_ bytes: [UInt8], _ range: Range<Int>, lowercased needle: [UInt8]) -> Bool {
        firstASCII(bytes, range, lowercased: needle) != nil
    }

    /// Where `needle` (lower-case ASCII letters and digits) first ends in `bytes[range]`, in any case.
    static func firstASCII(_ bytes: [UInt8], _ range: Range<Int>, lowercased needle: [UInt8]) -> Int? {
        guard !needle.isEmpty else { return range.lowerBound }
        guard range.count >= needle.count else { return nil }
        let first = needle[0]
        var start = range.lowerBound
        let last = range.upperBound - needle.count
        while start <= last {
            if bytes[start] | 0x20 == first {
                var k = 1
                while k < needle.count && bytes[start + k] | 0x20 == needle[k] { k += 1 }
                if k == needle.count { return start + k }
            }
            start += 1
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
