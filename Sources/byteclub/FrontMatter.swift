import Foundation

/// A note's YAML front matter as Obsidian, zk and nb write it: a `---` line, `key: value`
/// lines (and `- item` lists), a `---` line, then the text.
///
/// Only what byteclub reads or writes is understood (title, tags, pinned, created, modified,
/// modified_by); every other line is kept as it was, so a note's own front matter survives a
/// round trip untouched. A value with no I/O.
struct FrontMatter: Equatable {
    /// The lines between the fences, in order.
    var lines: [String]

    /// The front matter and the text after it, or nil and the whole text when there is none.
    static func split(_ text: String) -> (FrontMatter?, body: String) {
        guard text.hasPrefix("---\n") || text.hasPrefix("---\r\n") else { return (nil, text) }
        let all = text.components(separatedBy: "\n")
        for index in all.indices.dropFirst() where all[index].trimmingCharacters(in: .whitespaces) == "---" {
            let body = all[(index + 1)...].joined(separator: "\n")
            return (FrontMatter(lines: Array(all[1..<index]).map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }), body)
        }
        return (nil, text)
    }

    /// The fenced block, ending in a newline.
    var text: String { "---\n" + lines.map { $0 + "\n" }.joined() + "---\n" }

    /// `key`'s value as written (quotes taken off), nil when absent.
    func value(_ key: String) -> String? {
        guard let line = lines.first(where: { $0.hasPrefix(key + ":") }) else { return nil }
        return Self.unquoted(String(line.dropFirst(key.count + 1)).trimmingCharacters(in: .whitespaces))
    }

    /// `tags: [a, b]`, `tags: a b`, `tags: a, b`, or a `- a` list below `tags:`; a leading `#` dropped.
    var tags: [String] {
        guard let index = lines.firstIndex(where: { $0.hasPrefix("tags:") }) else { return [] }
        var inline = String(lines[index].dropFirst("tags:".count)).trimmingCharacters(in: .whitespaces)
        var words: [String] = []
        if inline.isEmpty {
            for line in lines[(index + 1)...] {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("- ") else { break }
                words.append(String(trimmed.dropFirst(2)))
            }
        } else {
            if inline.hasPrefix("[") && inline.hasSuffix("]") { inline = String(inline.dropFirst().dropLast()) }
            words = inline.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        }
        return words.map { Self.unquoted($0.trimmingCharacters(in: .whitespaces)) }
            .map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }.filter { !$0.isEmpty }
    }

    var pinned: Bool { ["true", "yes"].contains(value("pinned")?.lowercased() ?? "") }

    /// Sets `key: value`, in place when the key is there, else at the end. A `tags:` list's
    /// `- item` lines go with it.
    mutating func set(_ key: String, _ value: String) {
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
    static func list(_ words: [String]) -> String { "[" + words.joined(separator: ", ") + "]" }

    /// A string YAML reads back as itself: quoted when it holds what YAML would read otherwise.
    static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { !":#[]{},&*!|>'\"%@`\\".unicodeScalars.contains($0) && $0.value >= 0x20 }
            && text.first != " " && text.last != " " && !["true", "false", "yes", "no", "null", "~"].contains(text.lowercased())
            && Double(text) == nil && !text.hasPrefix("-")
        if plain { return text }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func unquoted(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, first == text.last, first == "\"" || first == "'" else { return text }
        let inner = String(text.dropFirst().dropLast())
        return first == "\"" ? inner.replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\\\", with: "\\") : inner
    }
}
