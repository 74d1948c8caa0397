import Foundation
import Remote

/// Files the server writes itself from another, for `restore` and `cp`: a revision brought
/// back, a copy. Each is a note of its own afterwards (tags stay with the file copied), so its
/// front matter's tags become its club tags (``FrontMatterNotes``); what that left out is
/// answered as lines to say.
public enum ServerCopies {
    /// Brings back revision `rev` of `path` as its new revision.
    public static func restore(_ path: String, rev: String, store: any RemoteStore) async throws(RemoteError) -> (entry: RemoteEntry, said: [String]) {
        let entry = try await store.restore(path, rev: rev)
        return (entry, try await FrontMatterNotes.adoption(ofWritten: entry, store: store).lines)
    }

    /// Copies `from` to `to`, or into the folder `to` under its own name when `keepingName`
    /// (`cp a.md archive/`). Never replaces: a name taken is `RemoteError.conflict` unless
    /// `autorename` picks a free one.
    public static func copy(_ from: String, to: String, keepingName: Bool, autorename: Bool,
                            store: any RemoteStore) async throws(RemoteError) -> (entry: RemoteEntry, said: [String]) {
        let target = keepingName ? to + "/" + (from.split(separator: "/").last.map(String.init) ?? "") : to
        let entry = try await store.copy(from: from, to: target, autorename: autorename)
        return (entry, try await FrontMatterNotes.adoption(ofWritten: entry, store: store).lines)
    }
}
