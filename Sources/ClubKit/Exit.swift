import Foundation
import Remote

/// Every exit status byteclub's commands end with, in one place: docs/cli.md's table lists
/// them, and a test reads that table against this enum.
///
/// As grep, curl and the BSD sysexits: 0 is done, 1 is "nothing found" (a search without a
/// hit), 64 is a command line that cannot be run. A script branches on these, so a failure the
/// network did not cause is never 6: a missing path is 3, a taken name 4, a refused token 5.
public enum Exit: Int32, CaseIterable, Sendable {
    case ok = 0
    /// `search` found nothing (as grep); `transfers --wait` when a transfer failed.
    case noMatch = 1
    /// The config file (`config.toml`) has a problem; its message says which line.
    case config = 2
    /// The path (or revision, or account) does not exist.
    case notFound = 3
    /// A name taken, a change made meanwhile, a folder where a file is expected (or the
    /// reverse), or a delete of what changes queued in the outbox still write into.
    case conflict = 4
    /// The token was refused (or the login is gone), or this member may not make the change (a
    /// reader's write, a write by a member removed from an encrypted club).
    case unauthorized = 5
    /// The network or the server failed: trying again later may work.
    case network = 6
    /// The command line: an unknown command or option, a bad value, a malformed URL.
    case usage = 64
    /// `outbox --send` left changes waiting (EX_TEMPFAIL): the club unreachable, or another sender.
    case deferred = 75
    /// Ctrl-C (128 + SIGINT), whatever the command was doing.
    case interrupted = 130

    /// The status for a failed remote operation.
    public static func of(_ error: RemoteError) -> Exit {
        switch error {
        case .notFound: return .notFound
        case .conflict, .waiting: return .conflict
        case .unauthorized, .forbidden: return .unauthorized
        case .malformedPath: return .usage
        case .network, .stalled, .gateway, .rateLimited, .insufficientSpace, .cursorReset: return .network
        case .server(let status, let detail): return FolderKindError(detail) != nil ? .conflict : (status == 401 ? .unauthorized : .network)
        case .cancelled: return .interrupted
        case .local, .notSupported: return .noMatch
        }
    }

    /// The status for a file on this machine the system would not open (its `errno`): a missing
    /// one is not found, as a missing club path is; a folder where a file is wanted (or the
    /// reverse) is the conflict a club's folder fetched as a file is.
    public static func of(errno code: Int32) -> Exit {
        switch code {
        case ENOENT, ENOTDIR: return .notFound
        case EISDIR: return .conflict
        default: return .noMatch
        }
    }
}

/// Why a file or folder on this machine cannot be sent (`put`, `put -r`, `put --agent`): the
/// status and the sentence every command gives it, in the words a club's path gets for the same
/// mistake (``FolderKindError``).
public struct LocalFileProblem: Error, Equatable, Sendable {
    public let exit: Exit
    public let message: String

    /// Why the file at `path` cannot be read, or nil when it can.
    public static func reading(_ path: String) -> LocalFileProblem? {
        var info = stat()
        guard stat(path, &info) == 0 else { return failed(path) }
        if (info.st_mode & S_IFMT) == S_IFDIR { return LocalFileProblem(exit: .conflict, message: FolderKindError.notFile.message(local: path)) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return failed(path) }
        close(fd)
        return nil
    }

    /// Why `path` cannot be read as a folder (`put -r`), or nil when it can.
    public static func readingFolder(_ path: String) -> LocalFileProblem? {
        var info = stat()
        guard stat(path, &info) == 0 else { return failed(path) }
        if (info.st_mode & S_IFMT) != S_IFDIR { return LocalFileProblem(exit: .conflict, message: FolderKindError.notFolder.message(local: path)) }
        return nil
    }

    /// Why the folder at `path` could not be made for a download (a file in its place: 4).
    public static func making(_ path: String, because error: any Error) -> LocalFileProblem {
        var info = stat()
        var at = path
        // The nearest part of the path that is there says why: a file where a folder must be.
        while stat(at, &info) != 0, at.count > 1 { at = (at as NSString).deletingLastPathComponent }
        if (info.st_mode & S_IFMT) != S_IFDIR {
            return LocalFileProblem(exit: .conflict, message: "cannot make the folder \(path): \(at) is a file, not a folder")
        }
        return LocalFileProblem(exit: .noMatch, message: "cannot make the folder \(path): \(error.localizedDescription)")
    }

    /// The system's reason for the last call's failure (`errno`), as the sentence
    /// `cannot read PATH: No such file or directory`.
    private static func failed(_ path: String) -> LocalFileProblem {
        let code = errno
        return LocalFileProblem(exit: Exit.of(errno: code), message: "cannot read \(path): \(String(cString: strerror(code)))")
    }
}

/// Dropbox's `not_file` and `not_folder` (a folder where a file was asked for, or the
/// reverse), which Remote passes on as a 409 with the error summary: said as a sentence.
public enum FolderKindError {
    case notFile, notFolder

    public init?(_ detail: String) {
        let tags = detail.split(separator: "/")
        if tags.contains("not_file") { self = .notFile } else if tags.contains("not_folder") { self = .notFolder } else { return nil }
    }

    public func message(_ path: String) -> String {
        let shown = path.isEmpty ? "/" : path
        switch self {
        case .notFile: return "\(shown) is a folder, not a file (byteclub ls lists it; byteclub get -r downloads all of it)"
        case .notFolder: return "\(shown) is a file, not a folder (byteclub get downloads it)"
        }
    }

    /// The same mistake with a file or folder on this machine, as `put` meets it.
    public func message(local path: String) -> String {
        switch self {
        case .notFile: return "\(path) is a folder, not a file (byteclub put -r uploads all of it)"
        case .notFolder: return "\(path) is a file, not a folder (byteclub put without -r uploads it)"
        }
    }
}

