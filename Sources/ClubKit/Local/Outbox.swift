import Foundation
import Durable
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One change made while the server could not be reached, waiting to be sent: a note created,
/// saved, renamed or deleted, or a photo to upload.
///
/// An item holds everything its send needs, so it survives a restart (or `kill -9`): a note's
/// text, the rev the change was based on (a save is sent as `update` at exactly that rev, so a
/// change someone made meanwhile is merged, never overwritten), and for a photo the local path,
/// size and modification time it had when it was queued (the file is read again when sent; a
/// file changed or gone by then is reported, not sent).
public struct OutboxItem: Codable, Equatable, Sendable, Identifiable {
    public enum Kind: String, Codable, Sendable {
        /// A new note: `add` at ``OutboxItem/path``, never over an existing note.
        case create
        /// A note's new text: `update` at ``OutboxItem/baseRev``.
        case save
        /// A note moved from ``OutboxItem/path`` to ``OutboxItem/newPath``.
        case rename
        /// A note deleted, if it is still at ``OutboxItem/baseRev``.
        case delete
        /// A photo uploaded from ``OutboxItem/localFile`` to ``OutboxItem/path``.
        case upload
    }

    /// Unique, and part of the file name.
    public var id: String
    /// The order items are sent in (older first).
    public var seq: Int
    public var kind: Kind
    /// The remote path: the note (create, save, rename, delete) or the photo's target (upload).
    public var path: String
    /// A rename's new path.
    public var newPath: String?
    /// The rev the change was based on (nil for a create or an upload). Moving it forgets
    /// ``baseText`` unless that is set after it.
    public var baseRev: String? {
        didSet { if baseRev != oldValue { baseText = nil } }
    }
    /// The text this change was written on, when known: the base of the three-way merge when
    /// the server has changed the note meanwhile. It is the text at ``baseRev``, or, for a save
    /// that follows one of ours that went in merged, that save's text. A server that keeps no
    /// revisions (WebDAV) has no other base to give.
    public var baseText: String?
    /// For people: the note's title or the photo's name.
    public var title: String
    /// The note's text (create, save).
    public var text: String?
    /// An upload's local file, and its size and modification time when it was queued.
    public var localFile: String?
    public var localSize: Int64?
    public var localModified: Date?
    /// The draft that holds the same text (removed once the server confirmed, if it still holds that text).
    public var draftID: String?
    /// The item this one was made after, by the same editor (its text builds on that one's):
    /// only such an item takes the path and rev the earlier one made (``OutboxSender``). Another
    /// app's change of the same note, queued from the same base, is merged instead.
    public var follows: String?
    /// When it was queued.
    public var queued: Date
    /// A rename an editor waits for (an online Ctrl-S): moved only at ``baseRev``, so a note
    /// changed on the server meanwhile is asked about rather than moved. Cleared when the item
    /// is left to wait; nil (the default) moves it anyway and merges later saves.
    public var onlyAtBaseRev: Bool?
    /// A create that joins a note of the same name made meanwhile rather than standing beside
    /// it: `byteclub today`, where two members who each made the day's note offline must end up
    /// with one note holding both texts. Nil (every other create) keeps ours as a draft instead.
    public var joinsExisting: Bool?
    /// A create sent at least once without an answer (a reply lost, a process killed before it
    /// heard): it may be in the club already, and moved on by someone since, so before it goes
    /// again its folder is looked in for its very bytes (``OutboxSender``).
    public var tried: Bool?

    public init(kind: Kind, path: String, newPath: String? = nil, baseRev: String? = nil, title: String,
                text: String? = nil, localFile: String? = nil, localSize: Int64? = nil, localModified: Date? = nil,
                draftID: String? = nil, follows: String? = nil, queued: Date) {
        id = UUID().uuidString.lowercased()
        seq = 0
        self.kind = kind
        self.path = path
        self.newPath = newPath
        self.baseRev = baseRev
        self.title = title
        self.text = text
        self.localFile = localFile
        self.localSize = localSize
        self.localModified = localModified
        self.draftID = draftID
        self.follows = follows
        self.queued = queued
    }

    /// Whether this item changes the note or photo at `path` (lowercased compare; a rename
    /// counts for both its old and its new path).
    public func touches(_ path: String) -> Bool {
        let lower = path.lowercased()
        return self.path.lowercased() == lower || newPath?.lowercased() == lower
    }
}

/// The outbox: items as JSON files in one folder, `$XDG_STATE_HOME/byteclub/outbox/<remote>/`,
/// named `<seq>-<id>.json` so the folder lists in sending order.
///
/// Every write goes through ``DurableFile`` (temp file, fsync, rename, folder fsync) before the
/// call returns, so an item the app said it queued is on disk, and an item the sender removed
/// after the server confirmed it stays removed after a crash. A file that cannot be read is
/// skipped by ``all()`` and never deleted. Senders, in this process or another (a second app, or
/// `byteclub outbox --send`), take ``withSendLock(_:)`` first, so two never send at once.
public final class Outbox: Sendable {
    public let directory: URL
    /// Serialises this process's writes, so two appends never take the same seq.
    private let writes = Mutex(())

    public init(directory: URL) {
        self.directory = directory
    }

    private func url(_ item: OutboxItem) -> URL {
        directory.appendingPathComponent(String(format: "%012d", item.seq) + "-" + item.id + ".json")
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// Every readable item, in sending order.
    public func all() -> [OutboxItem] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
            .compactMap { name in
                guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)) else { return nil }
                return try? decoder.decode(OutboxItem.self, from: data)
            }
            .sorted { ($0.seq, $0.queued, $0.id) < ($1.seq, $1.queued, $1.id) }
    }

    public var count: Int { all().count }
    public var isEmpty: Bool { all().isEmpty }

    /// Queues `item` after every item there is, durably; returns it with its seq.
    @discardableResult
    public func append(_ item: OutboxItem) throws -> OutboxItem {
        try writes.withLock { _ in
            var item = item
            item.seq = (all().map(\.seq).max() ?? 0) + 1
            try DurableFile.write(try Self.encoder.encode(item), to: url(item))
            return item
        }
    }

    /// Rewrites an item in place (same seq and id): a later item retargeted after an earlier
    /// one was confirmed (a rename's new path, a save's new base rev).
    public func replace(_ item: OutboxItem) throws {
        try writes.withLock { _ in
            try DurableFile.write(try Self.encoder.encode(item), to: url(item))
        }
    }

    /// Removes an item once the server confirmed it (or it was handed back as a draft).
    public func remove(_ item: OutboxItem) throws {
        try writes.withLock { _ in try DurableFile.remove(url(item)) }
    }

    /// A move this machine made (``OutboxSender/Direct/move(from:to:autorename:)``), kept
    /// beside the items (`.moves.json`, the last ``movesKept``): a change queued later at the
    /// old path, by an editor that still had the note open there, follows the move when it is
    /// sent, on a server that cannot say where a note went (WebDAV) as on one that can.
    public struct Move: Codable, Equatable, Sendable {
        public var from: String
        public var to: String
        /// The id of the note moved, when a note (not a folder) moved and the server names its
        /// files: the note a change queued at `from` must be written on to follow it there.
        public var id: String?
    }

    /// How many of this machine's moves are kept.
    public static let movesKept = 64

    private var movesFile: URL { directory.appendingPathComponent(".moves.json") }

    /// This machine's moves, oldest first.
    public func moves() -> [Move] {
        guard let data = try? Data(contentsOf: movesFile) else { return [] }
        return (try? JSONDecoder().decode([Move].self, from: data)) ?? []
    }

    /// Records a move this machine made (the oldest beyond ``movesKept`` go); `id`: the note's,
    /// when a note moved.
    public func recordMove(from: String, to: String, id: String? = nil) throws {
        try writes.withLock { _ in
            var moves = moves()
            moves.append(Move(from: from, to: to, id: id))
            try DurableFile.write(try Self.encoder.encode(Array(moves.suffix(Self.movesKept))), to: movesFile)
        }
    }

    /// Where `path` went by this machine's moves since (each move of it or of a folder above it,
    /// in order), or nil when none moved it; `id`: the note the first of them moved, when that
    /// moved the note itself (not a folder above it) and the server named it.
    public func whereMoved(_ path: String) -> (path: String, id: String?)? {
        var current = path
        var moved = false
        var id: String?
        for move in moves() {
            let next = NoteResolver.path(afterMoving: current, from: move.from, to: move.to)
            if next != current {
                if !moved, current.lowercased() == move.from.lowercased() { id = move.id }
                current = next
                moved = true
            }
        }
        return moved ? (current, id) : nil
    }

    /// Runs `body` holding the outbox's send lock (`flock` on `.send.lock` in the folder), or
    /// returns nil at once when another sender holds it. The lock goes with the process, so a
    /// sender killed mid-way never leaves it held.
    public func withSendLock<T>(_ body: () async throws -> T) async rethrows -> T? {
        try? PrivateFiles.folder(directory)
        let fd = PrivateFiles.open(directory.appendingPathComponent(".send.lock").path, O_CREAT | O_RDWR)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return nil }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }
}
