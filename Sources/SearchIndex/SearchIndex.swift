import Foundation
import GRDB
import Synchronization

/// The notes' full-text index: SQLite FTS5 in one file under the remote's cache folder.
///
/// A `DatabasePool` in WAL mode: searches read a snapshot while a sync writes, so typing in the
/// app never waits for indexing, and writes go one at a time through the pool's writer.
///
/// Tables: `note` (path, name, revision, time, author; small rows so ranking never reads text),
/// `note_body` (the text, for the matching line) and `note_fts`, a contentless FTS5 table over
/// the title, the text's words and its CJK bigrams (``SearchText``). Contentless halves the file
/// (the text is kept once, in `note_body`); deleting a row re-derives what was indexed from there.
///
/// The file carries ``schemaVersion`` in `user_version`. A file from another version, or one
/// that is not a database, is replaced by an empty one when opened (``openOutcome``); pages found
/// corrupt later throw ``SearchIndexError/damaged(_:)``, after which ``reset(reason:)`` starts
/// afresh. Either way ``IndexSync`` fills it again, reporting progress.
public final class SearchIndex: Sendable {
    /// Bump when the tables or the tokenizing change: older files are rebuilt.
    public static let schemaVersion: Int32 = 1
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

    private struct State {
        var pool: DatabasePool
        var outcome: OpenOutcome
    }

    /// How the file was found when opened (or last reset).
    public var openOutcome: OpenOutcome { state.withLock { $0.outcome } }

    /// Opens (creating, or rebuilding when damaged or outdated) the index in `directory`,
    /// e.g. `$XDG_CACHE_HOME/byteclub/<remote>/`.
    public init(directory: URL) throws(SearchIndexError) {
        self.directory = directory
        let (pool, outcome) = try Self.open(directory.appendingPathComponent(Self.fileName))
        state = Mutex(State(pool: pool, outcome: outcome))
    }

    var pool: DatabasePool { state.withLock { $0.pool } }

    /// Throws the index away and starts an empty one (after ``SearchIndexError/damaged(_:)``).
    public func reset(reason: String) throws(SearchIndexError) {
        let url = fileURL
        let fresh: DatabasePool = try state.withLock { (state: inout State) throws(SearchIndexError) -> DatabasePool in
            try? state.pool.close()
            Self.removeFiles(url)
            let pool = try Self.create(url)
            state = State(pool: pool, outcome: .rebuilt(reason: reason))
            return pool
        }
        _ = fresh
    }

    // MARK: Opening

    static func open(_ url: URL) throws(SearchIndexError) -> (DatabasePool, OpenOutcome) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .database("cannot create \(url.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        guard FileManager.default.fileExists(atPath: url.path) else { return (try create(url), .created) }
        let reason: String
        do {
            let pool = try DatabasePool(path: url.path, configuration: configuration())
            let (version, tables) = try pool.read { db in
                (try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name IN ('note', 'note_body', 'note_fts')") ?? 0)
            }
            if version == schemaVersion && tables == 3 { return (pool, .opened) }
            try? pool.close()
            reason = version == schemaVersion ? "tables missing" : "version \(version), now \(schemaVersion)"
        } catch {
            reason = Self.describe(error)
        }
        removeFiles(url)
        return (try create(url), .rebuilt(reason: reason))
    }

    static func create(_ url: URL) throws(SearchIndexError) -> DatabasePool {
        do {
            let pool = try DatabasePool(path: url.path, configuration: configuration())
            try pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS note(
                        id INTEGER PRIMARY KEY, path_lower TEXT NOT NULL UNIQUE, path TEXT NOT NULL, name TEXT NOT NULL,
                        rev TEXT, modified REAL, modified_by TEXT);
                    CREATE TABLE IF NOT EXISTS note_body(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                    CREATE VIRTUAL TABLE IF NOT EXISTS note_fts USING fts5(
                        name, words, cjk, content='', tokenize='unicode61 remove_diacritics 2');
                    PRAGMA user_version = \(schemaVersion);
                    """)
            }
            return pool
        } catch {
            throw .database("cannot create the index at \(url.path): \(describe(error))")
        }
    }

    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // WAL with NORMAL sync: an index can always be rebuilt, so a lost last write is fine.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        configuration.maximumReaderCount = 4
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
        do { return try pool.write(body) } catch { throw Self.mapped(error) }
    }

    /// Runs SQLite's `quick_check` (reads every page: seconds for a big index, so off the UI
    /// thread); throws ``SearchIndexError/damaged(_:)`` when it finds damage.
    public func verify() throws(SearchIndexError) {
        let result = try reading { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        guard result == ["ok"] else { throw .damaged(result.prefix(3).joined(separator: "; ")) }
    }
}
