import Foundation

/// Links rewritten in place, for renames and moves: the one place that knows how each link is
/// written. Which links change, and to what, is decided by the club's rules of resolution
/// (the core's `NoteResolver.rewritingLinks`); here each link found by ``NoteLinks/scan(_:)``
/// gets its new target and keeps everything else as written: a wiki link its `!`, `#part` and
/// `|shown text` (`[[New#Day 2|the day]]`), a Markdown link its text, `#part` and title.
extension NoteLinks {
    /// A link of a text and what it should lead to: for a wiki link, its target (what runs to
    /// its `#` or `|`, as `Trips/Day one` or `Day one`); for a Markdown link, its destination's
    /// path, not percent-encoded and without its `#part`.
    public struct Retarget: Sendable, Hashable {
        public var link: NoteLink
        public var target: String

        public init(link: NoteLink, target: String) {
            self.link = link
            self.target = target
        }
    }

    /// `text` with each link of `changes` leading to its new target, and how many links changed.
    /// A Markdown destination is written in `<…>` when it was, or when it holds a space, a
    /// parenthesis or an angle bracket. Links without a position (autolinks) are left.
    public static func retargeting(_ text: String, _ changes: [Retarget]) -> (text: String, count: Int) {
        guard !changes.isEmpty else { return (text, 0) }
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        var count = 0
        // From the end of each line, so the byte ranges of the links before stay true.
        for change in changes.sorted(by: { ($0.link.line, $0.link.bytes.lowerBound) > ($1.link.line, $1.link.bytes.lowerBound) }) {
            let link = change.link
            guard link.line >= 0, link.line < lines.count, link.bytes.upperBound <= lines[link.line].count else { continue }
            let old = Array(lines[link.line][link.bytes])
            let replaced: [UInt8]?
            switch link.syntax {
            case .wiki: replaced = wikiConstruct(old, target: change.target)
            case .markdown: replaced = markdownConstruct(old, path: change.target)
            case .autolink: replaced = nil
            }
            guard let replaced, replaced != old else { continue }
            lines[link.line].replaceSubrange(link.bytes, with: replaced)
            count += 1
        }
        guard count > 0 else { return (text, 0) }
        return (lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n"), count)
    }

    /// `to` written from `folder`: "../Trips/Day one.md" (parts climbed with `..`).
    public static func relativePath(from folder: String, to path: String) -> String {
        let a = folder.split(separator: "/"), b = path.split(separator: "/")
        var common = 0
        while common < min(a.count, b.count - 1) && a[common].lowercased() == b[common].lowercased() { common += 1 }
        return (Array(repeating: "..", count: a.count - common) + b[common...].map(String.init)).joined(separator: "/")
    }

    /// A wiki link's construct (`[[…]]`, `![[…]]`) with its target (what runs to `#`, `|` or a
    /// table's `\|`) replaced.
    private static func wikiConstruct(_ construct: [UInt8], target: String) -> [UInt8]? {
        guard let open = construct.firstIndex(of: UInt8(ascii: "[")), construct.count >= open + 4 else { return nil }
        let inner = construct[(open + 2)..<(construct.count - 2)]
        var cut = inner.firstIndex { $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "|") } ?? inner.endIndex
        // A table's `\|` stays whole.
        if cut > inner.startIndex, cut < inner.endIndex, inner[cut] == UInt8(ascii: "|"), inner[cut - 1] == UInt8(ascii: "\\") { cut -= 1 }
        return Array(construct[..<(open + 2)]) + Array(target.utf8) + Array(inner[cut...]) + Array("]]".utf8)
    }

    /// A Markdown link's construct (`[text](dest "title")`) with its destination replaced; a
    /// `#part` and a title are kept.
    private static func markdownConstruct(_ bytes: [UInt8], path: String) -> [UInt8]? {
        let construct = String(decoding: bytes, as: UTF8.self)
        guard construct.hasSuffix(")"), let open = construct.range(of: "](", options: .backwards) else { return nil }
        let inside = construct[open.upperBound..<construct.index(before: construct.endIndex)]
        var destination = inside.trimmingCharacters(in: .whitespaces)
        var title = ""
        var angled = false
        if destination.hasPrefix("<"), let close = destination.firstIndex(of: ">") {
            angled = true
            title = String(destination[destination.index(after: close)...])
            destination = String(destination[destination.index(after: destination.startIndex)..<close])
        } else if let space = destination.firstIndex(of: " ") {
            title = String(destination[space...])
            destination = String(destination[..<space])
        }
        let part = destination.firstIndex(of: "#").map { String(destination[$0...]) } ?? ""
        let written = angled || path.contains(where: { " ()<>".contains($0) }) ? "<" + path + part + ">" : path + part
        return Array((String(construct[..<open.upperBound]) + written + title + ")").utf8)
    }
}
