import DropboxWire
import Foundation

/// Reading histories back: `list_revisions`, `restore` and `rev:` downloads.
extension FolderStore {
    /// A file whose history is asked for: live, or deleted and remembered by a tombstone.
    struct HistoryTarget {
        var id: String
        var key: String
        var live: FileMetadata?
        var resolved: Resolved?
        var tombstone: Tombstone?

        /// Where the file is (or was).
        var pathDisplay: String { live?.pathDisplay ?? tombstone?.path ?? "" }
    }

    /// Finds the file a path (or `id:…`) names, live or deleted; lookup errors sit under `field`.
    func historyTarget(_ text: String, field: ErrorTag) throws(APIError) -> HistoryTarget {
        loadTombstones()
        if text.hasPrefix("id:") {
            guard let key = Self.historyKey(text) else { throw .endpoint([field, .notFound]) }
            if let pathLower = identifiers.path(of: text), let path = try? DropboxPath.checked(pathLower),
               let target = try? historyTarget(path, field: field) {
                return target
            }
            guard let tombstone = revisions.tombstones?[text] else { throw .endpoint([field, .notFound]) }
            guard tombstone.expired != true else { throw pastRetention(tombstone, field: field) }
            return HistoryTarget(id: text, key: key, tombstone: tombstone)
        }
        let path: DropboxPath
        do { path = try DropboxPath.checked(text) } catch { throw .endpoint([field, .malformedPath]) }
        guard !path.isRoot else { throw .endpoint([field, .notFile]) }
        return try historyTarget(path, field: field)
    }

    private func historyTarget(_ path: DropboxPath, field: ErrorTag) throws(APIError) -> HistoryTarget {
        let resolved: Resolved
        do { resolved = try resolve(path) } catch { throw Self.relabeled(error, as: field) }
        if resolved.exists {
            guard !resolved.isDirectory else { throw .endpoint([field, .notFile]) }
            guard case .file(let file) = try Self.relabeledCall(field, { () throws(APIError) in try metadata(resolved) }),
                  let key = Self.historyKey(file.id) else { throw .endpoint([field, .notFile]) }
            return HistoryTarget(id: file.id, key: key, live: file, resolved: resolved)
        }
        guard let tombstone = tombstone(at: path.lower), let key = Self.historyKey(tombstone.id) else {
            if let expired = tombstone(at: path.lower, expired: true) { throw pastRetention(expired, field: field) }
            throw .endpoint([field, .notFound])
        }
        return HistoryTarget(id: tombstone.id, key: key, tombstone: tombstone)
    }

    /// A revision as file metadata, at the file's present (or last) path.
    func revisionMetadata(_ record: RevisionRecord, of target: HistoryTarget) -> FileMetadata {
        let display = target.pathDisplay.isEmpty ? record.path : target.pathDisplay
        return FileMetadata(
            name: (display as NSString).lastPathComponent, id: target.id, pathLower: display.lowercased(), pathDisplay: display,
            clientModified: Date(timeIntervalSince1970: TimeInterval(record.client)),
            serverModified: Date(timeIntervalSince1970: TimeInterval(record.server)),
            rev: record.rev, size: record.size, contentHash: record.hash,
            sharingInfo: Self.sharingInfo(record, shows: revisions.showsAuthors))
    }

    /// A file's revisions, newest first, older than `beforeRev` if given.
    func listRevisions(_ text: String, limit: Int, beforeRev: String?) throws(APIError) -> (HistoryTarget, [FileMetadata], hasMore: Bool) {
        let target = try historyTarget(text, field: .path)
        if let live = target.live { reconcile(live, member: nil) }
        var newestFirst = Array(records(target.key).reversed())
        if let beforeRev {
            guard let index = newestFirst.firstIndex(where: { $0.rev == beforeRev }) else {
                throw isPruned(beforeRev, of: target.key)
                    ? pastRetention(rev: beforeRev, of: target, as: .endpoint([.invalidBeforeRev])) : .endpoint([.invalidBeforeRev])
            }
            newestFirst.removeFirst(index + 1)
        }
        let page = newestFirst.prefix(limit).map { revisionMetadata($0, of: target) }
        // Who deleted it is told as who made revisions is: only once the server has members.
        var told = target
        if !revisions.showsAuthors { told.tombstone?.by = nil }
        return (told, page, newestFirst.count > limit)
    }

    /// Where a revision's bytes are: its kept copy, or the live file if that still holds them.
    private func contentPath(_ record: RevisionRecord, of target: HistoryTarget) -> String? {
        let blob = revisionsDirectory + "/" + target.key + "/" + record.hash
        if access(blob, R_OK) == 0 { return blob }
        if let live = target.live, live.contentHash == record.hash, let host = target.resolved?.host { return host }
        return nil
    }

    /// Brings back `rev` of the file at `text` as a new revision (a commit by the caller).
    func restore(_ text: String, rev: String) throws(APIError) -> Metadata {
        let target = try historyTarget(text, field: .pathLookup)
        guard Self.isWellFormedRev(rev), let record = records(target.key).last(where: { $0.rev == rev }),
              let source = contentPath(record, of: target) else {
            throw isPruned(rev, of: target.key) ? pastRetention(rev: rev, of: target, as: .endpoint([.invalidRevision])) : .endpoint([.invalidRevision])
        }
        guard let destination = try? DropboxPath.checked(target.pathDisplay) else { throw .endpoint([.pathLookup, .notFound]) }
        // A deleted file comes back at its old path only if that is still free: whatever lives
        // there now is another file (or a folder), and is not the restore's to replace.
        if target.live == nil, let occupant = try? resolve(destination), occupant.exists {
            throw .endpoint([.pathWrite, .conflict, occupant.isDirectory ? .folder : .file])
        }
        let temp = tempDirectory + "/restore-\(UUID().uuidString)"
        guard Self.copyFile(from: source, to: temp, temp: tempDirectory) else { throw .endpoint([.pathWrite, .insufficientSpace]) }
        // A deleted file comes back with its own id, even if another was deleted there since.
        if target.live == nil { revisions.restoring = (destination.lower, target.id) }
        defer { revisions.restoring = nil }
        do {
            return try commit(temp: temp, contentHash: record.hash, to: destination, mode: target.live == nil ? .add : .overwrite,
                              autorename: false,
                              clientModified: Date(timeIntervalSince1970: TimeInterval(record.client)), discardOnFailure: true)
        } catch {
            throw Self.relabeledWrite(error, as: .pathWrite)
        }
    }

    /// Opens one revision's bytes for `download` with `rev:<rev>` (or a `rev` beside a path,
    /// which must be that file's). Unknown revs, and revs of another file, are `not_found`.
    func openRevision(_ rev: String, path: String?) throws(APIError) -> Opened {
        guard let key = historyKey(ofRev: rev), let record = records(key).last(where: { $0.rev == rev }) else {
            if let key = prunedHistoryKey(ofRev: rev) {
                let target = (try? historyTarget("id:" + key, field: .path)) ?? HistoryTarget(id: "id:" + key, key: key)
                throw pastRetention(rev: rev, of: target, as: .notFound)
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
        guard let source = contentPath(record, of: target) else { throw .notFound }
        let fd = open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .notFound }
        let handle = FileHandleBox(fd: fd)
        var info = stat()
        // The live file may have changed since it was looked at: serve it only if it still
        // has this revision's size (a kept copy never changes).
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == record.size else { throw .notFound }
        return Opened(file: revisionMetadata(record, of: target), handle: handle)
    }

    // MARK: - Error labels

    /// A lookup error (`path/not_found`, …) re-tagged under another field.
    static func relabeled(_ error: APIError, as field: ErrorTag) -> APIError {
        for tag in [ErrorTag.notFound, .notFolder, .notFile, .malformedPath] where error.isEndpoint([.path, tag]) {
            return .endpoint([field, tag])
        }
        return error
    }

    static func relabeledCall<T>(_ field: ErrorTag, _ body: () throws(APIError) -> T) throws(APIError) -> T {
        do { return try body() } catch { throw relabeled(error, as: field) }
    }

    /// An upload's write error (`path/conflict/file`, `path/insufficient_space`) re-tagged
    /// under another field, as restore (`path_write`) and copy (`to`) answer them.
    static func relabeledWrite(_ error: APIError, as field: ErrorTag) -> APIError {
        guard let tags = error.wire?.tags, tags.first == ErrorTag.path.rawValue else { return error }
        let rest = tags.dropFirst().compactMap(ErrorTag.init(rawValue:))
        guard rest.count == tags.count - 1, !rest.isEmpty else { return error }
        return .endpoint([field] + rest)
    }
}
