import DropboxWire
import Foundation

/// What share links ask of the folder: where a file id is now, and which ids a delete ends.
extension FolderStore {
    /// The path of the file or folder with this id now, or nil if there is none (deleted).
    func path(forID id: String) -> DropboxPath? {
        guard let pathLower = identifiers.path(of: id) else { return nil }
        return try? DropboxPath.checked(pathLower)
    }

    /// The ids of `path` and of everything under it.
    func identifiers(under path: DropboxPath) -> Set<String> {
        let prefix = path.lower
        return Set(identifiers.ids(under: prefix))
    }
}
