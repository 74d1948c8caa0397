import DropboxWire
import Foundation

/// Metadata from `stat`: ids, revs and cached content hashes.
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
        let pathLower = resolved.path.lower
        let id = identifier(for: pathLower)
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return .folder(FolderMetadata(name: resolved.path.name, id: id, pathLower: pathLower, pathDisplay: resolved.path.display))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notFound }
        let key = Self.key(info)
        let hash = hashes.hash(for: key) { try? ContentHasher.hash(fileAt: resolved.host) }
        let rev = Self.rev(key)
        return .file(FileMetadata(
            name: resolved.path.name, id: id, pathLower: pathLower, pathDisplay: resolved.path.display,
            clientModified: Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)),
            serverModified: Date(timeIntervalSince1970: TimeInterval(info.st_ctim.tv_sec)),
            rev: rev, size: Int64(info.st_size), contentHash: hash, sharingInfo: sharingInfo(id: id, rev: rev)))
    }

    static func key(_ info: stat) -> FileKey {
        // Wrapping: a time after 2262 (`touch -d 2300-01-01`, which ext4 keeps) has more
        // nanoseconds than an Int64 holds, and the plain product trapped the server's listing.
        // A key only has to tell versions apart, and wrapped values still do.
        FileKey(inode: UInt64(info.st_ino), size: Int64(info.st_size),
                ctimeNanoseconds: Int64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_ctim.tv_nsec),
                mtimeNanoseconds: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec))
    }

    /// A rev that changes with every write: each write renames a fresh inode into place, which
    /// also sets a new ctime. 16 hex digits, like Dropbox's revs.
    static func rev(_ key: FileKey) -> String {
        // SplitMix64 over the four numbers: cheap, and any change of any of them changes the rev.
        var state = key.inode
        for value in [UInt64(bitPattern: key.ctimeNanoseconds), UInt64(bitPattern: key.mtimeNanoseconds), UInt64(bitPattern: key.size)] {
            state = (state ^ value) &+ 0x9E37_79B9_7F4A_7C15
            state = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            state = (state ^ (state >> 27)) &* 0x94D0_49BB_1331_11EB
            state ^= state >> 31
        }
        let hex = String(state, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
