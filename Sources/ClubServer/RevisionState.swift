import DropboxWire
import Foundation

/// One revision in a file's history: one line of its log.
struct RevisionRecord: Codable, Sendable, Hashable {
    var rev: String
    var size: Int64
    /// The content hash, which also names the revision's copy of the bytes.
    var hash: String
    /// server_modified and client_modified, in seconds since 1970.
    var server: Int64
    var client: Int64
    /// Where the file was when this revision was made.
    var path: String
    /// The member who made it; nil for a change made on disk behind the server's back.
    var by: String?
    /// The other members who wrote in it: those who typed in the note live since its previous
    /// revision (``LiveWriters``), in the order they first did; nil when nobody else did.
    var with: [String]? = nil
}

/// What the server keeps in memory of a history's newest record: its rev and who made it (the
/// rest stays in the log). A listing of a 100,000-file club looks at every history, and whole
/// records (a rev, a hash and a path as texts) held 41 MiB of the server's peak (`heaptrack`,
/// issue 56); a rev as the server makes them (16 hex digits) is kept as its number.
struct NewestRevision: Sendable, Equatable {
    private enum Rev: Equatable {
        case packed(UInt64)
        case text(String)
    }

    private let rev: Rev
    /// The member who made it; nil for a change made on disk behind the server's back.
    let by: String?

    init(_ record: RevisionRecord) {
        rev = Self.packed(record.rev).map(Rev.packed) ?? .text(record.rev)
        by = record.by
    }

    func isRev(_ other: String) -> Bool {
        switch rev {
        case .packed(let number): Self.packed(other) == number
        case .text(let text): text == other
        }
    }

    /// 16 lower-case hex digits as their number; nil for any other text (which then is kept as
    /// it is, so two spellings of one number never compare equal).
    private static func packed(_ rev: String) -> UInt64? {
        guard rev.utf8.count == 16, rev.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return nil }
        return UInt64(rev, radix: 16)
    }
}

/// A deleted file whose history is kept: found again by its id, or by its old path (the file
/// deleted there last).
struct Tombstone: Codable, Sendable, Equatable {
    var id: String
    var path: String
    var deleted: Int64
    /// When, in nanoseconds: orders two deletes at one path within a second (nil in tombstones
    /// written before issue 23, which never shared a path).
    var deletedNanoseconds: Int64?
    /// Deleted longer ago than the history kept (`--history-days`): its history is gone, and
    /// the tombstone stays a while only so that asking for it says so (FolderStore+Retention).
    var expired: Bool?
    /// The member who deleted it (nil in tombstones written before issue 43, or by a change on
    /// disk), so an app with the note open can say `Deleted by ann`.
    var by: String?
}

/// What the server knows of histories beyond their logs, as a value: who made the newest
/// revision of each, and the deleted files whose histories are kept. The ``FolderStore`` actor
/// keeps one and reads and writes `deleted.json` (``HistoryFiles``).
struct RevisionState: Sendable {
    /// Whether file metadata carries `sharing_info` (the server has members).
    var showsAuthors = false
    /// What is kept of each history's newest record looked at (nil: it has none), for
    /// `sharing_info`: a listing of 100,000 files looks at every one.
    private(set) var newest: [String: NewestRevision?] = [:]
    /// The keys that may have a history: those on disk when first asked (``HistoryFiles/keys()``),
    /// those recorded since, and those forgotten (to be read again). A key not here has none,
    /// with nothing kept for it: a first listing of a folder the server has never seen looked at
    /// 100,000 histories that are not there, and remembering each as "none" held 19 MiB of the
    /// server's peak (`heaptrack`, issue 71). Nil until first needed.
    private(set) var historyKeys: Set<String>?
    /// When ``historyKeys`` was read from the disk, in nanoseconds since 1970 (a file's ctime's
    /// clock): a file changed since then may have a history another process made.
    private(set) var historyKeysRead: Int64 = 0

    /// Remembers `record` as the newest of the history `key` (nil: it has none).
    mutating func remember(_ record: RevisionRecord?, for key: String) {
        if record != nil { historyKeys?.insert(key) }
        newest[key] = .some(record.map(NewestRevision.init))
    }
    /// Forgets what was kept of the history `key`: the next look reads its log, whatever the
    /// keys on disk said (another process over the folder may have made it since).
    mutating func forget(_ key: String) {
        historyKeys?.insert(key)
        newest[key] = nil
    }
    /// Whether the history `key` may exist, reading the keys on disk with `keys` the first time.
    /// `changed`: the file's ctime (nanoseconds since 1970), when known: a file changed since the
    /// keys were read may have a history that another process over the folder made meanwhile (a
    /// second server, a command's own embedded club), so its log is read. (The kernel stamps a
    /// ctime from its coarse clock, up to a tick behind the time read here: a tick earlier counts.)
    mutating func mayHaveHistory(_ key: String, changed: Int64?, keys: () -> [String]) -> Bool {
        if historyKeys == nil {
            historyKeysRead = Self.now() - Self.coarseTick
            historyKeys = Set(keys())
        }
        if historyKeys?.contains(key) ?? true { return true }
        guard let changed else { return false }
        return changed >= historyKeysRead
    }

    /// The wall clock, in nanoseconds since 1970.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// The resolution of the clock file times are stamped from (10 ms when it cannot be read).
    static let coarseTick: Int64 = {
        var resolution = timespec()
        guard clock_getres(CLOCK_REALTIME_COARSE, &resolution) == 0 else { return 10_000_000 }
        return max(Int64(resolution.tv_sec) * 1_000_000_000 + Int64(resolution.tv_nsec), 1_000_000)
    }()
    /// Deleted files by id; loaded on first use. By id, not by path: two files deleted in turn
    /// at one path (the second moved there, so with an id of its own) both stay restorable.
    var tombstones: [String: Tombstone]? {
        didSet { tombstonePaths = nil }
    }
    /// Tombstone ids by `path_lower`, built when first needed after `tombstones` changed, so a
    /// commit of a new file looks up its path without a scan.
    private var tombstonePaths: [String: [String]]?
    /// The deleted file a restore is committing, for the length of that commit.
    var restoring: (pathLower: String, id: String)?

    /// The tombstones `deleted.json` holds. Servers before issue 23 keyed it by `path_lower`;
    /// the values are the same, so both read by re-keying each tombstone by its id (the newest
    /// delete wins where two share one).
    static func tombstones(stored data: Data?) -> [String: Tombstone] {
        guard let data, let stored = try? JSONDecoder().decode([String: Tombstone].self, from: data) else { return [:] }
        return Dictionary(stored.values.map { ($0.id, $0) }) { $0.deleted >= $1.deleted ? $0 : $1 }
    }

    /// The file deleted last at `pathLower` (exact ties go to the greater id, so the answer
    /// does not depend on the dictionary's order); `expired` asks for one past retention.
    mutating func tombstone(at pathLower: String, expired: Bool = false) -> Tombstone? {
        if tombstonePaths == nil {
            var paths: [String: [String]] = [:]
            for tombstone in (tombstones ?? [:]).values { paths[tombstone.path.lowercased(), default: []].append(tombstone.id) }
            tombstonePaths = paths
        }
        return (tombstonePaths?[pathLower] ?? []).compactMap { tombstones?[$0] }
            .filter { ($0.expired ?? false) == expired }
            .max { ($0.deleted, $0.deletedNanoseconds ?? 0, $0.id) < ($1.deleted, $1.deletedNanoseconds ?? 0, $1.id) }
    }

    /// The deleted file whose id a new file at `pathLower` takes up, so its history goes on:
    /// the one a restore names (`restoring`), else the one deleted there last. Its tombstone
    /// goes; nil when there is none.
    mutating func reclaim(_ pathLower: String) -> Tombstone? {
        let restored = restoring.flatMap { $0.pathLower == pathLower ? tombstones?[$0.id] : nil }
        guard let tombstone = restored ?? tombstone(at: pathLower) else { return nil }
        tombstones?[tombstone.id] = nil
        return tombstone
    }

    /// Expires the tombstones deleted before `cutoff` and forgets those expired long before it
    /// (``HistoryRetention/fate(of:cutoff:)``): the ids whose histories go now, and whether
    /// any tombstone changed.
    mutating func expireTombstones(cutoff: Int64) -> (expired: [String], changed: Bool) {
        var expired: [String] = []
        var changed = false
        for (id, tombstone) in tombstones ?? [:] {
            switch HistoryRetention.fate(of: tombstone, cutoff: cutoff) {
            case .keep: continue
            case .forget: tombstones?[id] = nil
            case .expire:
                tombstones?[id]?.expired = true
                expired.append(id)
            }
            changed = true
        }
        return (expired, changed)
    }

    /// `sharing_info` for a revision, when the server has members (who made it, if known).
    /// `sharing_info` for a version made by `member` (nil: not known).
    func sharingInfo(by member: String?) -> FileSharingInfo? {
        guard showsAuthors else { return nil }
        // A reader's answers say the folder is read-only to them, as Dropbox's do for a viewer.
        return FileSharingInfo(readOnly: CallerRole.readsOnly, parentSharedFolderID: Self.sharedFolderID,
                               modifiedBy: member.map(ClubMember.accountID(of:)))
    }

    /// The club folder's id as a shared folder, constant: a server shares exactly one.
    static let sharedFolderID = "1"
}
