import Foundation

/// How text is cut into searchable tokens, the same way for notes, queries and matching lines.
///
/// FTS5's `unicode61` tokenizer keeps a run of CJK characters as one token (there are no
/// spaces between Chinese or Japanese words), so a word inside such a run could never be found.
/// The index therefore keeps two views of a note: its text with CJK characters blanked out, which
/// `unicode61` (case folding, `remove_diacritics 2`) cuts into words, and the CJK runs as
/// overlapping bigrams ("東京都" → "東京 京都 都"), the scheme Lucene's CJK analyzer uses. A CJK
/// query of any length then becomes a phrase of bigrams (or, for one character, a prefix), and
/// no trigram table is needed: trigrams cannot find the many two-character words.
///
/// This Swift side mirrors `unicode61` closely enough to find the matching line of a hit and its
/// match ranges: letters, numbers and marks make words; everything else separates them.
enum SearchText {
    /// One token of a line: its folded text and where it is, in `Character` offsets.
    struct Token: Equatable {
        var folded: String
        var range: Range<Int>
        /// A CJK character: a token of its own, adjacent to its neighbours.
        var isCJK: Bool
    }

    /// Whether `scalar` is written without spaces between words (Han, kana, Hangul).
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x11FF, 0x2E80...0x2FDF, 0x3040...0x30FF, 0x3130...0x318F, 0x31F0...0x31FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFF66...0xFF9F,
             0x20000...0x2FFFF:
            return true
        default:
            return false
        }
    }

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let v = scalar.value
            return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A)
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark, .privateUse:
            return true
        default:
            return false
        }
    }

    /// Lower case without diacritics ("Été" → "ete"), as `unicode61 remove_diacritics 2` folds.
    static func fold<S: StringProtocol>(_ text: S) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        var out = String.UnicodeScalarView()
        for scalar in text.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// The tokens of `line`, with `Character` offsets (the editor's unit).
    static func tokens<S: StringProtocol>(_ line: S) -> [Token] {
        var tokens: [Token] = []
        var wordStart: String.Index?
        var wordOffset = 0
        var offset = 0
        var index = line.startIndex
        func closeWord(at end: String.Index, offset: Int) {
            guard let start = wordStart else { return }
            tokens.append(Token(folded: fold(line[start..<end]), range: wordOffset..<offset, isCJK: false))
            wordStart = nil
        }
        while index < line.endIndex {
            let next = line.index(after: index)
            let first = line.unicodeScalars[index]
            if isCJK(first) {
                closeWord(at: index, offset: offset)
                // Unfolded: canonical decomposition would split a Hangul syllable into jamo.
                tokens.append(Token(folded: String(line[index..<next]), range: offset..<(offset + 1), isCJK: true))
            } else if isWord(first) {
                if wordStart == nil {
                    wordStart = index
                    wordOffset = offset
                }
            } else {
                closeWord(at: index, offset: offset)
            }
            index = next
            offset += 1
        }
        closeWord(at: line.endIndex, offset: offset)
        return tokens
    }

    /// The two texts the FTS table indexes for `text`: the text with CJK characters blanked (for
    /// `unicode61`), and its CJK runs as bigrams. Text without CJK is returned as it is, at no cost.
    static func indexForms(_ text: String) -> (words: String, cjk: String) {
        guard text.unicodeScalars.contains(where: isCJK) else { return (text, "") }
        var words = String.UnicodeScalarView()
        var cjk = ""
        var run: [Unicode.Scalar] = []
        func closeRun() {
            guard !run.isEmpty else { return }
            cjk += bigrams(run) + " "
            run.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            if isCJK(scalar) {
                run.append(scalar)
                words.append(" ")
            } else {
                closeRun()
                words.append(scalar)
            }
        }
        closeRun()
        return (String(words), cjk)
    }

    /// "東京都" → "東京 京都 都": every adjacent pair, then the last character alone, so that a
    /// one-character query (a prefix) finds a character at the end of a run too.
    static func bigrams(_ run: [Unicode.Scalar]) -> String {
        var out = String.UnicodeScalarView()
        for i in run.indices {
            if i > 0 { out.append(" ") }
            out.append(run[i])
            if i + 1 < run.count { out.append(run[i + 1]) }
        }
        return String(out)
    }
}
