import Foundation

/// Where Obsidian takes each link of a vault, written from its help pages ("Internal links",
/// "Accepted file formats", Settings → Files & Links → "New link format"), not from byteclub's
/// code, so a test can hold the club's resolver to it:
///
/// - a wiki link `[[target#heading|alias]]` or `![[…]]` names a file by `target` (the heading
///   or `^block` after `#`, and the alias or size after `|`, are not part of it); a target
///   without an extension is a note (`.md`); `[[a_pdf_file.pdf]]` an attachment by its name;
/// - a bare name ("Shortest path when possible") matches the file of that name in any folder,
///   compared case-insensitively; of several, the one in the linking note's folder, else the
///   one with the shortest path;
/// - a target with a `/` is a path: from the vault's top ("Absolute path in vault"), or from
///   the note's folder ("Relative path to file", `..` allowed), else the file whose path ends so;
/// - a Markdown link `[x](Some%20note.md#part)` is URL-encoded and is found the same ways
///   (relative to the note first); `http:`, `obsidian:` and other schemes are not files;
/// - links in code (fenced blocks, inline code spans) and in comments (`%%…%%`, and HTML's
///   `<!-- … -->`, which the vault's own `comments_html_style` note says Obsidian leaves out of
///   its metadata) are not links.
public struct ObsidianRules {
    /// One link found in a note.
    public struct Link: Hashable {
        public enum Syntax: String, Sendable { case wiki, markdown }
        /// The note it is in (its vault path) and the line (from 1).
        public var note: String
        public var line: Int
        public var syntax: Syntax
        /// Its place among the links of its syntax on that line, from 0.
        public var ordinal: Int
        /// As written: the wiki link's inside or the Markdown link's destination.
        public var written: String

        public init(note: String, line: Int, syntax: Syntax, ordinal: Int, written: String) {
            (self.note, self.line, self.syntax, self.ordinal, self.written) = (note, line, syntax, ordinal, written)
        }
    }

    /// Every file of the vault by vault path ("Test Data/x.md").
    public let files: [String]
    private let byName: [String: [String]]
    private let byPath: [String: String]

    public init(files: [String]) {
        self.files = files
        var byName: [String: [String]] = [:], byPath: [String: String] = [:]
        for file in files {
            byName[(file as NSString).lastPathComponent.lowercased(), default: []].append(file)
            byPath[file.lowercased()] = file
        }
        self.byName = byName
        self.byPath = byPath
    }

    /// The links of `text`, the note at vault path `note`, outside code.
    public static func links(in text: String, note: String) throws -> [Link] {
        var found: [Link] = []
        var fence: String?
        var inComment: String?
        for (index, whole) in text.components(separatedBy: "\n").enumerated() {
            // In a fenced block nothing is a comment: only its closing fence counts.
            if let open = fence {
                if quoted(whole).hasPrefix(open) { fence = nil }
                continue
            }
            // What of the line is outside comments, which may span lines.
            var raw = ""
            var rest = Substring(whole)
            while !rest.isEmpty {
                if let close = inComment {
                    guard let end = rest.range(of: close) else { rest = ""; break }
                    rest = rest[end.upperBound...]
                    inComment = nil
                } else if let open = [rest.range(of: "<!--"), rest.range(of: "%%")].compactMap({ $0 }).min(by: { $0.lowerBound < $1.lowerBound }) {
                    raw += rest[..<open.lowerBound]
                    inComment = rest[open] == "%%" ? "%%" : "-->"
                    rest = rest[open.upperBound...]
                } else {
                    raw += rest
                    rest = ""
                }
            }
            let trimmed = quoted(raw)
            // A list item's fence is indented too, a callout's is quoted; its marker is ``` or ~~~
            // and it ends with the same.
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix(3))
                continue
            }
            let line = withoutCodeSpans(raw)
            var ordinals: [Link.Syntax: Int] = [:]
            func add(_ syntax: Link.Syntax, _ written: String) {
                found.append(Link(note: note, line: index + 1, syntax: syntax, ordinal: ordinals[syntax, default: 0], written: written))
                ordinals[syntax, default: 0] += 1
            }
            var unread = Substring(line)
            while let open = unread.range(of: "[[") {
                guard let close = unread[open.upperBound...].range(of: "]]") else { break }
                let inside = unread[open.upperBound..<close.lowerBound]
                if !inside.contains("["), !linkpath(String(inside)).isEmpty { add(.wiki, String(inside)) }
                unread = unread[close.upperBound...]
            }
            // `[text](destination)`, not inside a wiki link: what is left once wiki links are out.
            let plain = line.replacingOccurrences(of: #"\[\[[^\[\]]*\]\]"#, with: "", options: .regularExpression)
            let markdown = try NSRegularExpression(pattern: #"\[[^\[\]]*\]\(([^()\s]*|<[^>]*>)(?:\s+"[^"]*")?\)"#)
            for match in markdown.matches(in: plain, range: NSRange(plain.startIndex..., in: plain)) {
                guard let range = Range(match.range(at: 1), in: plain) else { continue }
                var destination = String(plain[range])
                if destination.hasPrefix("<") { destination = String(destination.dropFirst().dropLast()) }
                add(.markdown, destination)
            }
        }
        return found
    }

    /// `line` without its blockquote (and callout) markers and the spaces around them: a code
    /// block in a callout is code too.
    static func quoted(_ line: some StringProtocol) -> String {
        var rest = Substring(line).drop { $0 == " " || $0 == "\t" }
        while rest.first == ">" { rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" } }
        return String(rest).trimmingCharacters(in: .whitespaces)
    }

    /// `line` with its inline code spans blanked.
    static func withoutCodeSpans(_ line: String) -> String {
        line.replacingOccurrences(of: #"`[^`]*`"#, with: "", options: .regularExpression)
    }

    /// The file part of a wiki link's inside: before `|` (written `\|` in a table, as the help's
    /// "Vertical bars in tables" says), then before `#`, trimmed.
    static func linkpath(_ inside: String) -> String {
        let inside = inside.replacingOccurrences(of: "\\|", with: "|")
        var target = inside.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        return target.trimmingCharacters(in: .whitespaces)
    }

    /// The vault path `link` leads to, or nil when Obsidian finds no file (or it is no file: a
    /// web address, an `obsidian:` URI, a heading in the same note).
    public func resolve(_ link: Link) -> String? {
        let folder = (link.note as NSString).deletingLastPathComponent
        switch link.syntax {
        case .wiki:
            return find(Self.linkpath(link.written), from: folder, relativeFirst: false)
        case .markdown:
            let destination = link.written
            if destination.isEmpty || destination.hasPrefix("#") { return nil }
            if let colon = destination.firstIndex(of: ":"), destination[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
                return nil
            }
            var path = destination
            if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
            path = path.removingPercentEncoding ?? path
            return path.isEmpty ? nil : find(path, from: folder, relativeFirst: true)
        }
    }

    /// The file `target` names from a note in `folder`.
    private func find(_ target: String, from folder: String, relativeFirst: Bool) -> String? {
        guard !target.isEmpty else { return nil }
        let ext = (target as NSString).pathExtension.lowercased()
        // No extension, or one that is no file's here ("Nov 05, 2022"): a note.
        let names = ext.isEmpty ? [target + ".md"] : [target, target + ".md"]
        for name in names {
            if let found = findFile(name, from: folder, relativeFirst: relativeFirst) { return found }
        }
        return nil
    }

    private func findFile(_ name: String, from folder: String, relativeFirst: Bool) -> String? {
        let relative = Self.normalized(folder.isEmpty ? name : folder + "/" + name)
        let absolute = Self.normalized(name)
        let tries = relativeFirst ? [relative, absolute] : [absolute, relative]
        for path in tries.compactMap({ $0 }) {
            if let hit = byPath[path.lowercased()] { return hit }
        }
        let lower = name.lowercased()
        let candidates = name.contains("/")
            ? files.filter { $0.lowercased().hasSuffix("/" + lower) }
            : byName[lower] ?? []
        guard !candidates.isEmpty else { return nil }
        if let here = candidates.first(where: { ($0 as NSString).deletingLastPathComponent.lowercased() == folder.lowercased() }) {
            return here
        }
        return candidates.min { ($0.count, $0) < ($1.count, $1) }
    }

    /// `path` with `.` and `..` taken, or nil when it climbs out of the vault.
    static func normalized(_ path: String) -> String? {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }
}
