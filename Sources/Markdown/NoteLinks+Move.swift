import Foundation

/// Moves keep links: after a note or a folder moved, links that led into it by path lead to
/// its new place. Wiki links by path (`[[Trips/Day one]]`, from the club folder) and relative
/// Markdown links (`[x](../Trips/Day%20one.md)`, from the linking note's folder) are rewritten;
/// wiki links by title (`[[Day one]]`) find the note wherever it is and stay as written.
extension NoteLinks {
    /// `text`, the note that was at `wasAt` and is now at `isAt` (the same path unless it moved
    /// too), with its links into `from` (a note's or a folder's club path) leading into `to`,
    /// and its relative links written from its new folder; and how many links changed.
    public static func movingLinks(in text: String, wasAt: String, isAt: String, root: String, from: String, to: String)
        -> (text: String, count: Int) {
        let fromLower = from.lowercased(), rootLower = root.lowercased()
        let oldFolder = Self.folder(of: wasAt), newFolder = Self.folder(of: isAt)
        /// The moved path of `path` (any case), or nil when it is not in what moved.
        func moved(_ path: String) -> String? {
            let lower = path.lowercased()
            if lower == fromLower { return to }
            if lower.hasPrefix(fromLower + "/") { return to + path.dropFirst(from.count) }
            let bareFrom = Self.bare(fromLower)
            if bareFrom != fromLower, lower == bareFrom { return Self.bare(to) }
            return nil
        }
        var edits: [(line: Int, bytes: Range<Int>, replacement: String)] = []
        for link in scan(text) where link.line >= 0 && link.syntax != .autolink {
            switch link.syntax {
            case .wiki where link.destination.contains("/") && !link.isImage:
                let path = root + "/" + link.destination
                guard let new = moved(path), new.lowercased().hasPrefix(rootLower + "/") else { continue }
                var relative = String(new.dropFirst(root.count + 1))
                if Self.bare(link.destination.lowercased()) == link.destination.lowercased() { relative = Self.bare(relative) }
                edits.append((link.line, link.bytes, Self.replacingWikiTarget(of: link, in: text, with: relative)))
            case .markdown:
                // Pictures too: a moved note's `../photos/x.jpg` is written from its new folder.
                let target: String
                switch link.target(inFolder: oldFolder) {
                case .path(let path), .photo(let path): target = path
                default: continue
                }
                let new = moved(target) ?? target
                guard new != target || oldFolder.lowercased() != newFolder.lowercased() else { continue }
                let written = Self.relativePath(from: newFolder, to: new)
                edits.append((link.line, link.bytes, Self.replacingMarkdownTarget(of: link, in: text, with: written)))
            default:
                continue
            }
        }
        edits.removeAll { $0.replacement.isEmpty }
        guard !edits.isEmpty else { return (text, 0) }
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        var count = 0
        for edit in edits.sorted(by: { ($0.line, $0.bytes.lowerBound) > ($1.line, $1.bytes.lowerBound) }) where edit.line < lines.count {
            guard edit.bytes.upperBound <= lines[edit.line].count else { continue }
            let old = Array(lines[edit.line][edit.bytes]), new = Array(edit.replacement.utf8)
            guard old != new else { continue }
            lines[edit.line].replaceSubrange(edit.bytes, with: new)
            count += 1
        }
        return (lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n"), count)
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func bare(_ path: String) -> String {
        let ext = (path as NSString).pathExtension.lowercased()
        return ext == "md" || ext == "txt" ? (path as NSString).deletingPathExtension : path
    }

    /// `to` written from `folder`: "../Trips/Day one.md" (parts climbed with `..`).
    public static func relativePath(from folder: String, to path: String) -> String {
        let a = folder.split(separator: "/"), b = path.split(separator: "/")
        var common = 0
        while common < min(a.count, b.count - 1) && a[common].lowercased() == b[common].lowercased() { common += 1 }
        return (Array(repeating: "..", count: a.count - common) + b[common...].map(String.init)).joined(separator: "/")
    }

    /// The link's construct (`[[…]]`) with its target (what runs to `#` or `|`) replaced.
    private static func replacingWikiTarget(of link: NoteLink, in text: String, with target: String) -> String {
        guard let construct = construct(of: link, in: text), let open = construct.firstIndex(of: UInt8(ascii: "[")),
              construct.count >= open + 4 else { return "" }
        let inner = construct[(open + 2)..<(construct.count - 2)]
        let cut = inner.firstIndex { $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "|") } ?? inner.endIndex
        let bytes = Array(construct[..<(open + 2)]) + Array(target.utf8) + Array(inner[cut...]) + Array("]]".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The link's construct (`[text](dest "title")`) with its destination replaced, in `<…>`
    /// when it holds a space or a parenthesis; a `#part` and a title are kept.
    private static func replacingMarkdownTarget(of link: NoteLink, in text: String, with path: String) -> String {
        guard let construct = construct(of: link, in: text).map({ String(decoding: $0, as: UTF8.self) }),
              construct.hasSuffix(")"), let open = construct.range(of: "](", options: .backwards) else { return "" }
        let inside = construct[open.upperBound..<construct.index(before: construct.endIndex)]
        var destination = inside.trimmingCharacters(in: .whitespaces)
        var title = ""
        if destination.hasPrefix("<"), let close = destination.firstIndex(of: ">") {
            title = String(destination[destination.index(after: close)...])
            destination = String(destination[destination.index(after: destination.startIndex)..<close])
        } else if let space = destination.firstIndex(of: " ") {
            title = String(destination[space...])
            destination = String(destination[..<space])
        }
        let part = destination.firstIndex(of: "#").map { String(destination[$0...]) } ?? ""
        let written = path.contains(where: { " ()<>".contains($0) }) ? "<" + path + part + ">" : path + part
        return String(construct[..<open.upperBound]) + written + title + ")"
    }

    private static func construct(of link: NoteLink, in text: String) -> [UInt8]? {
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false)
        guard lines.indices.contains(link.line) else { return nil }
        let line = Array(lines[link.line])
        guard link.bytes.upperBound <= line.count else { return nil }
        return Array(line[link.bytes])
    }
}
