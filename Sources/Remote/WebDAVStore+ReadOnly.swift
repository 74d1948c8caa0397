import Foundation
import Transfer

/// A server that lets no one write (`rclone serve webdav --read-only`, a share mounted
/// read-only) refuses each write in its own way: rclone answers a PUT or LOCK with 500, a DELETE
/// with 405, a MOVE or COPY with 403, and the commands said a network error (exit 6, "try later")
/// for some and a refusal for others. A refused write of the kinds a read-only server gives is
/// checked once with a write of nothing: a hidden folder made beside it (and deleted at once when
/// the server takes it). When that is refused too, the remote is read-only, said in one sentence
/// and refused as a reader's write is (exit 5, never queued or tried again); when it is taken,
/// the refusal was about that one path and stays as the server gave it (issue 69).
extension WebDAVStore {
    /// `error`, or "This remote is read-only" when the server refuses changes beside `path` too.
    /// `makingFolders`: the write makes the folders above `path`, so a folder still missing
    /// after it is a refusal too (a read-only server answers MKCOL 405, which reads as "there").
    func readOnlyOr(_ error: RemoteError, writing path: String, makingFolders: Bool = false) async -> RemoteError {
        var missing = false
        if makingFolders, case .notFound = error { missing = true }
        guard Self.mayMeanReadOnly(error) || missing, !Task.isCancelled else { return error }
        guard let folder = await refusedFolder(near: path) else { return error }
        return .forbidden(Self.readOnlySentence(folder: folder, path: path))
    }

    /// The words for a read-only remote, the sentence docs/cli.md and docs/webdav.md give.
    static func readOnlySentence(folder: String, path: String) -> String {
        "This remote is read-only: the WebDAV server lets this user change nothing in \(folder.isEmpty ? "/" : folder) (it refused \(path.isEmpty ? "/" : path))"
    }

    /// The answers a read-only server gives a write: a refusal (403), a method it will not run
    /// here (405, 501), or a failure of its own (500). A conflict, a missing path, a wrong
    /// password or a network failure means something else.
    static func mayMeanReadOnly(_ error: RemoteError) -> Bool {
        switch error {
        case .forbidden: return true
        case .server(let status, _): return [403, 405, 500, 501].contains(status)
        default: return false
        }
    }

    /// The folder at or above `path`'s that refuses a new hidden folder, or nil when one is made
    /// (deleted at once) or the server's answer says nothing about writing (a network failure).
    func refusedFolder(near path: String) async -> String? {
        var folder = Self.parent(of: path)
        while true {
            guard let probe = try? url(folder + "/" + Self.temporaryName(), folder: true) else { return nil }
            let reply = await exchange("MKCOL", probe)
            guard reply.error != nil else {
                let removed = await exchange("DELETE", probe)
                if removed.error != nil { logger.info("could not remove the write check \(probe.path): HTTP \(removed.status)") }
                return nil
            }
            switch reply.status {
            case 403, 405, 500, 501:
                return folder
            case 404, 409:
                // A folder not there yet (a put into a new folder): ask the one above it.
                guard !folder.isEmpty else { return nil }
                folder = Self.parent(of: folder)
            default:
                return nil
            }
        }
    }
}
