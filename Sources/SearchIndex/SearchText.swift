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
        isCJK(value: scalar.value)
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
    ///
    /// Every note passes through here on each index write (and again when its row is replaced), so
    /// it works on the UTF-8 bytes in one pass, with no `Character` or `String` per scalar: in a
    /// debug build the scalar-by-scalar version took a quarter of the app's CPU while indexing.
    static func indexForms(_ text: String) -> (words: String, cjk: String) {
        var text = text
        let forms: (words: [UInt8], cjk: [UInt8])? = text.withUTF8 { bytes in
            guard mayHoldCJK(bytes) else { return nil }
            return splitCJK(bytes)
        }
        guard let forms else { return (text, "") }
        return (String(decoding: forms.words, as: UTF8.self), String(decoding: forms.cjk, as: UTF8.self))
    }

    /// Whether `value` is a CJK scalar: ``isCJK(_:)`` on a bare scalar value.
    @inline(__always)
    static func isCJK(value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x11FF, 0x2E80...0x2FDF, 0x3040...0x30FF, 0x3130...0x318F, 0x31F0...0x31FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFF66...0xFF9F,
             0x20000...0x2FFFF:
            return true
        default:
            return false
        }
    }

    /// False when `bytes` cannot hold a CJK scalar: every CJK scalar is ≥ U+1100, whose UTF-8
    /// starts with a byte ≥ 0xE1. Eight bytes at a time while they are ASCII (most notes).
    static func mayHoldCJK(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var i = 0
        let raw = UnsafeRawPointer(base)
        while i + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                for j in i..<(i + 8) where base[j] >= 0xE1 { return true }
            }
            i += 8
        }
        while i < count {
            if base[i] >= 0xE1 { return true }
            i += 1
        }
        return false
    }

    /// The bytes of both forms of valid UTF-8 `bytes`: a space in the words for each CJK scalar,
    /// and each run of CJK scalars as bigrams (see ``bigrams(_:)``), runs separated by a space.
    static func splitCJK(_ bytes: UnsafeBufferPointer<UInt8>) -> (words: [UInt8], cjk: [UInt8]) {
        var words: [UInt8] = []
        words.reserveCapacity(bytes.count)
        var cjk: [UInt8] = []
        // The current run, as (start, length) of each scalar's bytes in `bytes`.
        var run: [(start: Int, length: Int)] = []
        func closeRun() {
            guard !run.isEmpty else { return }
            for k in run.indices {
                if k > 0 { cjk.append(0x20) }
                cjk.append(contentsOf: bytes[run[k].start..<(run[k].start + run[k].length)])
                if k + 1 < run.count { cjk.append(contentsOf: bytes[run[k + 1].start..<(run[k + 1].start + run[k + 1].length)]) }
            }
            cjk.append(0x20)
            run.removeAll(keepingCapacity: true)
        }
        let count = bytes.count
        var i = 0
        while i < count {
            let lead = bytes[i]
            let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            let end = min(i + length, count)
            var value: UInt32 = 0
            if length == 3, end == i + 3 {
                value = UInt32(lead & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
            } else if length == 4, end == i + 4 {
                value = UInt32(lead & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12
                    | UInt32(bytes[i + 2] & 0x3F) << 6 | UInt32(bytes[i + 3] & 0x3F)
            }
            if length >= 3, isCJK(value: value) {
                run.append((i, end - i))
                words.append(0x20)
            } else {
                closeRun()
                words.append(contentsOf: bytes[i..<end])
            }
            i = end
        }
        closeRun()
        return (words, cjk)
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
