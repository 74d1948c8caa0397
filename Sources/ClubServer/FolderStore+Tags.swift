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

    /// Adds each entry's tags (already normalised) to its item, as ``addTag(_:to:)`` does one
    /// at a time, with one write of `tags.json` and one journal append for all of them: an
    /// import's thousand notes were a thousand rewrites of the whole file, each flushed, the
    /// last ones as slow as the file was long. Each answer at its entry's position; an entry
    /// refused (`path/not_found`, `too_many_tags`) adds none of its tags, the others go on.
    func addTags(_ entries: [(path: DropboxPath, tags: [String])]) -> [Result<Void, APIError>] {
        var results = [Result<Void, APIError>](repeating: .success(()), count: entries.count)
        var items: [(position: Int, id: String, display: String)] = []
        for (position, entry) in entries.enumerated() {
            do throws(APIError) {
                let (id, display) = try taggedItem(entry.path)
                items.append((position, id, display))
            } catch {
                results[position] = .failure(error)
            }
        }
        var changedItems: [String] = []
        do {
            _ = try tagFile.change { (book: inout TagBook) -> Bool in
                changedItems = []
                var changed = false
                for item in items {
                    // The entry's tags all or none: check the limit before adding any.
                    let tags = entries[item.position].tags
                    let current = book.tags(of: item.id)
                    let fresh = tags.reduce(into: [String]()) { fresh, tag in
                        if !current.contains(tag), !fresh.contains(tag) { fresh.append(tag) }
                    }
                    guard current.count + fresh.count <= TagText.maximumPerItem else {
                        results[item.position] = .failure(.endpoint([.tooManyTags]))
                        continue
                    }
                    for tag in fresh { _ = try? book.add(tag, to: item.id) }
                    if !fresh.isEmpty {
                        changed = true
                        changedItems.append(item.display)
                    }
                }
                return changed
            }
        } catch {
            logger.error("tags: cannot write \(tagFile.path): \(error)")
            for item in items { results[item.position] = .failure(.endpoint([.path, .noWritePermission])) }
            return results
        }
        guard !changedItems.isEmpty else { return results }
        flushIdentifiers()
        journal.append(changedItems.map { (.written, $0) })
        return results
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
