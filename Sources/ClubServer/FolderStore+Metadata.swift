import DropboxWire
import Foundation

/// Metadata from `stat`: ids, revs and cached content hashes; files opened with theirs.
extension FolderStore {
    func metadata(_ path: DropboxPath) throws(APIError) -> Metadata {
        let resolved = try resolve(path)
        guard resolved.exists else { throw .notFound }
        return try metadata(resolved)
    }

    func metadata(_ resolved: Resolved) throws(APIError) -> Metadata {
        var info = stat()
        guard stat(resolved.host, &info) == 0 else { throw .notFound }
        return try metadata(resolved, info: info)
    }

    /// Metadata from a given `stat` (e.g. an `fstat` of an open file).
    func metadata(_ resolved: Resolved, info: stat) throws(APIError) -> Metadata {
        if resolved.path.isRoot {
            return .folder(FolderMetadata(name: "", id: "id:root", pathLower: "", pathDisplay: ""))
        }
        return try metadata(name: resolved.path.name, pathLower: resolved.path.lower, pathDisplay: resolved.path.display,
                            host: resolved.host, info: info)
    }

    /// A walked entry's metadata, from the names the walk keeps: no path joined, split or
    /// lowered again (joining them was a tenth of a first listing of 100,000 files).
    func metadata(_ entry: WalkedEntry) throws(APIError) -> Metadata {
        try metadata(name: entry.name, pathLower: entry.lower, pathDisplay: entry.folder.display + "/" + entry.name,
                     host: entry.folder.host + "/" + entry.name, info: entry.info)
    }

    /// `host` is read only for a content hash not known yet.
    private func metadata(name: String, pathLower: String, pathDisplay: String, host: @autoclosure () -> String,
                          info: stat) throws(APIError) -> Metadata {
        let id = identifier(for: pathLower)
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return .folder(FolderMetadata(name: name, id: id, pathLower: pathLower, pathDisplay: pathDisplay))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notFound }
        let key = FileKey(info)
        let hash = hashes.hash(for: key) { try? ContentHasher.hash(fileAt: host()) }
        let rev = key.rev
        return .file(FileMetadata(
            name: name, id: id, pathLower: pathLower, pathDisplay: pathDisplay,
            clientModified: Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)),
            serverModified: Date(timeIntervalSince1970: TimeInterval(info.st_ctim.tv_sec)),
            rev: rev, size: Int64(info.st_size), contentHash: hash, sharingInfo: sharingInfo(id: id, rev: rev, changed: key.ctimeNanoseconds)))
    }

    /// Opens a file for reading together with the metadata of exactly what was opened, so a
    /// concurrent replace cannot mix one version's metadata with another's bytes.
    func openForReading(_ path: DropboxPath) throws(APIError) -> OpenedFile {
        let resolved = try resolve(path)
        guard resolved.exists else { throw .notFound }
        guard !resolved.isDirectory else { throw .notFile }
        let (handle, info) = try OpenedFile.open(resolved.host)
        guard case .file(let file) = try metadata(resolved, info: info) else { throw .notFile }
        return OpenedFile(file: file, handle: handle)
    }

    // MARK: - What share links ask: where a file id is now, and which ids a delete ends

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
