import Foundation
import Markdown
import Remote

/// A note's YAML front matter as Obsidian, zk and nb write it, for export's edits: a `---` line,
/// YAML lines, a `---` line, then the text.
///
/// Reading goes through Markdown's ``NoteFrontMatter`` (Yams); only the in-place edits of
/// `tags:` and `pinned:` work on lines, so every other line of a note's own front matter
/// survives a round trip untouched. A value with no I/O.
public struct FrontMatter: Equatable, Sendable {
    /// The lines between the fences, in order.
    public var lines: [String]

    public init(lines: [String]) { self.lines = lines }

    /// The front matter and the text after it, or nil and the whole text when there is none
    /// (``NoteFrontMatter``'s fences: LF or CRLF, a block never closed is no front matter).
    public static func split(_ text: String) -> (FrontMatter?, body: String) {
        guard let found = NoteFrontMatter(text) else { return (nil, text) }
        let body = String(NoteFrontMatter.body(of: text))
        let lines = found.yaml.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        return (FrontMatter(lines: lines.last == "" ? Array(lines.dropLast()) : lines), body)
    }

    /// The fenced block, ending in a newline.
    public var text: String { "---\n" + lines.map { $0 + "\n" }.joined() + "---\n" }

    /// What Yams reads in the lines.
    public var parsed: NoteFrontMatter? { NoteFrontMatter(text) }

    /// `key`'s value as Yams reads it (display text), nil when absent or the YAML does not parse.
    public func value(_ key: String) -> String? { parsed?.value(key) }

    /// `tags:` as Yams reads it (a list or a string), a leading `#` dropped.
    public var tags: [String] { parsed?.tags ?? [] }

    public var pinned: Bool { parsed?.pinned ?? false }

    /// Sets `key: value`, in place when the key is there, else at the end. A `tags:` list's
    /// `- item` lines go with it.
    public mutating func set(_ key: String, _ value: String) {
        let line = key + ": " + value
        guard let index = lines.firstIndex(where: { $0.hasPrefix(key + ":") }) else {
            lines.append(line)
            return
        }
        var end = index + 1
        if String(lines[index].dropFirst(key.count + 1)).trimmingCharacters(in: .whitespaces).isEmpty {
            while end < lines.count && lines[end].trimmingCharacters(in: .whitespaces).hasPrefix("- ") { end += 1 }
        }
        lines.replaceSubrange(index..<end, with: [line])
    }

    /// `[a, b]`, as Obsidian writes a short list.
    public static func list(_ words: [String]) -> String { "[" + words.joined(separator: ", ") + "]" }

    /// A string YAML reads back as itself: quoted when it holds what YAML would read otherwise.
    public static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { !":#[]{},&*!|>'\"%@`\\".unicodeScalars.contains($0) && $0.value >= 0x20 }
            && text.first != " " && text.last != " " && !["true", "false", "yes", "no", "null", "~"].contains(text.lowercased())
            && Double(text) == nil && !text.hasPrefix("-")
        if plain { return text }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
