import CCmarkGFM
import Foundation

/// One link or picture reference in a note, as written.
///
/// Three syntaxes make links: wiki links (`[[Title]]`, `[[Title|shown text]]`, `[[Title#Part]]`,
/// and pictures `![[desk.jpg]]`), Markdown links and images (`[x](Trip%20plan.md)`,
/// `![desk](photos/desk.jpg)`), and GFM autolinks (`https://…`). Wiki links are not CommonMark:
/// they are found in the note's text outside code, which is what the parse tree says is code.
public struct NoteLink: Hashable, Sendable {
    public enum Syntax: Hashable, Sendable {
        /// `[[Title]]` or `![[name.jpg]]`.
        case wiki
        /// `[text](url)` or `![alt](src)`.
        case markdown
        /// A bare `https://…` or `<https://…>`.
        case autolink
    }

    /// What the link points at as written: the title of a wiki link (without `|text` or
    /// `#part`), the destination of a Markdown link (still percent-encoded).
    public var destination: String
    /// What a reader sees: the wiki link's `|text` or its title, a link's text, an image's alt.
    public var text: String
    /// `![…]`: a picture to draw, not a place to go.
    public var isImage: Bool
    public var syntax: Syntax
    /// The part after `#`: a heading (`[[Trip#Day 2]]` → "Day 2"; `[[Trip#Days#Day 2]]` →
    /// "Days#Day 2"), or a block id with its caret (`[[Trip#^plan]]` → "^plan"); a Markdown
    /// link's `#fragment`, percent-decoded. Nil when there is none.
    public var fragment: String?
    /// The line (from 0) and the UTF-8 byte range in it of the whole construct (`[[…]]`,
    /// `[x](y)`), or `line == -1` where the parser gave no position (autolinks).
    public var line: Int
    public var bytes: Range<Int>
    /// A wiki picture's size (`![[x.png|300]]`, `|100x145`), which is not its text.
    public var size: PictureSize?

    public init(destination: String, text: String, isImage: Bool, syntax: Syntax, line: Int, bytes: Range<Int>, fragment: String? = nil,
                size: PictureSize? = nil) {
        self.fragment = fragment
        self.destination = destination
        self.text = text
        self.isImage = isImage
        self.syntax = syntax
        self.line = line
        self.bytes = bytes
        self.size = size
    }

    /// A Markdown link's `#fragment` (after the path, before any `?`), percent-decoded; nil
    /// for none, for an empty one, and for a web address (its fragment is the web page's).
    public static func fragment(ofDestination destination: String) -> String? {
        guard let hash = destination.firstIndex(of: "#") else { return nil }
        let before = destination[..<hash]
        if before.contains(":") || before.contains("?") { return nil }
        let part = String(destination[destination.index(after: hash)...])
        let decoded = part.removingPercentEncoding ?? part
        return decoded.isEmpty ? nil : decoded
    }

    /// Where the link leads, for a note in the club folder `folder` ("/byteclub").
    public func target(inFolder folder: String) -> NoteLinkTarget {
        NoteLinkTarget(self, folder: folder)
    }
}

/// Where a ``NoteLink`` leads, resolved against the folder of the note that holds it.
public enum NoteLinkTarget: Hashable, Sendable {
    /// A note named by its title (`[[Trip plan]]`): the note whose file name without its
    /// extension is that title, compared case-insensitively; it may not exist.
    case note(title: String)
    /// A note by its club path ("/byteclub/Trip plan.md"), from a relative Markdown link.
    case path(String)
    /// A club photo by its path ("/byteclub/photos/desk.jpg").
    case photo(String)
    /// A heading or block in the note that holds the link (`[[#Heading]]`, `[[#^id]]`, `[x](#part)`):
    /// the place is the link's ``NoteLink/fragment``.
    case here
    /// An `http(s)` address. A picture there is never fetched: its alt text is shown.
    case web(String)
    /// Anything else (`mailto:`, `javascript:`, `file:`, a path outside the club folder):
    /// shown, never followed.
    case elsewhere(String)

    /// Extensions that make a club path a photo rather than a note: the pictures the app draws.
    public static let photoExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "svg"]

    init(_ link: NoteLink, folder: String) {
        let folder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        switch link.syntax {
        case .autolink:
            self = Self.isWeb(link.destination) ? .web(link.destination) : .elsewhere(link.destination)
        case .wiki:
            let name = link.destination
            if name.isEmpty {
                self = .here
                return
            }
            let ext = (name as NSString).pathExtension.lowercased()
            if Self.photoExtensions.contains(ext) {
                // Obsidian finds a picture by its name anywhere; the club keeps photos in one folder.
                self = name.contains("/") ? Self.clubPath(name, folder: folder, photo: true) : .photo("\(folder)/photos/\(name)")
            } else if ext == "md" || ext == "txt" {
                self = Self.clubPath(name, folder: folder, photo: false)
            } else {
                self = .note(title: name)
            }
        case .markdown:
            let destination = link.destination
            if let colon = destination.firstIndex(of: ":"),
               destination[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
               !destination[..<colon].isEmpty {
                self = Self.isWeb(destination) ? .web(destination) : .elsewhere(destination)
                return
            }
            // A relative reference: drop its #fragment and ?query, percent-decode, resolve.
            var path = destination
            if let cut = path.firstIndex(where: { $0 == "#" || $0 == "?" }) { path = String(path[..<cut]) }
            path = path.removingPercentEncoding ?? path
            if path.isEmpty, destination.hasPrefix("#"), destination.count > 1 {
                self = .here
                return
            }
            guard !path.isEmpty, !path.hasPrefix("//") else {
                self = .elsewhere(destination)
                return
            }
            let ext = (path as NSString).pathExtension.lowercased()
            self = Self.clubPath(path, folder: folder, photo: link.isImage || Self.photoExtensions.contains(ext))
        }
    }

    private static func isWeb(_ address: String) -> Bool {
        let lower = address.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("www.")
    }

    /// `relative` resolved against `folder` ("photos/a.jpg" → "/byteclub/photos/a.jpg"), `.` and
    /// `..` removed; a path that climbs out of the club's root is `.elsewhere`.
    private static func clubPath(_ relative: String, folder: String, photo: Bool) -> NoteLinkTarget {
        let joined = relative.hasPrefix("/") ? relative : folder + "/" + relative
        var parts: [Substring] = []
        for part in joined.split(separator: "/") where part != "." && !part.isEmpty {
            if part == ".." {
                guard !parts.isEmpty else { return .elsewhere(relative) }
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        guard !parts.isEmpty else { return .elsewhere(relative) }
        let path = "/" + parts.joined(separator: "/")
        return photo ? .photo(path) : .path(path)
    }
}

/// Finds the links of a note.
public enum NoteLinks {
    /// The links and picture references of `text`, in the order they appear.
    public static func scan(_ text: String) -> [NoteLink] {
        var text = text
        return text.withUTF8 { scan(utf8: $0) }
    }

    /// The title a wiki link names a note by: its file name without `.md` or `.txt`.
    public static func title(ofPath path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension.lowercased()
        return ext == "md" || ext == "txt" ? (name as NSString).deletingPathExtension : name
    }

    public static func scan(utf8 bytes: UnsafeBufferPointer<UInt8>) -> [NoteLink] {
        var lineStarts = [0]
        for i in 0..<bytes.count where bytes[i] == 0x0A { lineStarts.append(i + 1) }
        var walker = LinkWalker(lineCount: lineStarts.count)
        MarkdownParser.withDocument(ofUTF8: bytes) { walker.walk($0) }
        let lineEnd = { (line: Int) in line + 1 < lineStarts.count ? lineStarts[line + 1] - 1 : bytes.count }
        // A Markdown link over several lines is kept by its first line, to that line's end.
        var links = walker.links.map { link in
            var link = link
            // cmark ends a line at a lone CR too: a line past the last LF has no place here.
            if link.line >= lineStarts.count {
                link.line = -1
                link.bytes = 0..<0
            }
            if link.line >= 0 {
                let length = lineEnd(link.line) - lineStarts[link.line]
                link.bytes = min(link.bytes.lowerBound, length)..<min(link.bytes.upperBound, length)
            }
            return link
        }
        placeUnplaced(&links, in: bytes, lineStarts: lineStarts, lineEnd: lineEnd, codeLines: walker.codeLines)
        for line in lineStarts.indices where !walker.codeLines.contains(line) {
            let start = lineStarts[line]
            links += wikiLinks(in: UnsafeBufferPointer(rebasing: bytes[start..<lineEnd(line)]), line: line,
                               excluding: walker.codeSpans[line] ?? [])
        }
        links.sort { ($0.line, $0.bytes.lowerBound) < ($1.line, $1.bytes.lowerBound) }
        return links
    }

    /// Gives each Markdown link the parser left without a position (``LinkWalker``) its place:
    /// the first `](destination)` outside code not taken by another link, from the `[` (or `![`)
    /// that opens it. One that cannot be found keeps `line == -1`.
    private static func placeUnplaced(_ links: inout [NoteLink], in bytes: UnsafeBufferPointer<UInt8>, lineStarts: [Int],
                                      lineEnd: (Int) -> Int, codeLines: Set<Int>) {
        guard links.contains(where: { $0.syntax == .markdown && $0.line < 0 }) else { return }
        var taken = Set(links.filter { $0.line >= 0 }.map { [$0.line, $0.bytes.lowerBound] })
        for index in links.indices where links[index].syntax == .markdown && links[index].line < 0 {
            let needle = Array("](\(links[index].destination))".utf8)
            search: for line in lineStarts.indices where !codeLines.contains(line) {
                let start = lineStarts[line], end = lineEnd(line)
                guard end - start >= needle.count else { continue }
                var at = start
                while at + needle.count <= end {
                    defer { at += 1 }
                    guard bytes[at] == needle[0], Array(bytes[at..<(at + needle.count)]) == needle else { continue }
                    var open = at - 1
                    while open >= start, bytes[open] != UInt8(ascii: "[") { open -= 1 }
                    guard open >= start else { continue }
                    if links[index].isImage, open > start, bytes[open - 1] == UInt8(ascii: "!") { open -= 1 }
                    guard !taken.contains([line, open - start]) else { continue }
                    links[index].line = line
                    links[index].bytes = (open - start)..<(at + needle.count - start)
                    taken.insert([line, open - start])
                    break search
                }
            }
        }
    }

    /// `[[…]]` and `![[…]]` in one line, skipping those that start inside `excluded` byte ranges
    /// (code spans). A wiki link holds no `[`, `]` or line break; `|` (or a table's `\|`) splits
    /// the shown text off, `#` a heading or block reference (kept out of the title).
    static func wikiLinks(in line: UnsafeBufferPointer<UInt8>, line index: Int, excluding excluded: [Range<Int>]) -> [NoteLink] {
        let open = UInt8(ascii: "["), close = UInt8(ascii: "]")
        var found: [NoteLink] = []
        var i = 0
        while i + 3 < line.count {
            guard line[i] == open, line[i + 1] == open, !excluded.contains(where: { $0.contains(i) }) else {
                i += 1
                continue
            }
            var j = i + 2
            while j < line.count, line[j] != open, line[j] != close { j += 1 }
            guard j + 1 < line.count, line[j] == close, line[j + 1] == close, j > i + 2 else {
                i = j > i + 2 ? j : i + 1
                continue
            }
            let inner = String(decoding: UnsafeBufferPointer(rebasing: line[(i + 2)..<j]), as: UTF8.self)
            let isImage = i > 0 && line[i - 1] == UInt8(ascii: "!")
            let parts = inner.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            // In a table the bar is written `\|` (Obsidian's "Vertical bars in tables"); no
            // file's name may hold a backslash, so the one before a bar is never the name's.
            var name = String(parts.count > 1 && parts[0].hasSuffix("\\") ? parts[0].dropLast() : parts[0])
            var fragment: String?
            if let hash = name.firstIndex(of: "#") {
                let part = name[name.index(after: hash)...].trimmingCharacters(in: .whitespaces)
                fragment = part.isEmpty ? nil : part
                name = String(name[..<hash])
            }
            name = name.trimmingCharacters(in: .whitespaces)
            let shown = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            // An image's "|300" or "|300x200" is Obsidian's size, not its alt text.
            let size = isImage ? pictureSize(shown) : nil
            if !name.isEmpty || fragment != nil {
                let from = isImage ? i - 1 : i
                // `[[#Heading]]` reads as its heading, `[[Note#Heading]]` as its note.
                let written = name.isEmpty ? fragment ?? "" : name
                found.append(NoteLink(destination: name, text: shown.isEmpty || size != nil ? written : shown,
                                      isImage: isImage, syntax: .wiki, line: index, bytes: from..<(j + 2), fragment: fragment, size: size))
            }
            i = j + 2
        }
        return found
    }
}

/// Collects Markdown links and images with their positions, and where code is (no wiki link
/// is looked for there).
struct LinkWalker {
    private(set) var links: [NoteLink] = []
    /// Lines that belong to code blocks and HTML blocks.
    private(set) var codeLines: Set<Int> = []
    /// Byte ranges of code spans, by line.
    private(set) var codeSpans: [Int: [Range<Int>]] = [:]
    private let lineCount: Int

    init(lineCount: Int) { self.lineCount = lineCount }

    mutating func walk(_ document: OpaquePointer) {
        guard let iterator = cmark_iter_new(document) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == BC_CMARK_EVENT_DONE { break }
            guard event == BC_CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            let first = Int(cmark_node_get_start_line(node)) - 1
            switch type {
            case BC_CMARK_NODE_CODE_BLOCK, BC_CMARK_NODE_HTML_BLOCK:
                var last = Int(cmark_node_get_end_line(node)) - 1
                if cmark_node_get_end_column(node) <= 0, last > first { last -= 1 }
                if first >= 0 { for line in first...max(first, min(last, lineCount - 1)) { codeLines.insert(line) } }
            case BC_CMARK_NODE_CODE, BC_CMARK_NODE_HTML_INLINE:
                // A code span's position is its content: widen by one either side, which covers
                // the backticks of the common case and any "[[" that starts inside. Inline HTML's
                // is the tag itself, `<br>` or `<!-- … -->`: a link right after it is a link.
                let widen = type == BC_CMARK_NODE_CODE ? 1 : 0
                let from = max(0, Int(cmark_node_get_start_column(node)) - 1 - widen)
                let to = Int(cmark_node_get_end_column(node)) + widen
                if first >= 0, to > from { codeSpans[first, default: []].append(from..<to) }
            case BC_CMARK_NODE_LINK, BC_CMARK_NODE_IMAGE:
                let destination = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
                let text = Self.plainText(of: node)
                let isImage = type == BC_CMARK_NODE_IMAGE
                if first >= 0 {
                    let last = Int(cmark_node_get_end_line(node)) - 1
                    let from = Int(cmark_node_get_start_column(node)) - 1
                    let to = last == first ? Int(cmark_node_get_end_column(node)) : Int.max
                    links.append(NoteLink(destination: destination, text: text, isImage: isImage, syntax: .markdown,
                                          line: first, bytes: max(0, from)..<max(from, to),
                                          fragment: NoteLink.fragment(ofDestination: destination)))
                } else if Self.isAutolink(destination: destination, text: text) {
                    links.append(NoteLink(destination: destination, text: text, isImage: isImage, syntax: .autolink, line: -1, bytes: 0..<0))
                } else {
                    // A link the parser gave no position: cmark-gfm's table extension parses the
                    // lines of a paragraph just before a table again, without positions. It is a
                    // Markdown link all the same, placed in the text by `NoteLinks.scan`.
                    links.append(NoteLink(destination: destination, text: text, isImage: isImage, syntax: .markdown, line: -1, bytes: 0..<0,
                                          fragment: NoteLink.fragment(ofDestination: destination)))
                }
            default:
                break
            }
        }
    }

    /// Whether a link with no position is one of GFM's bare autolinks (`https://…`, `www.…`, an
    /// e-mail address): its text is its address, as the extension makes it.
    static func isAutolink(destination: String, text: String) -> Bool {
        destination == text || ["http://", "https://", "mailto:"].contains { destination == $0 + text }
    }

    /// The text of a link's or image's children, without their Markdown.
    static func plainText(of node: OpaquePointer) -> String {
        var text = ""
        guard let iterator = cmark_iter_new(node) else { return text }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == BC_CMARK_EVENT_DONE { break }
            guard event == BC_CMARK_EVENT_ENTER, let child = cmark_iter_get_node(iterator), child != node else { continue }
            let type = cmark_node_get_type(child)
            if type == BC_CMARK_NODE_TEXT || type == BC_CMARK_NODE_CODE, let literal = cmark_node_get_literal(child) {
                text += String(cString: literal)
            } else if type == BC_CMARK_NODE_SOFTBREAK || type == BC_CMARK_NODE_LINEBREAK {
                text += " "
            }
        }
        return text
    }
}
