import DropboxWire
import Durable
import Foundation

/// Commits of uploaded files, with write modes and autorename, and the space they need.
extension FolderStore {
    /// Moves a fully written, fsynced temp file into place, applying the write mode.
    ///
    /// The temp file lives in `.byteclub/tmp` on the same file system, so the final step is one
    /// atomic rename: readers see the old file or the new one, never a mix.
    /// - Parameter discardOnFailure: remove `temp` if the commit fails (a session's file stays,
    ///   so the client can finish it again with another commit).
    func commit(temp: String, contentHash: String, to path: DropboxPath, mode: WriteMode, autorename: Bool, clientModified: Date?, discardOnFailure: Bool) throws(APIError) -> Metadata {
        var committed = false
        defer { if discardOnFailure || committed { unlink(temp) } }
        let result = try commitChecked(temp: temp, contentHash: contentHash, to: path, mode: mode, autorename: autorename, clientModified: clientModified)
        committed = true
        return result
    }

    private func commitChecked(temp: String, contentHash: String, to path: DropboxPath, mode: WriteMode, autorename: Bool, clientModified: Date?) throws(APIError) -> Metadata {
        guard !path.isRoot else { throw .uploadPath([.malformedPath]) }
        var target = try resolveForWrite(path)
        if target.exists {
            guard !target.isDirectory else {
                if autorename { target = try freeName(near: target, suffix: nil) } else { throw .uploadPath([.conflict, .folder]) }
                return try place(temp, contentHash: contentHash, at: target, clientModified: clientModified)
            }
            let current = try metadata(target)
            guard case .file(let file) = current else { throw .uploadPath([.conflict, .file]) }
            switch mode {
            case .overwrite:
                break
            case .add:
                // Dropbox treats re-adding identical content as a no-op, not a conflict.
                if file.contentHash == contentHash { return current }
                guard autorename else { throw .uploadPath([.conflict, .file]) }
                target = try freeName(near: target, suffix: nil)
            case .update(let rev):
                if rev != file.rev {
                    if file.contentHash == contentHash { return current }
                    guard autorename else { throw .uploadPath([.conflict, .file]) }
                    target = try freeName(near: target, suffix: "conflicted copy")
                }
            }
        } else if case .update = mode {
            // Updating a rev of a file that is gone is a conflict in Dropbox's model too.
            guard autorename else { throw .uploadPath([.conflict, .file]) }
        }
        return try place(temp, contentHash: contentHash, at: target, clientModified: clientModified)
    }

    private func place(_ temp: String, contentHash: String, at target: Resolved, clientModified: Date?) throws(APIError) -> Metadata {
        try makeParents(of: target)
        // Temp files are private (0600) while they fill; the placed file gets the mode of the
        // file it replaces, or a new file's mode under the umask.
        var current = stat()
        let replaced = target.exists && stat(target.host, &current) == 0 && (current.st_mode & S_IFMT) == S_IFREG
        chmod(temp, replaced ? current.st_mode & 0o1777 : newFileMode) // never set-id bits
        if let clientModified {
            var times = [timespec(tv_sec: time(nil), tv_nsec: 0), timespec(tv_sec: Int(clientModified.timeIntervalSince1970), tv_nsec: 0)]
            times[0].tv_nsec = (1 << 30) - 2 // UTIME_OMIT: leave the access time alone
            _ = utimensat(AT_FDCWD, temp, &times, 0)
        }
        // The version being replaced goes into its history (FolderStore+Revisions).
        if replaced { retire(target) }
        do {
            try DurableFile.place(temp, at: target.host)
        } catch {
            throw error.code == ENOSPC ? .uploadPath([.insufficientSpace]) : .uploadPath([.noWritePermission])
        }
        var placed = target
        placed.exists = true
        placed.isDirectory = false
        // We hashed the body as it streamed in; no need to read the file again.
        var info = stat()
        if stat(target.host, &info) == 0 {
            hashes.record(contentHash, for: Self.key(info))
        }
        reclaimIdentifier(for: placed.path.lower)
        var result = try metadata(placed)
        // The id on disk before the history named after it: a crash in between would give the
        // file a new id at the next start and leave this history to no file (make torture).
        flushIdentifiers()
        if case .file(var file) = result {
            recordCommit(file, at: placed.host)
            file.sharingInfo = sharingInfo(id: file.id, rev: file.rev)
            result = .file(file)
        }
        recordChanges(at: placed.path)
        flushIdentifiers()
        return result
    }

    /// Resolves a path for writing: the parent chain may be missing (it is created), but it
    /// must not run through a file.
    private func resolveForWrite(_ path: DropboxPath) throws(APIError) -> Resolved {
        switch Result(catching: { () throws(APIError) in try resolve(path) }) {
        case .success(let resolved):
            return resolved
        case .failure(let error):
            // A file where a parent folder should be.
            throw error.isEndpoint([.path, .notFolder]) ? .uploadPath([.conflict, .file]) : error
        }
    }

    func makeParents(of target: Resolved) throws(APIError) {
        let parent = (target.host as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .uploadPath([.conflict, .file]) }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw .uploadPath([.noWritePermission])
        }
    }

    /// "name (1).txt", "name (2).txt", … or "name (conflicted copy).txt", then numbered.
    func freeName(near target: Resolved, suffix: String?) throws(APIError) -> Resolved {
        let name = target.path.name
        let ext = (name as NSString).pathExtension
        let base = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        let dotExt = ext.isEmpty ? "" : "." + ext
        var candidates: [String] = []
        if let suffix { candidates.append("\(base) (\(suffix))\(dotExt)") }
        for number in 1...10_000 {
            candidates.append(suffix.map { "\(base) (\($0) \(number))\(dotExt)" } ?? "\(base) (\(number))\(dotExt)")
        }
        for candidate in candidates {
            let resolved = try resolve(target.path.parent.appending(candidate))
            if !resolved.exists { return resolved }
        }
        throw .uploadPath([.conflict, .file])
    }
}
