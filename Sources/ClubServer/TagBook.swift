import DropboxWire
import Foundation

/// The club's tags by file id (`{"id:…":["trip","pinned"]}`), as a value: what
/// `files/tags/add|get|remove` read and change, what a delete drops, and what `tags.json` holds.
/// The ``FolderStore`` actor keeps one, loads and writes it, and journals the changes
/// (FolderStore+Tags); the rules live here, with tests that need no disk.
///
/// Tags belong to the file's id, which follows it through moves and renames, so its tags do
/// too; a delete drops them, so a new file that later takes up the deleted one's id
/// (``RevisionState/reclaim(_:)``) starts untagged. They live in `.byteclub/tags.json`,
/// rewritten whole (temp file, fsync, rename) after each change: small, and never half-written.
///
/// A change is journalled as a write of the file, so `list_folder/continue` hands the file back
/// as changed (same rev) and longpolls wake: that is how other members learn of it, while the
/// answers stay Dropbox's own shapes.
struct TagBook: Equatable, Sendable {
    /// Why a change was refused, as Dropbox's `AddTagError` and `RemoveTagError` say.
    enum Refusal: Error, Equatable {
        /// `too_many_tags`: the item has ``TagText/maximumPerItem`` already.
        case tooMany
        /// `tag_not_present`.
        case notPresent
    }

    /// An item's tags, in the order they were added; an item with none has no entry.
    private(set) var byID: [String: [String]]

    init(_ byID: [String: [String]] = [:]) {
        self.byID = byID
    }

    /// The book `tags.json`'s bytes hold, keeping only what a tag call could store now: a
    /// hand-edited file cannot smuggle in more, and a tag an older server stored unfolded
    /// (`i` + U+0307 for `İ`) is folded, not lost. Missing or unreadable: no tags.
    init(stored data: Data?) {
        var loaded: [String: [String]] = [:]
        if let data, let stored = try? JSONDecoder().decode([String: [String]].self, from: data) {
            for (id, tags) in stored {
                var valid: [String] = []
                for tag in tags {
                    guard let folded = try? TagText.normalised(tag), !valid.contains(folded) else { continue }
                    valid.append(folded)
                }
                if !valid.isEmpty { loaded[id] = Array(valid.prefix(TagText.maximumPerItem)) }
            }
        }
        byID = loaded
    }

    func tags(of id: String) -> [String] { byID[id] ?? [] }

    /// Adds a tag (already normalised) to the item `id`; false when it had it (nothing changed).
    mutating func add(_ tag: String, to id: String) throws(Refusal) -> Bool {
        var tags = byID[id] ?? []
        guard !tags.contains(tag) else { return false }
        guard tags.count < TagText.maximumPerItem else { throw .tooMany }
        tags.append(tag)
        byID[id] = tags
        return true
    }

    /// Removes a tag (already normalised) from the item `id`.
    mutating func remove(_ tag: String, from id: String) throws(Refusal) {
        guard var tags = byID[id], let at = tags.firstIndex(of: tag) else { throw .notPresent }
        tags.remove(at: at)
        byID[id] = tags.isEmpty ? nil : tags
    }

    /// Drops the tags of `ids` (a delete's); whether any of them had tags.
    mutating func drop(_ ids: some Sequence<String>) -> Bool {
        var changed = false
        for id in ids where byID.removeValue(forKey: id) != nil { changed = true }
        return changed
    }
}
