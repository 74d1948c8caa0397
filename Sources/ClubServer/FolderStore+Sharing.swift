import Foundation

/// What share links ask of the folder: where a file id is now, and which ids a delete ends.
extension FolderStore {
    /// The path of the file or folder with this id now, or nil if there is none (deleted).
    func path(forID id: String) -> DropboxPath? {
        guard let pathLower = ids.first(where: { $0.value == id })?.key else { return nil }
        return try? DropboxPath.parse(pathLower)
    }

    /// The ids of `path` and of everything under it.
    func identifiers(under path: DropboxPath) -> Set<String> {
        let prefix = path.lower
        return Set(ids.filter { $0.key == prefix || $0.key.hasPrefix(prefix + "/") }.values)
    }
}
