import DropboxWire
import Foundation

/// Tags (`files/tags/add|get|remove`) on the actor: ``TagBook`` has the rules, ``TagFile`` keeps
/// them on disk; this extension finds the item and journals the change.
extension FolderStore {
    /// An item's tags, in the order they were added.
    func tags(of path: DropboxPath) throws(APIError) -> [String] {
        let id = try taggedItem(path).id
        return tagFile.loaded().tags(of: id)
    }

    /// Adds a tag (already normalised); adding one the item has changes nothing.
    func addTag(_ tag: String, to path: DropboxPath) throws(APIError) {
        try changeTags(of: path) { book, id throws(TagBook.Refusal) in try book.add(tag, to: id) }
    }

    /// Removes a tag (already normalised), or answers `tag_not_present`.
    func removeTag(_ tag: String, from path: DropboxPath) throws(APIError) {
        try changeTags(of: path) { book, id throws(TagBook.Refusal) in
            try book.remove(tag, from: id)
            return true
        }
    }

    /// Before a delete removes the ids under `prefix` (`path_lower`): their tags go with them.
    func dropTags(under prefix: String) {
        let ids = Set(identifiers.ids(under: prefix))
        guard tagFile.loaded().byID.keys.contains(where: { ids.contains($0) }) else { return }
        // Losing this write would only leave tags on an id no file has any longer.
        _ = try? tagFile.change { book in book.drop(ids) }
    }

    // MARK: - The item

    /// The item a tag call names, with its id and spelling; `path/not_found` (and the other
    /// lookup errors) as Dropbox's `BaseTagError.path` says.
    private func taggedItem(_ path: DropboxPath) throws(APIError) -> (id: String, display: String) {
        guard !path.isRoot else { throw .notFound }
        let resolved = try resolve(path)
        guard resolved.exists else { throw .notFound }
        // Only what listings show carries tags: a FIFO, a socket or a device is not_found, as
        // get_metadata answers for it.
        var info = stat()
        let kind = stat(resolved.host, &info) == 0 ? info.st_mode & S_IFMT : 0
        guard kind == S_IFREG || kind == S_IFDIR else { throw .notFound }
        return (identifier(for: resolved.path.lower), resolved.path.display)
    }

    /// Changes the tags of the item at `path` (`change` says whether it changed anything), then
    /// journals them. ``TagFile`` reads, changes and writes the book under ``MetaLock``, so a
    /// change another server over the folder made meanwhile is kept, never written over.
    private func changeTags(of path: DropboxPath, _ change: (inout TagBook, String) throws(TagBook.Refusal) -> Bool) throws(APIError) {
        let (id, display) = try taggedItem(path)
        let changed: Bool
        do {
            changed = try tagFile.change { book throws(TagBook.Refusal) in try change(&book, id) }
        } catch let refusal as TagBook.Refusal {
            throw .endpoint([refusal == .tooMany ? .tooManyTags : .tagNotPresent])
        } catch {
            logger.error("tags: cannot write \(tagFile.path): \(error)")
            throw .endpoint([.path, .noWritePermission])
        }
        guard changed else { return }
        flushIdentifiers()
        journal.append([(.written, display)])
    }
}
