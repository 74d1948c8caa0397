import DropboxWire
import Durable
import Foundation
import Logging

/// The club folder on disk, seen through Dropbox's data model.
///
/// An actor, so that every metadata change (commit, move, delete) is serialized: a rev check
/// and the rename that follows it are atomic with respect to other writers. Upload bodies are
/// streamed to temp files outside the actor; only the commit comes in here.
///
/// It serialises; values decide. What it keeps are value components tested without a disk
/// (``IdentifierBook``, ``HashBook``, ``RevisionState``, ``TagBook``, ``TreeSnapshot``,
/// ``ListingCache``), and the rules it follows are values too (``CommitRule``, ``RevisionLog``,
/// ``HistoryRetention``, ``ListingDelta``). Its files are read and written by small helpers
/// (``FolderPaths``, ``HistoryFiles``, ``TagFile``, ``TreeWalker``). Upload sessions have an
/// actor of their own (``UploadSessions``). This file holds its state; the operations live in
/// its extensions.
actor FolderStore {
    /// The root's real path (symlinks resolved), the confinement boundary.
    let root: String
    /// Dropbox paths to host paths under the root.
    let paths: FolderPaths
    typealias Resolved = FolderPaths.Resolved
    /// `.byteclub/` inside the root: ids, temp files and upload sessions.
    let metaDirectory: String
    let tempDirectory: String
    let sessionDirectory: String
    /// This server's share of `.byteclub/servers.lock`, so that another server starting over
    /// the same folder leaves our temporary files alone (TemporaryFolderClaim.swift).
    let temporaryClaim: TemporaryFolderClaim
    /// Ids by `path_lower` (`ids.json`): they survive restarts and follow moves.
    var identifiers: IdentifierBook
    /// Batches under way that hold `ids.json`'s writes to their end.
    var identifierHolds = 0
    /// Content hashes by file version (`content-hashes`).
    var hashes: HashBook
    /// Their files (`ids.json`, `content-hashes`).
    var caches: CacheFiles
    /// The last non-recursive listing, while it may be reused (FolderStore+Listing).
    var listingCache = ListingCache()
    /// When a listing's page was last asked for, read without the actor (``ContentSearch``'s
    /// first build gives way to it).
    let listingActivity = ListingActivity()
    /// The CPU time the start's walk of the folder took: the first rescan is paced by it, as each
    /// later one is by the walk before it (``ChangeWatcher``).
    nonisolated let startWalking: Duration
    /// When a listing's page last wrote `ids.json` and `content-hashes` (FolderStore+Listing).
    var listingFlushed = ContinuousClock.now
    /// Whether a write of `content-hashes` put off by a change page is waiting (FolderStore+Listing).
    var hashesFlushScheduled = false
    /// Upload sessions, in `sessionDirectory`: an actor of their own (``UploadSessions``).
    let uploads: UploadSessions
    /// Histories and who made them (FolderStore+Revisions), and their files.
    var revisions = RevisionState()
    /// Who wrote in each live note since its last revision (filled by the live channel's hub).
    let liveWriters = LiveWriters()
    let histories: HistoryFiles
    /// Tags by file id (`tags.json`), read again whenever another server changed them (FolderStore+Tags).
    var tagFile: TagFile
    /// Days of history kept (FolderStore+Retention); 0 keeps all.
    let historyDays: Int
    /// The change journal (`.byteclub/journal`), readable and waitable without the actor, and
    /// the tree snapshot it is fed from (FolderStore+Journal).
    let journal: ChangeJournal
    /// Batch commits running now, for the longpolls' answers (``BatchCommits``).
    let batchCommits = BatchCommits()
    var tree: TreeSnapshot
    /// While a group of commits runs (``commitGroup(_:)``, in one turn of the actor): what it
    /// leaves to flush before its answers. Nil otherwise: every commit flushes as it goes.
    var pendingSync: PendingSync?
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
        paths = FolderPaths(root: root, metaDirectory: metaDirectory)
        histories = HistoryFiles(directory: metaDirectory + "/revisions", temporaryDirectory: tempDirectory)
        newFileMode = 0o666 & ~FolderFiles.processUmask()
        // `.byteclub/` is the server's own: private, whatever the umask (``PrivateFiles``).
        for directory in [metaDirectory, tempDirectory, sessionDirectory] {
            try PrivateFiles.folder(directory)
        }
        // Leftovers of uploads cut off by a crash are never visible; clear them out, but never
        // the files of another server running over this folder.
        temporaryClaim = TemporaryFolderClaim(metaDirectory: metaDirectory, tempDirectory: tempDirectory, expiry: sessionExpiry, logger: logger)
        uploads = UploadSessions(directory: sessionDirectory, temporaryDirectory: tempDirectory, expiry: sessionExpiry, logger: logger)
        tagFile = TagFile(metaDirectory: metaDirectory, temporaryDirectory: tempDirectory)
        caches = CacheFiles(metaDirectory: metaDirectory, temporaryDirectory: tempDirectory)
        identifiers = IdentifierBook(FolderFiles.readIdentifiers(metaDirectory))
        hashes = HashBook(FolderFiles.readHashes(metaDirectory + "/content-hashes"))
        let began = ThreadCPUTime.now()
        (journal, tree) = TreeFile.startTracking(root: root, metaDirectory: metaDirectory, limit: journalLimit, logger: logger)
        startWalking = ThreadCPUTime.now() - began
    }

    func resolve(_ path: DropboxPath) throws(APIError) -> Resolved { try paths.resolve(path) }

    func identifier(for pathLower: String) -> String {
        identifiers.identifier(for: pathLower) { "id:" + FolderFiles.randomToken(bytes: 12) }
    }

    func flushHashes() { caches.write(&hashes) }

    /// Content hashes learnt from reading the files another way (a search's scan, the content
    /// index's build), written at once, together: the listings that follow find them known.
    func learn(_ found: [(key: FileKey, digest: HashBook.Digest)]) {
        hashes.reserve(hashes.count + found.count)
        for (key, digest) in found where !hashes.knows(key) { hashes.record(digest, for: key) }
        flushHashes()
    }
    /// Writes `ids.json` if it changed, unless a batch holds the writes (``holdIdentifierWrites()``).
    func flushIdentifiers() {
        guard identifierHolds == 0 else { return }
        caches.write(&identifiers)
    }

    /// A batch of commits writes `ids.json` once at its end, not once per file (the whole index
    /// each time: a 1,000-file batch into a 100,000-note club wrote 6 GB).
    func holdIdentifierWrites() { identifierHolds += 1 }
    func releaseIdentifierWrites() {
        identifierHolds = max(0, identifierHolds - 1)
        flushIdentifiers()
    }
}
