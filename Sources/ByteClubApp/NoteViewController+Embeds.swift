import Foundation
import Markdown
import Remote
import TerminalUI

/// The notes a note embeds (`![[Note]]`, `![[Note#Heading]]`), for the rendered view to draw
/// inside it. The layout asks for them while it lays out, so they are found before, here: each
/// embed's note by the club's link rules (``Navigator/resolver``), its text from what this
/// machine has (fetched for the view, the disk cache, the search index's copy), else fetched
/// now and drawn when it comes (``embedsVersion``). Embeds inside embeds are found the same
/// way, as deep as the layout draws them.
extension NoteViewController {
    /// By the lower-case destination each embed writes (`note title`, `folder/note.md`).
    func embeddedNotes(of session: NoteSession) -> [String: EmbeddedNote] {
        if let memo = embedsMemo, memo.key == memoKey(session) { return memo.notes }
        var found: [String: EmbeddedNote] = [:]
        // Only the lines that can hold an embed are joined and scanned: an embed is on one line,
        // and the whole text of a 1 MiB note costs ~75 ms to join and search at each edit.
        let lines = session.editor.body.lineClusters.filter(Self.mayEmbed)
        var texts = lines.isEmpty ? [] : [(text: NoteViewLayouts.join(lines[...]), path: session.entry?.path)]
        for _ in 0...RenderOptions().embedDepth {
            var next: [(text: String, path: String?)] = []
            for (text, from) in texts where text.contains("![[") {
                let folder = from.map { ($0 as NSString).deletingLastPathComponent } ?? self.folder
                for link in NoteLinks.scan(text) where link.isImage && link.syntax == .wiki && !link.destination.isEmpty {
                    let written = link.destination.lowercased()
                    guard found[written] == nil, let entry = noteEntry(link.target(inFolder: folder), from: from) else { continue }
                    if let text = embeddedText(entry) {
                        found[written] = EmbeddedNote(path: entry.path, text: text)
                        next.append((text, entry.path))
                    }
                }
            }
            texts = next
            if texts.isEmpty { break }
        }
        // What is drawn changed (a note read from the cache, a rev moved): the layout's key moves too.
        if let memo = embedsMemo, memo.notes != found { embedsVersion += 1 }
        embedsMemo = (memoKey(session), found)
        return found
    }

    /// Whether `line` has `![[` in it.
    nonisolated static func mayEmbed(_ line: [Character]) -> Bool {
        guard line.count >= 3, line.contains("!") else { return false }
        for index in line.indices.dropLast(2) where line[index] == "!" && line[index + 1] == "[" && line[index + 2] == "[" {
            return true
        }
        return false
    }

    /// What the embeds found depend on: the note's text, the notes list (a changed note has a
    /// new rev there) and the texts fetched.
    private func memoKey(_ session: NoteSession) -> String {
        "\(session.draftID)\n\(session.version)\n\(session.generation)\n\(embedsVersion)\n\(context.state.notes.version)"
    }

    /// The note a link leads to, for an embed (the first of several as near).
    private func noteEntry(_ target: NoteLinkTarget, from: String?) -> RemoteEntry? {
        switch target {
        case .note, .path:
            switch navigator.resolver.resolve(target, from: from) {
            case .one(let entry): return entry
            case .several(let entries): return entries.first
            case .none: return nil
            }
        case .photo, .web, .elsewhere, .here:
            return nil
        }
    }

    /// The text of `entry` at its rev in the notes list, as this machine has it; nil while it
    /// is fetched (once a rev): a note changed in the club is fetched again and drawn anew.
    private func embeddedText(_ entry: RemoteEntry) -> String? {
        if let kept = embedTexts[entry.pathLower], kept.rev == entry.rev { return kept.text }
        if let open = context.state.note, open.entry?.pathLower == entry.pathLower { return open.editor.body.text }
        if let cached = context.cachedNote(entry.path), cached.rev == entry.rev || entry.rev == nil { return cached.text }
        if let indexed = noteIndex.index?.indexedCopy(of: entry.path), indexed.rev == entry.rev { return indexed.text }
        fetch(entry)
        return nil
    }

    private func fetch(_ entry: RemoteEntry) {
        let path = entry.pathLower
        let key = path + "\n" + (entry.rev ?? "")
        guard !embedFetches.contains(key) else { return }
        embedFetches.insert(key)
        let store = context.store
        _ = context.perform({ () async throws(RemoteError) in try await store.read(entry.path) }) { [weak self] result in
            guard let self else { return }
            // A note that cannot be read is drawn as a link to it (asked for again at its next rev).
            // Kept under the rev the list named (the text may be newer still): not fetched again for it.
            guard case .success(let (data, _)) = result, let text = String(validating: data, as: UTF8.self) else { return }
            self.embedTexts[path] = (entry.rev, text)
            self.embedsVersion += 1
            self.context.compositor.setNeedsRedraw()
        }
    }
}
