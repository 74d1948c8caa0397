import Durable
import Foundation
import GRDB
import Synchronization

/// The notes' full-text index: SQLite FTS5 in one file under the remote's cache folder.
///
/// A `DatabasePool` in WAL mode: searches read a snapshot while a sync writes, so typing in the
/// app never waits for indexing, and writes go one at a time through the pool's writer.
///
/// Tables: `note` (path, name, revision, time, author; small rows so ranking never reads text),
/// `note_body` (the text, for the matching line), `note_fts`, a contentless FTS5 table over
/// the title, the text's words and its CJK bigrams (``SearchText``), and `note_link`, each
/// note's outgoing links by target (SearchIndex+Links.swift), so backlinks are one indexed lookup. Contentless halves the file
/// (the text is kept once, in `note_body`); deleting a row re-derives what was indexed from there.
///
/// The file carries ``schemaVersion`` in `user_version`. A file from another version, or one
/// that is not a database, is replaced by an empty one when opened (``openOutcome``); pages found
/// corrupt later throw ``SearchIndexError/damaged(_:)``, after which ``reset(reason:)`` starts
/// afresh. Either way ``IndexSync`` fills it again, reporting progress.
///
/// Two processes may have the file open at once (the app and `byteclub search` share a club's):
/// writes wait for the other's transaction (busy timeout), a file the other made anew is opened
/// in place of the old one (``pool``), and ``changedElsewhere()`` says when the other wrote.
public final class SearchIndex: Sendable {
    /// Bump when the tables, the tokenizing or what is derived from a note (its links) change:
    /// older files are rebuilt. 3: a link just before a table is a link (it was an autolink).
    public static let schemaVersion: Int32 = 3
    public static let fileName = "search.sqlite"

    /// How the file was found when the index was opened.
    public enum OpenOutcome: Sendable, Hashable {
        case opened
        /// There was no index yet.
        case created
        /// The file was damaged or from another version and was started afresh.
        case rebuilt(reason: String)
    }

    public let directory: URL
    public var fileURL: URL { directory.appendingPathComponent(Self.fileName) }

    private let state: Mutex<State>
    /// How long writes must pause before the background checkpoint (seconds; ``checkpointSoon()``).
    public let checkpointDelay: Double
    private let checkpoints = Mutex(CheckpointState())

    private struct CheckpointState {
        var pending = false
        /// `DispatchTime` nanoseconds of the first write not yet checkpointed, and of the last.
        var firstWrite: UInt64?
        var lastWrite: UInt64 = 0
    }

    private struct State {
        var pool: DatabasePool
        var outcome: OpenOutcome
        /// The file the pool has open, as it was when opened (under the opening lock).
        var file: FileIdentity?
        /// `PRAGMA data_version` on the pool's writer as ``changedElsewhere()`` last saw it.
        var dataVersion: Int?
        /// The file was found replaced and opened again since ``changedElsewhere()`` last answered.
        var reopened = false
    }

    /// Which file a path names now: its device and inode. Another process that finds the index
    /// damaged or of another version removes it and makes a new one at the same path; a pool
    /// still open on the old one would read and write a file nobody else sees.
    struct FileIdentity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64

        init?(_ url: URL) {
            var info = stat()
            guard stat(url.path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// How the file was found when opened (or last reset).
    public var openOutcome: OpenOutcome { state.withLock { $0.outcome } }

    /// Opens (creating, or rebuilding when damaged or outdated) the index in `directory`,
    /// e.g. `$XDG_CACHE_HOME/byteclub/<remote>/`. `checkpointDelay`: see ``checkpointSoon()``.
    public init(directory: URL, checkpointDelay: Double = 0.5) throws(SearchIndexError) {
        self.directory = directory
        self.checkpointDelay = checkpointDelay
        let (pool, outcome, file) = try Self.open(directory.appendingPathComponent(Self.fileName))
        state = Mutex(State(pool: pool, outcome: outcome, file: file, dataVersion: Self.dataVersion(of: pool)))
    }

    /// The pool on the file at ``fileURL`` as it is now: when another file is there than the
    /// one the pool has open (another process, the app or `byteclub search`, found it damaged
    /// or of another version and made it anew), that one is opened instead, so this index never
    /// goes on with a file nobody else sees. No file there at all (a moment of another
    /// process's reset, or a cache folder deleted) leaves the pool as it is. One `stat` a call.
    var pool: DatabasePool {
        let now = FileIdentity(fileURL)
        let (current, same) = state.withLock { ($0.pool, now == nil || $0.file == now) }
        if same { return current }
        return reopened(replacing: current) ?? current
    }

    /// Opens the file at ``fileURL`` in place of `old` (unless another thread did already).
    private func reopened(replacing old: DatabasePool) -> DatabasePool? {
        let url = fileURL
        return try? state.withLock { (state: inout State) throws(SearchIndexError) -> DatabasePool in
            guard state.pool === old else { return state.pool }
            let (pool, outcome, file) = try Self.open(url)
            // The old pool is let go, not closed: a read of another thread may still hold it.
            state.pool = pool
            state.file = file
            state.dataVersion = Self.dataVersion(of: pool)
            state.reopened = true
            if case .rebuilt = outcome { state.outcome = outcome }
            return pool
        }
    }

    /// Throws the index away and starts an empty one (after ``SearchIndexError/damaged(_:)``).
    public func reset(reason: String) throws(SearchIndexError) {
        let url = fileURL
        try state.withLock { (state: inout State) throws(SearchIndexError) -> Void in
            try? state.pool.close()
            let (pool, file) = try Self.whileOpening(url) { () throws(SearchIndexError) -> (DatabasePool, FileIdentity?) in
                Self.removeFiles(url)
                return (try Self.create(url), FileIdentity(url))
            }
            state = State(pool: pool, outcome: .rebuilt(reason: reason), file: file, dataVersion: Self.dataVersion(of: pool))
        }
    }

    // MARK: Another process on the same file

    /// Whether another connection to the file wrote to it, or made it anew, since this was last
    /// asked (or since the index was opened). The app and `byteclub search` (and `links`) keep
    /// one index per club; the app asks this to learn that the file changed under it, and then
    /// brings it current against its own list rather than trust what it last synced.
    ///
    /// Asked on the pool's writer connection, whose `PRAGMA data_version` changes only when
    /// another connection commits: what this index writes itself never counts, whatever it
    /// writes meanwhile. Waits for a write of this process in progress.
    public func changedElsewhere() throws(SearchIndexError) -> Bool {
        let pool = self.pool
        let version: Int
        do {
            version = try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
        } catch {
            throw Self.mapped(error)
        }
        return state.withLock { state in
            // Opened again meanwhile: that is a change, and the next question starts from there.
            guard state.pool === pool else { return true }
            defer {
                state.dataVersion = version
                state.reopened = false
            }
            return state.reopened || state.dataVersion != version
        }
    }

    /// The writer's `PRAGMA data_version` (nil if it cannot be read).
    private static func dataVersion(of pool: DatabasePool) -> Int? {
        try? pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
    }

    // MARK: Opening

    /// Opens the file (``checkOrCreate(_:)``) under the opening lock, and says which file it
    /// opened, read under the same lock.
    static func open(_ url: URL) throws(SearchIndexError) -> (DatabasePool, OpenOutcome, FileIdentity?) {
        do throws(DurableFileError) {
            // The index holds every note's text (an encrypted club's decrypted): private, its
            // folder 0700 and its files 0600 (``PrivateFiles``).
            try PrivateFiles.folder(url.deletingLastPathComponent())
        } catch {
            throw .database("cannot create \(url.deletingLastPathComponent().path): \(error.description)")
        }
        return try whileOpening(url) { () throws(SearchIndexError) -> (DatabasePool, OpenOutcome, FileIdentity?) in
            let (pool, outcome) = try checkOrCreate(url)
            return (pool, outcome, FileIdentity(url))
        }
    }

    /// Runs `body` (which may find the file damaged and make it anew) holding an exclusive
    /// `flock` on `<index>.lock`. The app and `byteclub search` may open one index at the same
    /// moment; without the lock, one took the other's file, made but not yet written, for a
    /// damaged one and removed it, and the two went on writing two different files. Where no lock
    /// file can be made (a read-only folder), opening goes on without one, as before.
    static func whileOpening<T>(_ url: URL, _ body: () throws(SearchIndexError) -> T) throws(SearchIndexError) -> T {
        let descriptor = PrivateFiles.open(url.path + ".lock", O_RDWR | O_CREAT)
        if descriptor >= 0 {
            while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        }
        defer {
            if descriptor >= 0 { close(descriptor) }
        }
        return try body()
    }

    private static func checkOrCreate(_ url: URL) throws(SearchIndexError) -> (DatabasePool, OpenOutcome) {
        guard FileManager.default.fileExists(atPath: url.path) else { return (try create(url), .created) }
        // An older byteclub made the files under the umask (0644): private from now on.
        for suffix in ["", "-wal", "-shm"] { PrivateFiles.protect(url.path + suffix) }
        let reason: String
        do {
            let pool = try pool(url)
            let (version, tables, dated) = try pool.read { db in
                (try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name IN ('note', 'note_body', 'note_fts', 'note_link')") ?? 0,
                 try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'note_modified'") ?? false)
            }
            if version == schemaVersion && tables == 4 {
                // A file from before the date's index (Ctrl-F's newest-first walk) gets it, once;
                // only then is a write asked for, which would wait behind another's sync. A file
                // that cannot take it now (read-only, or busy past the timeout) is kept as it is:
                // the walk then sorts the notes by date itself, slower, with the same answer.
                if !dated { try? pool.write { db in try db.execute(sql: Self.modifiedIndex) } }
                return (pool, .opened)
            }
            try? pool.close()
            reason = version == schemaVersion ? "tables missing" : "version \(version), now \(schemaVersion)"
        } catch {
            reason = Self.describe(error)
        }
        removeFiles(url)
        return (try create(url), .rebuilt(reason: reason))
    }

    /// The notes by date, walked newest first by a query most notes match (``newestMatching(_:_:prefix:limit:)``).
    static let modifiedIndex = "CREATE INDEX IF NOT EXISTS note_modified ON note(modified);"

    static func create(_ url: URL) throws(SearchIndexError) -> DatabasePool {
        do {
            // SQLite makes a database 0644 less the umask, and its `-wal` and `-shm` with the
            // database's mode: made empty and 0600 first (an empty file is an empty database),
            // all three are private.
            try PrivateFiles.file(url.path)
            let pool = try pool(url)
            try pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS note(
                        id INTEGER PRIMARY KEY, path_lower TEXT NOT NULL UNIQUE, path TEXT NOT NULL, name TEXT NOT NULL,
                        rev TEXT, modified REAL, modified_by TEXT);
                    CREATE TABLE IF NOT EXISTS note_body(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                    CREATE VIRTUAL TABLE IF NOT EXISTS note_fts USING fts5(
                        name, words, cjk, content='', tokenize='unicode61 remove_diacritics 2');
                    \(modifiedIndex)
                    \(linkTables)
                    PRAGMA user_version = \(schemaVersion);
                    """)
            }
            return pool
        } catch {
            throw .database("cannot create the index at \(url.path): \(describe(error))")
        }
    }

    /// The index's pool, its writer unflushed (`synchronous = OFF`, as ``configuration()`` says
    /// why). GRDB's WAL set-up sets the writer's `synchronous` to NORMAL after
    /// `prepareDatabase` has run, which flushed the WAL and the file at every checkpoint; it is
    /// set again here, once the pool is open.
    static func pool(_ url: URL) throws -> DatabasePool {
        let pool = try DatabasePool(path: url.path, configuration: configuration())
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
        return pool
    }

    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // No fsync at all: the index is a cache of the club, rebuilt whenever it is found
            // damaged, so what an OS crash could cost is one rebuild. With fsync, a commit that
            // triggers a WAL checkpoint waited tens of ms on a busy disk, and one note's re-index
            // (≤ 10 ms) missed its target at p95. An app crash loses nothing either way (WAL).
            try db.execute(sql: "PRAGMA synchronous = OFF")
            // No checkpoint on commit: the commit that crossed 1,000 WAL pages copied them into
            // the file while a note's re-index waited (p95 25 ms). ``checkpointSoon()`` does it
            // on a background queue once writes pause.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        configuration.maximumReaderCount = 4
        // Two processes write one club's index (the app and `byteclub search`): a write that
        // finds the other's transaction in progress waits for it (SQLite's busy timeout)
        // instead of failing at once with "database is locked". GRDB's writes begin IMMEDIATE,
        // so the wait is at the start of a transaction, never a deadlock half-way.
        configuration.busyMode = .timeout(10)
        return configuration
    }

    static func removeFiles(_ url: URL) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return "\(error)"
    }

    /// Maps SQLite's errors: damage to ``SearchIndexError/damaged(_:)``, the rest to `.database`.
    static func mapped(_ error: any Error) -> SearchIndexError {
        if let error = error as? SearchIndexError { return error }
        if let error = error as? DatabaseError,
           error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            return .damaged(describe(error))
        }
        return .database(describe(error))
    }

    func reading<T>(_ body: (Database) throws -> T) throws(SearchIndexError) -> T {
        do { return try pool.read(body) } catch { throw Self.mapped(error) }
    }

    func writing<T>(_ body: (Database) throws -> T) throws(SearchIndexError) -> T {
        let result: T
        do { result = try pool.write(body) } catch { throw Self.mapped(error) }
        checkpointSoon()
        return result
    }

    // MARK: Checkpoints

    /// Where checkpoints run: off every caller's path (the app's sync, the UI).
    private static let checkpointQueue = DispatchQueue(label: "byteclub.search.checkpoint", qos: .utility)
    /// However busy the writes, a checkpoint at least this often (seconds), so the WAL that
    /// readers search through stays small during a first index.
    static let longestWithoutCheckpoint = 2.0

    /// Schedules a passive checkpoint for when writes have paused for ``checkpointDelay`` (a
    /// burst of re-indexes, a sync's batches pay for one checkpoint, after them), or at the
    /// latest ``longestWithoutCheckpoint`` after the first write it covers.
    func checkpointSoon() {
        let now = DispatchTime.now().uptimeNanoseconds
        let schedule = checkpoints.withLock { state in
            state.lastWrite = now
            if state.firstWrite == nil { state.firstWrite = now }
            defer { state.pending = true }
            return !state.pending
        }
        if schedule { scheduleCheckpoint(after: checkpointDelay) }
    }

    private func scheduleCheckpoint(after seconds: Double) {
        // Weak: an index let go closes its pool, and SQLite checkpoints as the last connection closes.
        Self.checkpointQueue.asyncAfter(deadline: .now() + seconds) { [weak self] in
            guard let self else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            let wait: Double? = checkpoints.withLock { state in
                let quiet = Double(now &- state.lastWrite) / 1e9
                let waited = Double(now &- (state.firstWrite ?? now)) / 1e9
                if quiet < checkpointDelay && waited < Self.longestWithoutCheckpoint {
                    return min(checkpointDelay - quiet, Self.longestWithoutCheckpoint - waited)
                }
                state = CheckpointState()
                return nil
            }
            if let wait {
                scheduleCheckpoint(after: max(wait, 0.001))
            } else {
                _ = try? checkpoint()
            }
        }
    }

    /// Copies the WAL into the file as far as no reader still needs it (SQLite's PASSIVE mode:
    /// never waits for readers), so the WAL is reused instead of growing.
    /// - Returns: the WAL's frames, and how many of them are now in the file.
    @discardableResult
    public func checkpoint() throws(SearchIndexError) -> (frames: Int, checkpointed: Int) {
        do {
            return try pool.writeWithoutTransaction { db in
                let result = try db.checkpoint(.passive)
                return (result.walFrameCount, result.checkpointedFrameCount)
            }
        } catch {
            throw Self.mapped(error)
        }
    }

    /// Runs SQLite's `quick_check` (reads every page: seconds for a big index, so off the UI
    /// thread); throws ``SearchIndexError/damaged(_:)`` when it finds damage.
    public func verify() throws(SearchIndexError) {
        let result = try reading { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        guard result == ["ok"] else { throw .damaged(result.prefix(3).joined(separator: "; ")) }
    }
}
