import Foundation

/// Finding a text in a line the way the club search matches: case and accents ignored ("cafe"
/// finds "Café"), offsets and lengths in `Character`s.
///
/// The note editor's find and the app's search hits both use it, so a word found by the club
/// search is found again by find in the note.
public enum TextSearch {
    /// Where `needle` occurs in `line`, in order, not overlapping: each a `Character` offset
    /// and a length (a match may be longer or shorter than the needle: "ß" and "ss").
    public static func occurrences<S: StringProtocol>(of needle: String, in line: S) -> [(offset: Int, length: Int)] {
        guard !needle.isEmpty, !line.isEmpty else { return [] }
        if let found = asciiOccurrences(of: needle, in: line) { return found }
        let line = String(line)
        var result: [(offset: Int, length: Int)] = []
        var from = line.startIndex
        var offset = 0  // `Character`s up to `from`
        while from < line.endIndex,
              let range = line.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive], range: from..<line.endIndex) {
            offset += line.distance(from: from, to: range.lowerBound)
            let length = line.distance(from: range.lowerBound, to: range.upperBound)
            result.append((offset, length))
            guard length > 0 else { break }
            offset += length
            from = range.upperBound
        }
        return result
    }

    /// The common case without Foundation: an ASCII line (no accents to fold) and an ASCII
    /// needle compare byte by byte, lowercased; `nil` when either is not ASCII.
    private static func asciiOccurrences<S: StringProtocol>(of needle: String, in line: S) -> [(offset: Int, length: Int)]? {
        let pattern = Array(needle.utf8)
        guard pattern.allSatisfy({ $0 < 0x80 }) else { return nil }
        // "\r\n" is one Character of two bytes: leave lines with CRs to Foundation.
        let bytes = Array(line.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) else { return nil }
        let folded = pattern.map(lower)
        var result: [(offset: Int, length: Int)] = []
        var i = 0
        while i + folded.count <= bytes.count {
            var j = 0
            while j < folded.count, lower(bytes[i + j]) == folded[j] { j += 1 }
            if j == folded.count {
                result.append((i, folded.count))
                i += folded.count
            } else {
                i += 1
            }
        }
        return result
    }

    private static func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
}
