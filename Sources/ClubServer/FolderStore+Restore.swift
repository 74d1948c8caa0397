import DropboxWire
import Foundation

/// Reading histories back: `list_revisions`, `restore` and `rev:` downloads.
extension FolderStore {
    /// Finds the file a path (or `id:…`) names, live or deleted; lookup errors sit under `field`.
    func historyTarget(_ text: String, field: ErrorTag) throws(APIError) -> HistoryTarget {
        loadTombstones()
        if text.hasPrefix("id:") {
            guard let key = RevisionLog.historyKey(text) else { throw .endpoint([field, .notFound]) }
            if let pathLower = identifiers.path(of: text), let path = try? DropboxPath.checked(pathLower),
               let target = try? historyTarget(path, field: field) {
                return target
            }
            guard let tombstone = revisions.tombstones?[text] else { throw .endpoint([field, .notFound]) }
            guard tombstone.expired != true else { throw HistoryTarget.pastRetention(tombstone, days: historyDays, field: field) }
            return HistoryTarget(id: text, key: key, tombstone: tombstone)
        }
        let path: DropboxPath
        do { path = try DropboxPath.checked(text) } catch { throw .endpoint([field, .malformedPath]) }
        guard !path.isRoot else { throw .endpoint([field, .notFile]) }
        return try historyTarget(path, field: field)
    }

    private func historyTarget(_ path: DropboxPath, field: ErrorTag) throws(APIError) -> HistoryTarget {
        let resolved = try APIError.relabeling(field) { () throws(APIError) in try resolve(path) }
        if resolved.exists {
            guard !resolved.isDirectory else { throw .endpoint([field, .notFile]) }
            guard case .file(let file) = try APIError.relabeling(field, { () throws(APIError) in try metadata(resolved) }),
                  let key = RevisionLog.historyKey(file.id) else { throw .endpoint([field, .notFile]) }
            return HistoryTarget(id: file.id, key: key, live: file, resolved: resolved)
        }
        guard let tombstone = revisions.tombstone(at: path.lower), let key = RevisionLog.historyKey(tombstone.id) else {
            if let expired = revisions.tombstone(at: path.lower, expired: true) {
                throw HistoryTarget.pastRetention(expired, days: historyDays, field: field)
            }
            throw .endpoint([field, .notFound])
        }
        return HistoryTarget(id: tombstone.id, key: key, tombstone: tombstone)
    }

    /// A file's revisions, newest first, older than `beforeRev` if given; `with`: the other
    /// members who wrote in each revision that names any (by rev, member names).
    func listRevisions(_ text: String, limit: Int, beforeRev: String?) throws(APIError)
        -> (HistoryTarget, [FileMetadata], with: [String: [String]], hasMore: Bool) {
        let target = try historyTarget(text, field: .path)
        if let live = target.live { reconcile(live, member: nil) }
        guard let (page, hasMore) = RevisionLog.page(histories.records(target.key), beforeRev: beforeRev, limit: limit) else {
            let rev = beforeRev ?? ""
            throw histories.isPruned(rev, of: target.key)
                ? target.pastRetention(rev: rev, days: historyDays, as: .endpoint([.invalidBeforeRev])) : .endpoint([.invalidBeforeRev])
        }
        // Who deleted it is told as who made revisions is: only once the server has members.
        var told = target
        if !revisions.showsAuthors { told.tombstone?.by = nil }
        var with: [String: [String]] = [:]
        if revisions.showsAuthors {
            for record in page { if let others = record.with, !others.isEmpty { with[record.rev] = others } }
        }
        return (told, page.map { target.metadata(of: $0, sharingInfo: revisions.sharingInfo(by: $0.by)) }, with, hasMore)
    }

    /// Brings back `rev` of the file at `text` as a new revision (a commit by the caller).
    func restore(_ text: String, rev: String) throws(APIError) -> Metadata {
        let target = try historyTarget(text, field: .pathLookup)
        guard RevisionLog.isWellFormedRev(rev), let record = histories.records(target.key).last(where: { $0.rev == rev }),
              let source = histories.bytes(of: record, for: target) else {
            throw histories.isPruned(rev, of: target.key)
                ? target.pastRetention(rev: rev, days: historyDays, as: .endpoint([.invalidRevision])) : .endpoint([.invalidRevision])
        }
        guard let destination = try? DropboxPath.checked(target.pathDisplay) else { throw .endpoint([.pathLookup, .notFound]) }
        // A deleted file comes back at its old path only if that is still free: whatever lives
        // there now is another file (or a folder), and is not the restore's to replace.
        if target.live == nil, let occupant = try? resolve(destination), occupant.exists {
            throw .endpoint([.pathWrite, .conflict, occupant.isDirectory ? .folder : .file])
        }
        let temp = tempDirectory + "/restore-\(UUID().uuidString)"
        guard FileCopier.copyFile(from: source, to: temp, temporaryDirectory: tempDirectory) else { throw .endpoint([.pathWrite, .insufficientSpace]) }
        // A deleted file comes back with its own id, even if another was deleted there since.
        if target.live == nil { revisions.restoring = (destination.lower, target.id) }
        defer { revisions.restoring = nil }
        do {
            return try commit(temp: temp, contentHash: record.hash, to: destination, mode: target.live == nil ? .add : .overwrite,
                              autorename: false,
                              clientModified: Date(timeIntervalSince1970: TimeInterval(record.client)), discardOnFailure: true)
        } catch {
            throw error.relabeledWrite(as: .pathWrite)
        }
    }

    /// Opens one revision's bytes for `download` with `rev:<rev>` (or a `rev` beside a path,
    /// which must be that file's). Unknown revs, and revs of another file, are `not_found`.
    func openRevision(_ rev: String, path: String?) throws(APIError) -> OpenedFile {
        guard let key = histories.historyKey(ofRev: rev), let record = histories.records(key).last(where: { $0.rev == rev }) else {
            if let key = histories.prunedHistoryKey(ofRev: rev) {
                let target = (try? historyTarget("id:" + key, field: .path)) ?? HistoryTarget(id: "id:" + key, key: key)
                throw target.pastRetention(rev: rev, days: historyDays, as: .notFound)
            }
            throw .notFound
        }
        let target: HistoryTarget
        if let path {
            target = try historyTarget(path, field: .path)
            guard target.key == key else { throw .notFound }
        } else {
            target = (try? historyTarget("id:" + key, field: .path)) ?? HistoryTarget(id: "id:" + key, key: key)
        }
        guard let source = histories.bytes(of: record, for: target) else { throw .notFound }
        // The live file may have changed since it was looked at: serve it only if it still
        // has this revision's size (a kept copy never changes).
        guard let (handle, info) = try? OpenedFile.open(source), Int64(info.st_size) == record.size else { throw .notFound }
        return OpenedFile(file: target.metadata(of: record, sharingInfo: revisions.sharingInfo(by: record.by)), handle: handle)
    }
}
