import DropboxWire
import Foundation
import Logging
import Durable

/// The club folder on disk, seen through Dropbox's data model.
///
/// An actor, so that every metadata change (commit, move, delete) is serialized: a rev check
/// and the rename that follows it are atomic with respect to other writers. Upload bodies are
/// streamed to temp files outside the actor; only the commit comes in here.
///
/// This file holds its state and caches; paths, metadata, listings, commits and the other
/// operations live in `FolderStore+Paths`, `+Metadata`, `+Listing`, `+Writes` and `+Operations`.
actor FolderStore {
    /// The root's real path (symlinks resolved), the confinement boundary.
    let root: String
    /// `.byteclub/` inside the root: ids, temp files and upload sessions.
    let metaDirectory: String
    let tempDirectory: String
    let sessionDirectory: String
    /// This server's share of `.byteclub/servers.lock`, so that another server starting over
    /// the same folder leaves our temporary files alone (FolderStore+TemporaryFiles).
    let temporaryClaim: TemporaryFolderClaim
    /// Ids by `path_lower` (`ids.json`): they survive restarts and follow moves.
    var identifiers: IdentifierBook
    /// Content hashes by file version (`content-hashes`).
    var hashes: HashBook
    /// `ids.json` and `content-hashes` as this server last wrote them: a file unchanged since
    /// (no other server wrote it) need not be read again before the next write.
    var writtenStamps: [String: FileKey] = [:]
    /// The last non-recursive listing, reused while the folder's stamp is unchanged, so that
    /// paging through a big folder does not stat every file once per page.
    /// Entries are only reused for a few seconds: a file edited in place by another program
    /// does not touch the folder's mtime.
    var listingCache: (key: String, time: ContinuousClock.Instant, entries: [Metadata])?
    /// Upload sessions with an append in progress.
    var leases: Set<String> = []
    /// Upload sessions being grown right now, with the size each append will leave them at
    /// (FolderStore+SessionQuota): counted against their member's bound before the bytes land.
    var sessionClaims: [String: Int64] = [:]
    /// Histories and who made them (FolderStore+Revisions).
    var revisions = RevisionState()
    /// Tags by file id, loaded on first use (FolderStore+Tags).
    var tagBook: TagBook?
    /// Days of history kept (FolderStore+Retention); 0 keeps all.
    let historyDays: Int
    /// The change journal (`.byteclub/journal`), readable and waitable without the actor, and
    /// the tree snapshot it is fed from (FolderStore+Journal).
    let journal: ChangeJournal
    let tree: TreeSnapshot
    /// The mode of a new file: what `open(…, 0666)` would give under the process's umask, so
    /// uploads land like files any other tool writes there (temp files are 0600 until commit).
    let newFileMode: mode_t
    let logger: Logger

    /// - Parameter sessionExpiry: upload sessions idle for longer are removed here, at start.
    /// - Parameter showsAuthors: file metadata carries `sharing_info` (the server has members).
    init(root rootPath: String, logger: Logger, sessionExpiry: Duration = ClubServerConfiguration.defaultSessionExpiry, showsAuthors: Bool = false,
         journalLimit: Int = 10_000, historyDays: Int = 30) throws {
        revisions.showsAuthors = showsAuthors
        self.historyDays = historyDays
        try FileManager.default.createDirectory(atPath: rootPath, withIntermediateDirectories: true)
        guard let real = realpath(rootPath, nil) else {
            throw ClubServerError.badRoot(rootPath, String(cString: strerror(errno)))
        }
        root = String(cString: real)
        free(real)
        metaDirectory = root + "/" + DropboxPath.reservedName
        tempDirectory = metaDirectory + "/tmp"
        sessionDirectory = metaDirectory + "/sessions"
        self.logger = logger
        newFileMode = 0o666 & ~FolderFiles.processUmask()
        for directory in [metaDirectory, tempDirectory, sessionDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // Leftovers of uploads cut off by a crash are never visible; clear them out, but never
        // the files of another server running over this folder.
        temporaryClaim = TemporaryFolderClaim(metaDirectory: metaDirectory, tempDirectory: tempDirectory, expiry: sessionExpiry, logger: logger)
        let expired = Self.sweepSessions(in: sessionDirectory, olderThan: sessionExpiry, now: Date(), keeping: [])
        if !expired.isEmpty { logger.info("removed \(expired.count) expired upload session file(s)") }
        identifiers = IdentifierBook(FolderFiles.readIdentifiers(metaDirectory))
        hashes = HashBook(FolderFiles.readHashes(metaDirectory + "/content-hashes"))
        (journal, tree) = Self.startChangeTracking(root: root, metaDirectory: metaDirectory, limit: journalLimit, logger: logger)
    }

    // MARK: - Ids and the content-hash cache on disk

    /// Writes the hash cache if it changed, under MetaLock, with the hashes another server over
    /// the folder wrote meanwhile kept (HashBook).
    func flushHashes() {
        guard hashes.isDirty else { return }
        MetaLock.holding(metaDirectory) {
            let path = metaDirectory + "/content-hashes"
            let text = hashes.text(mergingDisk: isAsWritten(path) ? nil : FolderFiles.readHashes(path))
            replace(path, with: Data(text.utf8))
        }
    }

    func identifier(for pathLower: String) -> String {
        identifiers.identifier(for: pathLower) { "id:" + FolderFiles.randomToken(bytes: 12) }
    }

    /// Writes the id index if it changed, under MetaLock, merged with what another server over
    /// the folder wrote since this one read it (IdentifierBook.merge).
    func flushIdentifiers() {
        guard identifiers.isDirty else { return }
        MetaLock.holding(metaDirectory) {
            let path = metaDirectory + "/ids.json"
            let disk = isAsWritten(path) ? identifiers.lastWritten : FolderFiles.readIdentifiers(metaDirectory)
            guard let data = try? JSONEncoder().encode(identifiers.merge(disk: disk)) else { return }
            replace(path, with: data)
        }
    }

    /// A cache file replaced whole (``DurableFile`` without its flush: losing a cache costs work,
    /// not data), its stamp noted.
    private func replace(_ path: String, with data: Data) {
        if (try? DurableFile.write(data, to: path, permissions: 0o644, temporaryDirectory: tempDirectory, flush: false)) != nil {
            var info = stat()
            writtenStamps[path] = stat(path, &info) == 0 ? Self.key(info) : nil
        }
    }

    /// Whether `path` is still as this server wrote it (MetaLock held).
    private func isAsWritten(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && writtenStamps[path] == Self.key(info)
    }

    // MARK: - Upload-session leases

    /// Claims an upload session for one append at a time; false if another append holds it.
    func lease(_ session: String) -> Bool {
        leases.insert(session).inserted
    }

    func release(_ session: String) {
        leases.remove(session)
    }
}
