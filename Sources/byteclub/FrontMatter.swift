import Foundation
import LocalClub
import Markdown
import Remote

/// A note's YAML front matter as Obsidian, zk and nb write it, for export's edits: a `---` line,
/// YAML lines, a `---` line, then the text.
///
/// Reading goes through Markdown's ``NoteFrontMatter`` (Yams); only the in-place edits of
/// `tags:` and `pinned:` work on lines, so every other line of a note's own front matter
/// survives a round trip untouched. A value with no I/O.
struct FrontMatter: Equatable {
    /// The lines between the fences, in order.
    var lines: [String]

    /// The front matter and the text after it, or nil and the whole text when there is none
    /// (``NoteFrontMatter``'s fences: LF or CRLF, a block never closed is no front matter).
    static func split(_ text: String) -> (FrontMatter?, body: String) {
        guard let found = NoteFrontMatter(text) else { return (nil, text) }
        let body = String(NoteFrontMatter.body(of: text))
        let lines = found.yaml.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        return (FrontMatter(lines: lines.last == "" ? Array(lines.dropLast()) : lines), body)
    }

    /// The fenced block, ending in a newline.
    var text: String { "---\n" + lines.map { $0 + "\n" }.joined() + "---\n" }

    /// What Yams reads in the lines.
    var parsed: NoteFrontMatter? { NoteFrontMatter(text) }

    /// `key`'s value as Yams reads it (display text), nil when absent or the YAML does not parse.
    func value(_ key: String) -> String? { parsed?.value(key) }

    /// `tags:` as Yams reads it (a list or a string), a leading `#` dropped.
    var tags: [String] { parsed?.tags ?? [] }

    var pinned: Bool { parsed?.pinned ?? false }

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
}

/// The command line's side of ``FrontMatterTags``, the one rule that keeps a note's front
/// matter and its club tags agreeing: `put` (one file, `-`, `--agent`, `-r`), `cp` and `restore`
/// call it once the note is in the club (`new`, `edit` and `today` go through the outbox, which
/// calls it; `import` calls it itself).
enum FrontMatterNotes {
    /// The text of the local file `file`, uploaded as `name`, when that is a note (at most
    /// ``FrontMatterTags/largestNoteRead``) whose front matter has something to say of tags;
    /// nil otherwise, and then nothing is asked of the server.
    static func taggedText(_ file: URL, name: String) -> String? {
        guard FrontMatterTags.isNote(name),
              let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int), Int64(size) <= FrontMatterTags.largestNoteRead,
              let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let wanted = FrontMatterTags.wanted(in: text), !wanted.tags.isEmpty || !wanted.refused.isEmpty || wanted.unreadable != nil else {
            return nil
        }
        return text
    }

    /// Adds the tags `text`'s front matter names to the note at `path` and says, a line each,
    /// what was left out. False, said once, when the store keeps no tags (a WebDAV server
    /// without dead properties): the note is in the club all the same.
    @discardableResult
    static func adopt(_ text: String, at path: String, store: any RemoteStore) async throws(RemoteError) -> Bool {
        let adopted: FrontMatterTags.Adopted
        do throws(RemoteError) {
            adopted = try await FrontMatterTags.adopt(text, at: path, store: store)
        } catch .notSupported {
            say("this remote keeps no tags: the tags and pin in the front matter of \(path) were left out")
            return false
        }
        for line in adopted.refused { say(line) }
        return true
    }

    /// ``adopt(_:at:store:)`` for a note the server wrote itself (a copy, a revision restored),
    /// its text read first; nothing for a file that is no note.
    static func adoptWritten(_ entry: RemoteEntry, store: any RemoteStore) async throws(RemoteError) {
        guard FrontMatterTags.isNote(entry.name), store is any TaggingStore else { return }
        do throws(RemoteError) {
            for line in try await FrontMatterTags.adoptWritten(entry, store: store).refused { say(line) }
        } catch .notSupported {
            say("this remote keeps no tags: the tags and pin in the front matter of \(entry.path) were left out")
        }
    }
}
