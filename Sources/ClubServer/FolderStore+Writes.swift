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
        let target = try paths.resolveForWrite(path)
        var current: Metadata?
        var held = CommitRule.Target.nothing
        if target.exists && target.isDirectory {
            held = .folder
        } else if target.exists {
            current = try metadata(target)
            if case .file(let file) = current { held = .file(rev: file.rev, contentHash: file.contentHash) } else { held = .other }
        }
        switch CommitRule.decide(held, mode: mode, autorename: autorename, contentHash: contentHash) {
        case .place:
            return try place(temp, contentHash: contentHash, at: target, clientModified: clientModified)
        case .unchanged:
            if let current { return current }
            return try metadata(target)
        case .placeBeside(let suffix):
            return try place(temp, contentHash: contentHash, at: try paths.freeName(near: target, suffix: suffix), clientModified: clientModified)
        case .conflict(let kind):
            throw .uploadPath([.conflict, kind])
        }
    }

    private func place(_ temp: String, contentHash: String, at target: Resolved, clientModified: Date?) throws(APIError) -> Metadata {
        try paths.makeParents(of: target)
        let replaced = paths.prepare(temp, toReplace: target, newFileMode: newFileMode, clientModified: clientModified)
        // The version being replaced goes into its history (FolderStore+Revisions).
        let retired = replaced ? retire(target) : nil
        do throws(DurableFileError) {
            if pendingSync != nil {
                // In a group of commits the folder is flushed once for the group (``PendingSync``).
                guard rename(temp, target.host) == 0 else { throw DurableFileError(path: target.host, step: "replace", code: errno) }
                pendingSync?.changed(folder: (target.host as NSString).deletingLastPathComponent)
            } else {
                try DurableFile.place(temp, at: target.host)
            }
        } catch {
            throw error.code == ENOSPC ? .uploadPath([.insufficientSpace]) : .uploadPath([.noWritePermission])
        }
        // The replaced version lives on in its history alone now: private there.
        HistoryFiles.makePrivate(retired: retired.map { [$0] } ?? [])
        var placed = target
        placed.exists = true
        placed.isDirectory = false
        // We hashed the body as it streamed in; no need to read the file again.
        var info = stat()
        if stat(target.host, &info) == 0 {
            hashes.record(contentHash, for: FileKey(info))
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

    /// One commit of a group (``commitGroup(_:)``): a closed session's file and where it goes.
    struct GroupCommit: Sendable {
        var temp: String
        var contentHash: String
        var target: DropboxPath
        var mode: WriteMode
        var autorename: Bool
        var clientModified: Date?
    }

    /// Commits each of `commits` in order as ``commit(temp:contentHash:to:mode:autorename:clientModified:discardOnFailure:)``
    /// does (keeping each temp file on failure), in one turn of the actor, and flushes them
    /// together (``PendingSync``) before returning: the folder once, the history copies'
    /// bytes together, the journal in one append. Each answer at its position.
    func commitGroup(_ commits: [GroupCommit]) -> [Result<Metadata, APIError>] {
        pendingSync = PendingSync()
        let results = commits.map { item in
            Result { () throws(APIError) -> Metadata in
                try commit(temp: item.temp, contentHash: item.contentHash, to: item.target, mode: item.mode, autorename: item.autorename,
                           clientModified: item.clientModified, discardOnFailure: false)
            }
        }
        let pending = pendingSync ?? PendingSync()
        pendingSync = nil
        if !pending.flushFiles() { logger.warning("a group of commits: a history copy could not be flushed") }
        journal.append(pending.changes)
        flushIdentifiers()
        return results
    }
}
