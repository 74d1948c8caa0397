import Foundation

/// Matching one note's text against a query without the index: what a server answers with while
/// its index is still being built (a folder it has never seen), as ripgrep answers, by reading
/// the files.
///
/// The rule is the index's own, applied to the columns the index would write for the note
/// (``ftsColumns(name:body:)``): every required term's parts are in the title's words or the
/// text's words (a phrase of words, adjacent once CJK characters are blanked out, across lines),
/// or in the CJK bigrams; no excluded term is. The hit carries the same match kind, matching line
/// and title ranges an index search gives; only its score is not a bm25 (0: a scan does not rank).
///
/// Most notes do not match most queries, so a note is first tried as bytes: an all-ASCII note
/// that lacks, in any case, the first word of a required term (and whose title does not have
/// it) is left out without being cut into tokens. Only the notes left are made Strings.
extension SearchIndex {
    /// The hit for a note named `name` whose text is `text` (UTF-8), or nil when it does not
    /// match. `path`, `rev` and `modified` are the caller's, carried into the hit.
    public static func scanMatch(_ text: UnsafeBufferPointer<UInt8>, path: String, name: String, rev: String?, modified: Date?,
                                 query: SearchQuery) -> SearchHit? {
        let title = IndexedNote.title(of: name)
        let required = query.required
        if isASCII(text) {
            // The title's words are made only for a term the text lacks and the title's bytes
            // may hold: made for every note, they were a twelfth of a scan of 100,000 notes.
            var titleWords: Set<String>?
            let titleBytes = Array(title.utf8)
            let asciiTitle = titleBytes.withUnsafeBufferPointer(isASCII)
            for term in required {
                guard let first = term.tokens.first, !term.cjk[0], first.utf8.allSatisfy({ $0 < 0x80 }) else { continue }
                let needle = Array(first.utf8)
                if containsASCII(text, lowercased: needle) { continue }
                // An ASCII title whose bytes lack the word in any case has no word that is it or
                // starts with it.
                if asciiTitle, !titleBytes.withUnsafeBufferPointer({ containsASCII($0, lowercased: needle) }) { return nil }
                let words = titleWords ?? Set(SearchText.tokens(title).map(\.folded))
                titleWords = words
                let found = term.tokens.count == 1 && term.isPrefix ? words.contains { $0.hasPrefix(first) } : words.contains(first)
                if !found { return nil }
            }
        }
        let string = String(decoding: text, as: UTF8.self)
        let columns = Columns(ftsColumns(name: name, body: string))
        guard required.allSatisfy(columns.match), !query.terms.contains(where: { $0.isExcluded && columns.match($0) }) else { return nil }
        let titleTokens = SearchText.tokens(title)
        let line = firstMatchingLine(in: string, for: query)
        let inTitle = matches(titleTokens, query: query)
        let kind: SearchMatchKind = line == nil ? .filename : (inTitle ? .both : .content)
        var hit = SearchHit(path: path, name: name, rev: rev, modified: modified, modifiedBy: nil, match: kind, line: line, score: 0)
        if inTitle {
            hit.titleRanges = required.flatMap { occurrences(of: $0, in: titleTokens) }.sorted { $0.lowerBound < $1.lowerBound }
        }
        return hit
    }

    /// A note's FTS columns as tokens, matched as FTS5 matches ``SearchQuery/matchExpression``.
    private struct Columns {
        var name: [String]
        var words: [String]
        var cjk: [String]

        init(_ columns: (name: String, words: String, cjk: String)) {
            name = SearchText.tokens(columns.name).map(\.folded)
            words = SearchText.tokens(columns.words).map(\.folded)
            cjk = columns.cjk.split(separator: " ").map(String.init)
        }

        /// Every part of `term` (as ``SearchQuery/expression(_:)`` cuts it) found.
        func match(_ term: SearchQuery.Term) -> Bool {
            var wordRun: [String] = []
            var cjkRun: [String] = []
            func wordsFound(prefix: Bool) -> Bool {
                defer { wordRun.removeAll() }
                return wordRun.isEmpty || Self.phrase(wordRun, prefix: prefix, in: name) || Self.phrase(wordRun, prefix: prefix, in: words)
            }
            func cjkFound() -> Bool {
                defer { cjkRun.removeAll() }
                if cjkRun.isEmpty { return true }
                if cjkRun.count == 1 { return cjk.contains { $0.hasPrefix(cjkRun[0]) } }
                return Self.phrase((0..<(cjkRun.count - 1)).map { cjkRun[$0] + cjkRun[$0 + 1] }, prefix: false, in: cjk)
            }
            for i in term.tokens.indices {
                if term.cjk[i] {
                    guard wordsFound(prefix: false) else { return false }
                    if !cjkRun.isEmpty && !term.joined[i] { guard cjkFound() else { return false } }
                    cjkRun.append(term.tokens[i])
                } else {
                    guard cjkFound() else { return false }
                    wordRun.append(term.tokens[i])
                }
            }
            return cjkFound() && wordsFound(prefix: term.isPrefix)
        }

        /// `wanted` one after another in `tokens`, the last a prefix when `prefix`.
        static func phrase(_ wanted: [String], prefix: Bool, in tokens: [String]) -> Bool {
            guard !wanted.isEmpty, tokens.count >= wanted.count else { return false }
            for start in 0...(tokens.count - wanted.count) {
                var k = 0
                while k < wanted.count {
                    let token = tokens[start + k]
                    let ok = k == wanted.count - 1 && prefix ? token.hasPrefix(wanted[k]) : token == wanted[k]
                    if !ok { break }
                    k += 1
                }
                if k == wanted.count { return true }
            }
            return false
        }
    }

    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Eight bytes at a time: a note is read whole for this, and most are ASCII.
        var i = 0
        let count = bytes.count
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        while i + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < count {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// Whether `bytes` holds `needle` (lower-case ASCII letters and digits) in any case.
    static func containsASCII(_ bytes: UnsafeBufferPointer<UInt8>, lowercased needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard bytes.count >= needle.count, let base = bytes.baseAddress else { return false }
        let upper = first >= 0x61 && first <= 0x7A ? first - 0x20 : first
        var start = 0
        let last = bytes.count - needle.count
        while start <= last {
            // memchr finds the next candidate for either case of the first letter.
            let lowerHit = memchr(base + start, Int32(first), last - start + 1).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
            let upperHit = upper == first ? nil
                : memchr(base + start, Int32(upper), (lowerHit ?? (last + 1)) - start).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
            guard let at = upperHit ?? lowerHit else { return false }
            var k = 1
            while k < needle.count && base[at + k] | 0x20 == needle[k] { k += 1 }
            if k == needle.count { return true }
            start = at + 1
        }
        return false
    }
}
