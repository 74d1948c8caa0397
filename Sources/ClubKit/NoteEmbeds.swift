import Foundation
import Markdown
import Remote

/// `cat --render`: the notes a note embeds (`![[Note]]`, `![[Note#Heading]]`), read from the
/// club before the layout (which asks for them while it lays out, and cannot wait). Each embed's
/// note is found by the club's link rules (``NoteResolver``, over every note at any depth), and
/// embeds inside those as deep as the layout draws them. A note that cannot be read is drawn
/// as a link to it.
public enum NoteEmbeds {
    /// By the lower-case destination each embed writes; empty when `text` embeds no note.
    public static func notes(of text: String, at path: String, store: any RemoteStore, root: String) async -> [String: EmbeddedNote] {
        guard text.contains("![[") else { return [:] }
        let wanted = { (text: String) in NoteLinks.scan(text).filter { $0.isImage && $0.syntax == .wiki && !$0.destination.isEmpty } }
        guard !wanted(text).isEmpty, let listed = try? await store.listRecursively(root) else { return [:] }
        let resolver = NoteResolver(entries: listed.filter { $0.kind == .file }, root: root)
        var found: [String: EmbeddedNote] = [:]
        var texts = [(text: text, path: path)]
        for _ in 0...RenderOptions().embedDepth {
            var next: [(text: String, path: String)] = []
            for (text, from) in texts {
                let folder = (from as NSString).deletingLastPathComponent
                for link in wanted(text) where found[link.destination.lowercased()] == nil {
                    let target = link.target(inFolder: folder)
                    let entry: RemoteEntry
                    switch resolver.resolve(target, from: from) {
                    case .one(let one): entry = one
                    case .several(let several): guard let first = several.first else { continue }; entry = first
                    case .none: continue
                    }
                    guard let (data, _) = try? await store.read(entry.path), let embedded = String(validating: data, as: UTF8.self) else { continue }
                    found[link.destination.lowercased()] = EmbeddedNote(path: entry.path, text: embedded)
                    next.append((embedded, entry.path))
                }
            }
            texts = next
            if texts.isEmpty { break }
        }
        return found
    }
}
