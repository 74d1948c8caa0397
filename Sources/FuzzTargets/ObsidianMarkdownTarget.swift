import Foundation
import Markdown

/// A note as Obsidian users write it, from any member or imported vault: the rewriting of its
/// comments, math, highlights and block ids (the rendered view's ObsidianSource), callouts,
/// embeds (of the note itself, a section of it, and a loop through a second note, so the depth
/// limit and loop guard run on every input), the places links name (``NoteAnchors``) and the
/// inline tags (``InlineTags``). None may trap, run away, or name a row's note line outside
/// the note.
enum ObsidianMarkdownTarget {
    static func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        // By LF bytes, as the editor counts lines ("\r\n" is one Character, never split at "\n").
        let lineCount = text.utf8.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let other = "![[Fuzzed]] and ![[Fuzzed#" + (NoteAnchors.headings(in: text).first?.text ?? "x") + "]]"
        var options = RenderOptions()
        options.path = "/byteclub/Fuzzed.md"
        options.embeds = { link in
            switch link.destination.lowercased() {
            case "fuzzed": EmbeddedNote(path: "/byteclub/Fuzzed.md", text: text)
            case "other": EmbeddedNote(path: "/byteclub/Other.md", text: other)
            default: nil
            }
        }
        let laidOut = text + "\n\n![[Other]]"
        for width in [8, 41] {
            let note = RenderedNote.layout(laidOut, width: width, options: options)
            FuzzCheck.expect(note.lines.allSatisfy { $0.sourceLine >= 0 && $0.sourceLine < lineCount + 2 }, "a row of a line outside the note")
            FuzzCheck.expect(note.lines.allSatisfy { line in line.runs.allSatisfy { $0.link.map { note.links.indices.contains($0) } ?? true } },
                             "a run pointing at no link")
            FuzzCheck.expect(note.pictures.allSatisfy { note.lines.indices.contains($0.line) || $0.rows == 0 }, "a picture outside the rows")
        }
        for tag in InlineTags.scan(text) {
            FuzzCheck.expect(!tag.isEmpty && !tag.hasPrefix("/") && !tag.hasSuffix("/"), "a tag \(tag) with an empty part at an end")
            FuzzCheck.expect(!tag.contains(" ") && !tag.contains("\n"), "a tag across a space")
        }
        for link in NoteLinks.scan(text) where link.fragment != nil {
            if let line = NoteAnchors.line(of: link.fragment ?? "", in: text) {
                FuzzCheck.expect(line >= 0 && line < lineCount, "a place on line \(line) of \(lineCount)")
            }
            _ = NoteAnchors.section(link.fragment ?? "", in: text)
        }
    }
}
