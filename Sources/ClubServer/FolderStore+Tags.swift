import DropboxWire
import Foundation

/// Tags (`files/tags/add|get|remove`), kept with the file's metadata.
///
/// Tags belong to the file's id, which follows it through moves and renames
/// (FolderStore+Operations), so its tags do too; a delete drops them, so a new file that later
/// takes up the deleted one's id (FolderStore+Revisions) starts untagged. They live in
/// `.byteclub/tags.json` (`{"id:…":["trip","pinned"]}`), rewritten whole (temp file, fsync,
/// rename) after each change: small, and never half-written.
///
/// A change is journalled as a write of the file, so `list_folder/continue` hands the file back
/// as changed (same rev) and longpolls wake: that is how other members learn of it, while the
/// answers stay Dropbox's own shapes.
extension FolderStore {
    /// An item's tags, in the order they were added.
    func tags(of path: DropboxPath) throws(APIError) -> [String] {
        let id = try taggedItem(path).id
        return loadedTags()[id] ?? []
    }

    /// Adds a tag (already normalised); adding one the item has changes nothing.
    func addTag(_ tag: String, to path: DropboxPath) throws(APIError) {
        let (id, display) = try taggedItem(path)
        var index = loadedTags()
        var tags = index[id] ?? []
        guard !tags.contains(tag) else { return }
        guard tags.count < TagText.maximumPerItem else { throw .endpoint([.tooManyTags]) }
        tags.append(tag)
        index[id] = tags
        try commitTags(index, changed: display)
    }

    /// Removes a tag (already normalised), or answers `tag_not_present`.
    func removeTag(_ tag: String, from path: DropboxPath) throws(APIError) {
        let (id, display) = try taggedItem(path)
        var index = loadedTags()
        guard var tags = index[id], let at = tags.firstIndex(of: tag) else { throw .endpoint([.tagNotPresent]) }
        tags.remove(at: at)
        index[id] = tags.isEmpty ? nil : tags
        try commitTags(index, changed: display)
    }

    /// Before a delete removes the ids under `prefix` (`path_lower`): their tags go with them.
    func dropTags(under prefix: String) {
        var index = loadedTags()
        let gone = identifiers.ids(under: prefix)
        guard gone.contains(where: { index[$0] != nil }) else { return }
        for id in gone { index[id] = nil }
        // Losing this write would only leave tags on an id no file has any longer.
        try? writeTags(index)
        tagIndex = index
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

    private func loadedTags() -> [String: [String]] {
        if let tagIndex { return tagIndex }
        var loaded: [String: [String]] = [:]
        if let data = FileManager.default.contents(atPath: tagsFile),
           let stored = try? JSONDecoder().decode([String: [String]].self, from: data) {
            // Only what a tag call could store now: a hand-edited file cannot smuggle in more, and
            // a tag an older server stored unfolded (`i` + U+0307 for `İ`) is folded, not lost.
            for (id, tags) in stored {
                var valid: [String] = []
                for tag in tags {
                    guard let folded = try? TagText.normalised(tag), !valid.contains(folded) else { continue }
                    valid.append(folded)
                }
                if !valid.isEmpty { loaded[id] = Array(valid.prefix(TagText.maximumPerItem)) }
            }
        }
        tagIndex = loaded
        return loaded
    }

    private func commitTags(_ index: [String: [String]], changed display: String) throws(APIError) {
        do {
            try writeTags(index)
        } catch {
            logger.error("tags: cannot write \(tagsFile): \(error)")
            throw .endpoint([.path, .noWritePermission])
        }
        tagIndex = index
        flushIdentifiers()
        journal.append([(.written, display)])
    }

    private func writeTags(_ index: [String: [String]]) throws {
        try FolderFiles.writeJSONDurably(index, to: tagsFile, temporaryDirectory: tempDirectory)
    }
}
