import DropboxWire
import Foundation

/// Revisions: every commit of a file is recorded in its history (``HistoryFiles``).
///
/// The newest revision's bytes are the live file itself until it is replaced or deleted; only
/// then is it linked into the history (a hard link of a file about to go: no copy, and no
/// second name for a live file that an editor might then write in place). Notes are small and
/// are also copied at commit, so a note edited on disk behind the server's back keeps its
/// previous text. A change made on disk is recorded, without an author, the next time the
/// server looks at that file's history (a commit over it, a delete, `list_revisions`).
extension FolderStore {
    /// Makes sure the history's newest record is the live file's version (a change made on
    /// disk is recorded then, by nobody known); `member` is who made it, if we know.
    /// `with`: the other members who wrote in it (live, since its previous revision).
    func reconcile(_ file: FileMetadata, member: String?, with: [String] = []) {
        guard let key = RevisionLog.historyKey(file.id), let hash = file.contentHash, !hash.isEmpty else { return }
        if newestRevision(key)?.isRev(file.rev) == true { return }
        if member == nil {
            // Found, not committed here: another process over this folder (a second server, a
            // command's own over the embedded club) may have recorded it since this server
            // cached the history's newest record. The log again, before recording it a second
            // time by nobody (`log` listed one rev twice, once with no author).
            revisions.forget(key)
            if newestRevision(key)?.isRev(file.rev) == true { return }
        }
        let others = with.filter { $0 != member }
        let record = RevisionRecord(rev: file.rev, size: file.size, hash: hash, server: Int64(file.serverModified.timeIntervalSince1970),
                                    client: Int64(file.clientModified.timeIntervalSince1970), path: file.pathDisplay ?? "", by: member,
                                    with: others.isEmpty ? nil : others)
        if histories.append(record, to: key, limit: RevisionLog.limit(for: file.name)) { revisions.remember(record, for: key) }
    }

    /// After a commit placed `file` at `host`: records it for the caller, and keeps a copy of
    /// a note's bytes (cheap, and safe from edits made on disk later).
    /// The revision also names whoever wrote in the note live since its previous one.
    func recordCommit(_ file: FileMetadata, at host: String) {
        reconcile(file, member: Caller.member ?? ClubMember.sharedName, with: liveWriters.take(fileID: file.id))
        guard RevisionLog.isNote(file.name), let key = RevisionLog.historyKey(file.id), let hash = file.contentHash else { return }
        // In a group of commits the copy is flushed with the group's (``PendingSync``).
        if let unflushed = histories.keepBytes(of: host, in: key, hash: hash, flush: pendingSync == nil) {
            pendingSync?.wrote(unflushed)
        }
    }

    /// Before the live file at `target` is replaced or deleted: records its version if it was
    /// changed on disk, and keeps its bytes (a hard link: the file is about to go). Answers the
    /// link made, for ``HistoryFiles/makePrivate(retired:)`` once the file is gone.
    @discardableResult
    func retire(_ target: Resolved) -> String? {
        var info = stat()
        guard target.exists, !target.isDirectory, lstat(target.host, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              case .file(let file)? = try? metadata(target, info: info) else { return nil }
        reconcile(file, member: nil)
        guard let key = RevisionLog.historyKey(file.id), let hash = file.contentHash, !hash.isEmpty else { return nil }
        return histories.retireBytes(of: target.host, in: key, hash: hash)
    }

    /// Before a delete: keeps the history of every file under `target` and remembers where
    /// each was, so `list_revisions` and `restore` still find it by id and by path. Answers the
    /// links made (``retire(_:)``).
    func retireForDelete(_ target: Resolved) -> [String] {
        let clock = Date().timeIntervalSince1970
        var links: [String] = []
        loadTombstones()
        for (pathLower, id) in identifiers.entries(under: target.path.lower) {
            guard let path = try? DropboxPath.checked(pathLower), let entry = try? resolve(path), entry.exists, !entry.isDirectory else { continue }
            if let link = retire(entry) { links.append(link) }
            revisions.tombstones?[id] = Tombstone(id: id, path: entry.path.display, deleted: Int64(clock), deletedNanoseconds: Int64(clock * 1e9),
                                                  by: Caller.member ?? ClubMember.sharedName)
        }
        saveTombstones()
        return links
    }

    /// A new file at a deleted file's path takes up that file's id (``RevisionState/reclaim(_:)``).
    func reclaimIdentifier(for pathLower: String) {
        guard identifiers[pathLower] == nil else { return }
        loadTombstones()
        guard let tombstone = revisions.reclaim(pathLower) else { return }
        identifiers.assign(tombstone.id, to: pathLower)
        saveTombstones()
    }

    func loadTombstones() {
        if revisions.tombstones == nil { revisions.tombstones = histories.readTombstones() }
    }

    func saveTombstones() {
        if let tombstones = revisions.tombstones { histories.writeTombstones(tombstones) }
    }

    /// What is kept of a history's newest record, cached (listings ask once per file).
    /// `changed`: the file's ctime in nanoseconds, when known (``RevisionState/mayHaveHistory(_:changed:keys:)``).
    func newestRevision(_ key: String, changed: Int64? = nil) -> NewestRevision? {
        if let cached = revisions.newest[key] { return cached }
        guard revisions.mayHaveHistory(key, changed: changed, keys: histories.keys) else { return nil }
        revisions.remember(histories.records(key).last, for: key)
        return revisions.newest[key] ?? nil
    }

    /// From now on file metadata says who made each revision: the first member joined.
    func showAuthors() { revisions.showsAuthors = true }

    /// `sharing_info` for a file's version, when the server has members and knows who made it.
    /// `changed`: the file's ctime in nanoseconds, when known.
    func sharingInfo(id: String, rev: String, changed: Int64? = nil) -> FileSharingInfo? {
        guard revisions.showsAuthors, let key = RevisionLog.historyKey(id) else { return nil }
        // The record first: as the argument of `revisions.sharingInfo(…)` it was looked up (and
        // remembered) while that call held a copy of `revisions`, so every newly remembered
        // record copied the whole dictionary (a first listing of 20,000 new files took 11 s).
        let newest = newestRevision(key, changed: changed).flatMap { $0.isRev(rev) ? $0 : nil }
        return revisions.sharingInfo(by: newest?.by)
    }
}
