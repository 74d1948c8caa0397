import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What byteclub keeps for itself on this machine is private: every file 0600 and every folder
/// 0700, whatever the umask. Indexes (with SQLite's `-wal` and `-shm`), caches, drafts, live
/// journals, the outbox, keys, tokens and logs under the XDG folders, the agent's folder, and a
/// served club's `.byteclub/` are all made here or by ``DurableFile`` (which makes its folders
/// here). A club's own notes and photos are not byteclub's: they keep the umask, as files any
/// other tool writes there do.
///
/// The umask applies to `mkdir` and `open`, so a folder is made 0700 and then set to 0700, and
/// a file opened here is set to 0600 (fchmod) when it is anything else: one an older byteclub
/// made under the umask too.
public enum PrivateFiles {
    /// A private file's mode.
    public static let fileMode: mode_t = 0o600
    /// A private folder's mode.
    public static let folderMode: mode_t = 0o700

    /// Makes `path` a private folder: each missing folder on the way is made 0700, and `path`
    /// itself, when it was there already and is ours (not a link, not another user's), is set
    /// to 0700. Folders above `path` that were there already are left as they are (`~/.cache`
    /// is the user's).
    public static func folder(_ path: String) throws(DurableFileError) {
        var missing: [String] = []
        var current = path
        while current.count > 1, current.hasSuffix("/") { current.removeLast() }
        let leaf = current
        while !current.isEmpty, current != "/" {
            var info = stat()
            if stat(current, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else { throw DurableFileError(path: current, step: "create the folder", code: ENOTDIR) }
                break
            }
            guard errno == ENOENT else { throw DurableFileError(path: current, step: "create the folder", code: errno) }
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        guard !missing.isEmpty else {
            protect(leaf)
            return
        }
        for made in missing.reversed() {
            if mkdir(made, folderMode) != 0 {
                // Made meanwhile by another process (or thread): ours to use if it is a folder.
                guard errno == EEXIST else { throw DurableFileError(path: made, step: "create the folder", code: errno) }
                protect(made)
                continue
            }
            // mkdir's mode is less the umask: set it whole.
            _ = chmod(made, folderMode)
        }
    }

    /// Makes the folder at `url` private; see ``folder(_:)-(String)``.
    public static func folder(_ url: URL) throws(DurableFileError) { try folder(url.path) }

    /// Opens the file at `path` with `flags` (`O_CREAT` makes it 0600; `O_CLOEXEC` is added),
    /// and sets a file opened for writing to 0600 if it is not (one an older byteclub made under
    /// the umask). Answers the descriptor, or -1 with `errno` saying why, as `open` does.
    public static func open(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Glibc)
        let fd = Glibc.open(path, flags | O_CLOEXEC, fileMode)
        #else
        let fd = Darwin.open(path, flags | O_CLOEXEC, fileMode)
        #endif
        guard fd >= 0 else { return fd }
        if flags & (O_WRONLY | O_RDWR) != 0 { makePrivate(fd) }
        return fd
    }

    /// Makes sure a private file is at `path`: made empty (0600) when missing, set to 0600 when
    /// it is there with another mode. For a file another library then opens by name (SQLite's
    /// database, whose `-wal` and `-shm` it makes with the database's mode).
    public static func file(_ path: String) throws(DurableFileError) {
        let fd = open(path, O_WRONLY | O_CREAT)
        guard fd >= 0 else { throw DurableFileError(path: path, step: "create", code: errno) }
        close(fd)
    }

    /// Sets the file at `path` to 0600, or the folder to 0700, if it is there with another mode
    /// (an older byteclub's, made under the umask); nothing is made, and a link or another
    /// user's file is left alone.
    public static func protect(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_uid == getuid() else { return }
        switch info.st_mode & S_IFMT {
        case S_IFREG where info.st_mode & 0o777 != fileMode: _ = chmod(path, fileMode)
        case S_IFDIR where info.st_mode & 0o777 != folderMode: _ = chmod(path, folderMode)
        default: break
        }
    }

    /// Sets an open file to 0600 unless it is already (a regular file only).
    private static func makePrivate(_ fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o777 != fileMode else { return }
        _ = fchmod(fd, fileMode)
    }

}
