import Foundation

/// Renames keep links: `[[Old title]]`, `[[old title|shown]]` and `[[Old title#Part]]` become
/// `[[New title]]`, `[[New title|shown]]` and `[[New title#Part]]`, found by ``NoteLinks/scan(_:)``
/// so a link in code is left as written.
extension NoteLinks {
    /// `text` with every wiki link to the note titled `old` (any case) naming `new` instead,
    /// and how many were changed. Pictures (`![[x.jpg]]`) and links by file name
    /// (`[[Old title.md]]`) are left: they name a file, which the rename moved on purpose.
    public static func renamingWikiLinks(in text: String, from old: String, to new: String) -> (text: String, count: Int) {
        let wanted = old.lowercased()
        let found = scan(text).filter { link in
            guard link.syntax == .wiki, !link.isImage, link.line >= 0, link.destination.lowercased() == wanted else { return false }
            if case .note = link.target(inFolder: "/") { return true }
            return false
        }
        guard !found.isEmpty else { return (text, 0) }
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        // From the end of each line, so the byte ranges of the links before stay true.
        for link in found.sorted(by: { ($0.line, $0.bytes.lowerBound) > ($1.line, $1.bytes.lowerBound) }) where link.line < lines.count {
            var line = lines[link.line]
            guard link.bytes.upperBound <= line.count else { continue }
            let construct = Array(line[link.bytes])
            guard let open = construct.firstIndex(of: UInt8(ascii: "[")), construct.count >= open + 4 else { continue }
            let inner = construct[(open + 2)..<(construct.count - 2)]
            // The title runs to the first `#` or `|`; what follows (a part, the shown text) stays.
            let cut = inner.firstIndex { $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "|") } ?? inner.endIndex
            let replaced = Array(construct[..<(open + 2)]) + Array(new.utf8) + Array(inner[cut...]) + [UInt8(ascii: "]"), UInt8(ascii: "]")]
            line.replaceSubrange(link.bytes, with: replaced)
            lines[link.line] = line
        }
        let joined = lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
        return (joined, found.count)
    }
}
