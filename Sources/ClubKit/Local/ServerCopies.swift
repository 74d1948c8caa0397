import Foundation
import Remote

/// Files the server writes itself from another, for the app's history (`Enter` on a revision)
/// and the command line's `restore` and `cp`: a revision brought
/// back, a copy. Each is a note of its own afterwards (tags stay with the file copied), so its
/// front matter's tags become its club tags (``FrontMatterNotes``); what that left out is
/// answered as lines to say.
public enum ServerCopies {
    /// Brings back revision `rev` of `path` as its new revision.
    public static func restore(_ path: String, rev: String, store: any RemoteStore) async throws(RemoteError) -> (entry: RemoteEntry, said: [String]) {
        let entry = try await store.restore(path, rev: rev)
        return (entry, await FrontMatterNotes.linesAfterWriting(entry, store: store))
    }

    /// Copies `from` to `to`, or into the folder `to` under its own name when `keepingName`
    /// (`cp a.md archive/`). Never replaces: a name taken is `RemoteError.conflict` unless
    /// `autorename` picks a free one.
    public static func copy(_ from: String, to: String, keepingName: Bool, autorename: Bool,
                            store: any RemoteStore) async throws(RemoteError) -> (entry: RemoteEntry, said: [String]) {
        let target = keepingName ? to + "/" + (from.split(separator: "/").last.map(String.init) ?? "") : to
        let entry = try await store.copy(from: from, to: target, autorename: autorename)
        return (entry, await FrontMatterNotes.linesAfterWriting(entry, store: store))
    }
}

/// The one rule that keeps a note's front matter and its club tags agreeing (``FrontMatterTags``),
/// as the command line applies it: `put` (one file, `-`, `--agent`, `-r`), `cp` and `restore`
/// once the note is in the club (`new`, `edit` and `today` go through the outbox, which applies
/// it; `import` applies it itself). Each answers the lines to say; the shell says them.
public enum FrontMatterNotes {
    /// The text of the local file `file`, uploaded as `name`, when that is a note (at most
    /// ``FrontMatterTags/largestNoteRead``) whose front matter has something to say of tags;
    /// nil otherwise, and then nothing is asked of the server.
    public static func taggedText(_ file: URL, name: String) -> String? {
        guard FrontMatterTags.isNote(name),
              let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int), Int64(size) <= FrontMatterTags.largestNoteRead,
              let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let wanted = FrontMatterTags.wanted(in: text), !wanted.tags.isEmpty || !wanted.refused.isEmpty || wanted.unreadable != nil else {
            return nil
        }
        return text
    }

    /// What adopting a note's front matter tags came to.
    public struct Adoption: Sendable, Equatable {
        /// Whether the store keeps tags (a WebDAV server without dead properties does not).
        public var kept: Bool
        /// A line for each thing left out.
        public var lines: [String]
    }

    /// Adds the tags `text`'s front matter names to the note at `path`; a line for each tag left
    /// out, or a single line when the store keeps no tags (the note is in the club all the same).
    public static func adoption(of text: String, at path: String, store: any RemoteStore) async throws(RemoteError) -> Adoption {
        do throws(RemoteError) {
            return Adoption(kept: true, lines: try await FrontMatterTags.adopt(text, at: path, store: store).refused)
        } catch .notSupported {
            return Adoption(kept: false, lines: [keepsNoTags(path)])
        }
    }

    /// ``adoption(of:at:store:)`` for many notes at once (`put -r`'s), their tags added in a
    /// few calls (``FrontMatterTags/adoptAll(_:store:)``): the lines of all of them, in order.
    public static func adoption(of notes: [(text: String, path: String)], store: any RemoteStore) async throws(RemoteError) -> Adoption {
        do throws(RemoteError) {
            return Adoption(kept: true, lines: try await FrontMatterTags.adoptAll(notes, store: store).flatMap(\.refused))
        } catch .notSupported {
            return Adoption(kept: false, lines: [keepsNoTags(notes.first?.path ?? "")])
        }
    }

    /// ``adoption(of:at:store:)`` for a note the server wrote itself (a copy, a revision
    /// restored), its text read first; nothing for a file that is no note.
    public static func adoption(ofWritten entry: RemoteEntry, store: any RemoteStore) async throws(RemoteError) -> Adoption {
        guard FrontMatterTags.isNote(entry.name), store is any TaggingStore else { return Adoption(kept: store is any TaggingStore, lines: []) }
        do throws(RemoteError) {
            return Adoption(kept: true, lines: try await FrontMatterTags.adoptWritten(entry, store: store).refused)
        } catch .notSupported {
            return Adoption(kept: false, lines: [keepsNoTags(entry.path)])
        }
    }

    private static func keepsNoTags(_ path: String) -> String {
        "this remote keeps no tags: the tags and pin in the front matter of \(path) were left out"
    }

    /// The lines to say after the server wrote `entry` itself: its tags adopted from its front
    /// matter; a failure to read them is a line too, never a failure of what was written.
    static func linesAfterWriting(_ entry: RemoteEntry, store: any RemoteStore) async -> [String] {
        do throws(RemoteError) {
            return try await adoption(ofWritten: entry, store: store).lines
        } catch {
            return ["\(entry.path) was written; the tags in its front matter could not be read: \(error.message)"]
        }
    }
}
