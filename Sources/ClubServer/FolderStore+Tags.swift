import DropboxWire
import Foundation

/// Tags (`files/tags/add|get|remove`) on the actor: ``TagBook`` has the rules and says where
/// they live; this extension loads, writes and journals it.
extension FolderStore {
    /// An item's tags, in the order they were added.
    func tags(of path: DropboxPath) throws(APIError) -> [String] {
        let id = try taggedItem(path).id
        return loadedTags().tags(of: id)
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
        guard loadedTags().byID.keys.contains(where: { ids.contains($0) }) else { return }
        MetaLock.holding(metaDirectory) {
            // What another server over the folder wrote since is kept: read again under the lock.
            var book = loadedTags()
            guard book.drop(ids) else { return }
            // Losing this write would only leave tags on an id no file has any longer.
            try? writeTags(book)
            tagBook = book
        }
    }

    // MARK: - Storage

    private var tagsFile: String { metaDirectory + "/tags.json" }

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

    /// The tags as `tags.json` holds them now: the book in memory while the file is as this
    /// server last read or wrote it, else read again. Two servers may serve one folder (the
    /// app's embedded one and a command's, `byteclub tag` on the embedded club): a tag the other
    /// wrote is answered here at once, not only after a restart.
    private func loadedTags() -> TagBook {
        var info = stat()
        let stamp = stat(tagsFile, &info) == 0 ? FileKey(info) : nil
        if let tagBook, stamp == tagBookStamp { return tagBook }
        let loaded = TagBook(stored: FileManager.default.contents(atPath: tagsFile))
        tagBook = loaded
        tagBookStamp = stamp
        return loaded
    }

    /// Changes the tags of the item at `path` (`change` says whether it changed anything), then
    /// writes and journals them. The book is read, changed and written under ``MetaLock``, so a
    /// change another server over the folder made meanwhile is kept, never written over.
    private func changeTags(of path: DropboxPath, _ change: (inout TagBook, String) throws(TagBook.Refusal) -> Bool) throws(APIError) {
        let (id, display) = try taggedItem(path)
        let outcome = MetaLock.holding(metaDirectory) { () -> Result<Bool, APIError> in
            var book = loadedTags()
            do throws(TagBook.Refusal) {
                guard try change(&book, id) else { return .success(false) }
            } catch {
                return .failure(.endpoint([error == .tooMany ? .tooManyTags : .tagNotPresent]))
            }
            do {
                try writeTags(book)
            } catch {
                logger.error("tags: cannot write \(tagsFile): \(error)")
                return .failure(.endpoint([.path, .noWritePermission]))
            }
            tagBook = book
            return .success(true)
        }
        switch outcome {
        case .failure(let error): throw error
        case .success(let changed): guard changed else { return }
        }
        flushIdentifiers()
        journal.append([(.written, display)])
    }

    /// Writes the book whole and notes the file's stamp, so the next read knows it as ours.
    private func writeTags(_ book: TagBook) throws {
        try FolderFiles.writeJSONDurably(book.byID, to: tagsFile, temporaryDirectory: tempDirectory)
        var info = stat()
        tagBookStamp = stat(tagsFile, &info) == 0 ? FileKey(info) : nil
    }
}
