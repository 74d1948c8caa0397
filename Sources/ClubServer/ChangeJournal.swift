import Crypto
import Foundation
import Durable
import Synchronization

/// One change the journal remembers: a path that was written (created, replaced, moved or copied
/// there) or removed, with its sequence number.
struct JournalRecord: Sendable, Equatable {
    enum Kind: Character, Sendable {
        case written = "+"
        case removed = "-"
    }

    var seq: UInt64
    var kind: Kind
    /// The path as it was spelled on disk; `path_lower` is its lower case, as everywhere else.
    var display: String
    var lower: String

    init(seq: UInt64, kind: Kind, display: String) {
        self.seq = seq
        self.kind = kind
        self.display = display
        self.lower = display.lowercased()
    }

    /// Whether a listing of `folder` (lower case, "" for the root) would show this change: a direct
    /// child, any descendant when `recursive`, or the folder itself or one of its ancestors (which
    /// may have been removed or replaced). Continue and longpoll both use this, so a longpoll's
    /// `{"changes":true}` always has a delta behind it.
    ///
    /// Paths are compared byte for byte, as names on disk are: a name spelled with a combining
    /// accent is another name than the same one precomposed.
    func concerns(folder: String, recursive: Bool) -> Bool {
        let path = lower.utf8
        let base = folder.utf8
        if path.count > base.count {
            guard path.starts(with: base), path.dropFirst(base.count).first == UInt8(ascii: "/") else { return false }
            if recursive { return true }
            // A direct child: no other slash after the folder's.
            return !path.dropFirst(base.count + 1).contains(UInt8(ascii: "/"))
        }
        // The folder itself, or an ancestor of it.
        guard !folder.isEmpty, base.starts(with: path) else { return false }
        return path.count == base.count || base.dropFirst(path.count).first == UInt8(ascii: "/")
    }

    /// Whether this record is about the listed folder itself or one of its ancestors (rather
    /// than something inside it).
    func isAtOrAbove(folder: String) -> Bool {
        lower.utf8.count <= folder.utf8.count
    }
}

/// The change journal: every commit the server makes, and every change it notices on disk, as a
/// numbered record, kept in `.byteclub/journal` so that cursors outlive the process.
///
/// A `Sendable` class behind one mutex, not part of the `FolderStore` actor's state: a longpoll
/// checks and waits here without queueing behind commits. Only the actor appends (so records are
/// numbered in commit order); anyone may read and wait.
///
/// The file is a header line, `byteclub-journal 1 <secret> <compacted-through>`, then one line
/// per record, `<seq> <+|-> <path_display>` (paths never hold control characters, so neither tab
/// nor newline can occur in one). It is appended and fdatasynced with each batch, and rewritten
/// (temp file, then rename) when it holds twice `limit` records, keeping the newest `limit`.
/// The secret signs cursors, so a cursor from another server (or from before the journal was
/// lost) is told apart from one of ours.
final class ChangeJournal: Sendable {
    /// How a longpoll's wait ended.
    enum Outcome: Sendable, Equatable {
        case changed
        case timedOut
        /// The cursor is older than what the journal still holds: list again.
        case reset
        /// Too many longpolls wait already: answered at once with a `backoff`.
        case busy
    }

    struct Position: Sendable {
        var head: UInt64
        var compactedThrough: UInt64
    }

    private struct Waiter {
        var folder: String
        var recursive: Bool
        var continuation: CheckedContinuation<Outcome, Never>?
        var outcome: Outcome?
    }

    private struct State {
        var records: [JournalRecord] = []
        var head: UInt64 = 0
        /// Records up to this one were dropped by compaction; cursors before it get `reset`.
        var compactedThrough: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        /// Signs cursors: 32 random bytes, made with the journal, and made anew when an append
        /// could not be kept (so no cursor outlives records the file may have lost).
        var secretText: String
        /// False after an append failed: the file is no longer a prefix of `records`, so the next
        /// append rewrites it whole instead of appending to it.
        var fileIsCurrent = true
        /// False while a new journal's file has been written but not flushed, nor its folder
        /// (``load(_:)``): the first append flushes both before any record counts as kept.
        var folderFlushed = true
        /// The file as this server last read or wrote it (inode, bytes), so an append can tell
        /// what another server over the folder appended or rewrote since (MetaLock).
        var fileInode: UInt64 = 0
        var fileLength = 0
    }

    let path: String
    /// `.byteclub`, where MetaLock's file is.
    private let directory: String
    /// Records kept after a compaction (docs/server.md, "Change journal").
    let limit: Int
    private let state: Mutex<State>

    /// Loads the journal at `path`, or starts a new one (with a new secret, so that cursors of a
    /// lost journal are refused rather than misread).
    init(path: String, limit: Int) {
        self.path = path
        self.limit = max(1, limit)
        directory = (path as NSString).deletingLastPathComponent
        // Under the folder's lock: another server starting at once must not repair the file
        // while this one reads it.
        state = Mutex(MetaLock.holding(directory) { Self.load(path) })
    }

    /// The file's records and secret, the file repaired (a torn last line cut) or made new.
    private static func load(_ path: String) -> State {
        var loaded = State(secretText: Self.newSecret())
        var fresh = true
        if let data = FileManager.default.contents(atPath: path) {
            // Split by bytes, so `kept` counts the bytes of the lines read whole.
            let lines = Array(data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            let header = lines.first.map { String(decoding: $0, as: UTF8.self) }?.split(separator: " ") ?? []
            if lines.count > 1, header.count == 4, header[0] == "byteclub-journal", header[1] == "1", let through = UInt64(header[3]),
               Data(base64Encoded: String(header[2]))?.count == 32 {
                fresh = false
                loaded.secretText = String(header[2])
                loaded.compactedThrough = through
                loaded.head = through
                let parsed = parseRecords(Array(data)[(lines[0].count + 1)...], after: through)
                loaded.records = parsed.records
                loaded.head = parsed.records.last?.seq ?? through
                let kept = lines[0].count + 1 + parsed.consumed
                // Cut what was not read (a torn last line, or anything after a bad one) before
                // appending: a record glued onto a torn "5" would read back as another number,
                // and every record after a bad line would be dropped on the next load.
                if kept < data.count && !Self.truncate(path, to: kept) { loaded.fileIsCurrent = false }
            }
        }
        if fresh || !loaded.fileIsCurrent {
            // A new journal is written without a flush: no one holds a cursor of its secret yet,
            // and the first record appended flushes the file and its folder (``appendLocked(_:)``).
            // Lost in an OS crash before that, it is made again with a new secret, as any lost
            // journal is. A server's first start (an app's embedded club) then draws its first
            // frame without waiting on the disk, which a busy disk made take seconds.
            let written = rewrite(path, loaded.records, compactedThrough: loaded.compactedThrough, secretText: loaded.secretText,
                                  flush: !fresh)
            loaded.fileIsCurrent = written
            loaded.folderFlushed = !fresh
            // A file that could not be repaired keeps its secret: cursors made now must not be
            // taken for its own after a restart.
            if !written { loaded.secretText = Self.newSecret() }
        }
        (loaded.fileInode, loaded.fileLength) = stamp(path)
        return loaded
    }

    /// Records from journal lines (`<seq> <+|-> <path>`), in increasing numbers, up to the first
    /// line that is bad, out of order or cut short (the last piece, with no newline after it);
    /// those numbered `after` or less are known already and skipped. Also says how many bytes
    /// were read whole.
    private static func parseRecords(_ bytes: ArraySlice<UInt8>, after known: UInt64) -> (records: [JournalRecord], consumed: Int) {
        var records: [JournalRecord] = []
        var consumed = 0
        var previous: UInt64 = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            let fields = String(decoding: line, as: UTF8.self).split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let seq = UInt64(fields[0]), seq > previous,
                  let symbol = fields[1].first, fields[1].count == 1, let kind = JournalRecord.Kind(rawValue: symbol),
                  fields[2].hasPrefix("/") else { break }
            previous = seq
            consumed += line.count + 1
            if seq > known { records.append(JournalRecord(seq: seq, kind: kind, display: String(fields[2]))) }
        }
        return (records, consumed)
    }

    /// The file's inode and length now (zeros when it is missing).
    private static func stamp(_ path: String) -> (UInt64, Int) {
        var info = stat()
        return stat(path, &info) == 0 ? (UInt64(info.st_ino), Int(info.st_size)) : (0, 0)
    }

    /// Takes in what another server over the folder journalled since this one last wrote: its
    /// records appended after ours, or the whole file if it rewrote it. Called under MetaLock.
    /// Returns the records taken in, so their longpolls wake as for our own.
    private func catchUp() -> [JournalRecord] {
        let (inode, length) = Self.stamp(path)
        let (knownInode, knownLength, head) = state.withLock { ($0.fileInode, $0.fileLength, $0.head) }
        guard inode != 0, inode != knownInode || length != knownLength, let data = FileManager.default.contents(atPath: path) else { return [] }
        let bytes = Array(data)
        // Appended to: read from where we left it. Rewritten: everything after its header.
        let start = inode == knownInode && bytes.count > knownLength ? knownLength : (bytes.firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count)
        let parsed = Self.parseRecords(bytes[start...], after: head)
        state.withLock { state in
            state.records.append(contentsOf: parsed.records)
            state.head = parsed.records.last?.seq ?? state.head
            (state.fileInode, state.fileLength) = (inode, start + parsed.consumed)
            // Something unreadable after what was read: write the file anew rather than after it.
            if start + parsed.consumed < bytes.count { state.fileIsCurrent = false }
        }
        return parsed.records
    }

    /// Takes in, now, what another server over the folder journalled since this one last read
    /// or wrote the file, and wakes the longpolls it concerns, as for this server's own records.
    ///
    /// An append takes them in too (``append(_:)``), but a server that writes nothing (the app's
    /// embedded one, while `byteclub tag` runs a server of its own over the folder) would never
    /// hear of them: a tag writes no file the rescan sees, only this record. The change watcher
    /// calls this at each tick; it costs a `stat` when nothing came.
    func takeInForeignRecords() {
        let (inode, length) = Self.stamp(path)
        let known = state.withLock { ($0.fileInode, $0.fileLength) }
        guard inode != 0, inode != known.0 || length != known.1 else { return }
        let woken = MetaLock.holding(directory) { () -> [(CheckedContinuation<Outcome, Never>, Outcome)] in
            let foreign = catchUp()
            guard !foreign.isEmpty else { return [] }
            return state.withLock { Self.wake(&$0, for: foreign) }
        }
        for (continuation, outcome) in woken { continuation.resume(returning: outcome) }
    }

    /// Marks `.changed` every waiting longpoll that one of `records` concerns: the continuations
    /// of those suspended already, to resume once the lock is let go; the others find the
    /// outcome when they come to wait.
    private static func wake(_ state: inout State, for records: [JournalRecord]) -> [(CheckedContinuation<Outcome, Never>, Outcome)] {
        var woken: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
        for (id, waiter) in state.waiters where waiter.outcome == nil {
            guard records.contains(where: { $0.concerns(folder: waiter.folder, recursive: waiter.recursive) }) else { continue }
            if let continuation = waiter.continuation {
                state.waiters[id] = nil
                woken.append((continuation, .changed))
            } else {
                state.waiters[id]?.outcome = .changed
            }
        }
        return woken
    }

    private static func newSecret() -> String {
        Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64EncodedString()
    }

    /// Shortens the file to its first `length` bytes, durably.
    private static func truncate(_ path: String, to length: Int) -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return ftruncate(fd, off_t(length)) == 0 && DurableFile.flush(fd)
    }

    /// The newest record's number and the compaction boundary, read together.
    var position: Position {
        state.withLock { Position(head: $0.head, compactedThrough: $0.compactedThrough) }
    }

    /// Records after `seq` up to `through`, or nil when some of them were compacted away.
    func records(after seq: UInt64, through: UInt64) -> [JournalRecord]? {
        state.withLock { state in
            guard seq >= state.compactedThrough, through <= state.head, seq <= through else { return nil }
            return Self.slice(state.records, after: seq).prefix { $0.seq <= through }.map { $0 }
        }
    }

    private static func slice(_ records: [JournalRecord], after seq: UInt64) -> ArraySlice<JournalRecord> {
        // Numbers are increasing: binary search for the first record after `seq`.
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].seq <= seq { low = middle + 1 } else { high = middle }
        }
        return records[low...]
    }

    // MARK: - Appending (the FolderStore actor only)

    /// Numbers, stores and publishes changes, waking the longpolls they concern. Called only from
    /// the `FolderStore` actor, so numbering follows commit order.
    func append(_ changes: [(JournalRecord.Kind, String)]) {
        guard !changes.isEmpty else { return }
        MetaLock.holding(directory) { appendLocked(changes) }
    }

    private func appendLocked(_ changes: [(JournalRecord.Kind, String)]) {
        // Numbered after whatever another server over the folder journalled meanwhile.
        let foreign = catchUp()
        // Only this actor-serialized caller (and catchUp, under the same MetaLock) moves
        // `head`, so numbering outside the mutex is safe.
        var seq = position.head
        let records = changes.map { change -> JournalRecord in
            seq += 1
            return JournalRecord(seq: seq, kind: change.0, display: change.1)
        }
        let (current, folderFlushed) = state.withLock { ($0.fileIsCurrent, $0.folderFlushed) }
        let appended = current && writeDurably(records)
        if appended && !folderFlushed {
            // The new journal's name, from its first start: on disk before its first record is.
            DurableFile.syncFolder(of: path)
            state.withLock { $0.folderFlushed = true }
        }
        let written = records.map(Self.line).joined().utf8.count
        var woken: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
        let compact: (records: [JournalRecord], through: UInt64, secret: String)? = state.withLock { state in
            state.records.append(contentsOf: records)
            state.head = seq
            if appended { state.fileLength += written }
            if !appended && state.fileIsCurrent {
                // The file may now hold part of these records, or none: a restart could number
                // new changes over them, and a cursor made from here on would then skip those.
                // A new secret makes every cursor made so far answer `reset`, and cursors made
                // from now on are good only once the file is rewritten with it (below, or at a
                // later append); a file that is never rewritten keeps the old secret.
                state.secretText = Self.newSecret()
                state.fileIsCurrent = false
            }
            woken = Self.wake(&state, for: foreign + records)
            if state.records.count > 2 * limit {
                let dropped = state.records.count - limit
                state.compactedThrough = state.records[dropped - 1].seq
                state.records.removeFirst(dropped)
                // A waiter now behind the boundary was not concerned by what was dropped (it would
                // have been woken above); its next call gets `reset`.
            } else if state.fileIsCurrent {
                return nil
            }
            return (state.records, state.compactedThrough, state.secretText)
        }
        for (continuation, outcome) in woken { continuation.resume(returning: outcome) }
        guard let compact else { return }
        if Self.rewrite(path, compact.records, compactedThrough: compact.through, secretText: compact.secret) {
            let stamp = Self.stamp(path)
            state.withLock { state in
                state.fileIsCurrent = true
                (state.fileInode, state.fileLength) = stamp
            }
        } else if !state.withLock({ $0.fileIsCurrent }) {
            // Neither appended nor rewritten: remove the file, so that a restart starts a new
            // journal (and a new secret) rather than loading the old secret with records missing.
            unlink(path)
        }
    }

    private static func line(_ record: JournalRecord) -> String {
        "\(record.seq) \(record.kind.rawValue) \(record.display)\n"
    }

    /// Appends `records` to the file and fdatasyncs it; false when any step failed. The file
    /// must exist (a missing one is not recreated without its header).
    private func writeDurably(_ records: [JournalRecord]) -> Bool {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let text = records.map(Self.line).joined()
        return DurableFile.writeAll(fd, Array(text.utf8)) && DurableFile.flush(fd, dataOnly: true)
    }

    /// Replaces the file with a header and `records` (``DurableFile``); false when
    /// the file was left as it was.
    private static func rewrite(_ path: String, _ records: [JournalRecord], compactedThrough: UInt64, secretText: String,
                                flush: Bool = true) -> Bool {
        var text = "byteclub-journal 1 \(secretText) \(compactedThrough)\n"
        text.reserveCapacity(records.count * 40)
        for record in records { text += line(record) }
        do {
            try DurableFile.write(Array(text.utf8), to: path, flush: flush)
            return true
        } catch {
            return false
        }
    }

    // MARK: - Waiting (longpolls)

    enum Registration: Sendable {
        case now(Outcome)
        case waiting(UInt64)
    }

    /// Registers a longpoll on `folder` after `seq`: answered at once when a change it concerns
    /// is already in, or when the cursor is too old; otherwise a waiter to `wait` on.
    ///
    /// At most `cap` wait at once; past it a longpoll is answered `.busy` at once (a `backoff`:
    /// its client polls again later with the same cursor), and no waiting one is disturbed.
    /// Hummingbird does not cancel a request whose client hung up, so a longpoll whose client is
    /// gone waits out its timeout; without a cap, clients that need no token could pile up such
    /// waiters faster than they expire.
    ///
    /// A backed-off client misses nothing: a change is checked for *before* the cap, so a cursor
    /// with news is answered `changed` however many wait, and a change made during the backoff
    /// is still after the cursor when the client comes back.
    func register(after seq: UInt64, folder: String, recursive: Bool, cap: Int) -> Registration {
        state.withLock { state -> Registration in
            guard seq >= state.compactedThrough, seq <= state.head else { return .now(.reset) }
            if Self.slice(state.records, after: seq).contains(where: { $0.concerns(folder: folder, recursive: recursive) }) {
                return .now(.changed)
            }
            guard state.waiters.count < max(1, cap) else { return .now(.busy) }
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = Waiter(folder: folder, recursive: recursive)
            return .waiting(state.nextWaiter)
        }
    }

    /// Suspends (holding no thread) until the waiter is resolved by a change, `resolve` (its
    /// timeout, a shutdown) or the task's cancellation.
    func wait(_ id: UInt64) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let ready = state.withLock { state -> Outcome? in
                    guard let waiter = state.waiters[id] else { return .timedOut }
                    if let outcome = waiter.outcome {
                        state.waiters[id] = nil
                        return outcome
                    }
                    state.waiters[id]?.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            resolve(id, .timedOut)
        }
    }

    /// Ends a wait with `outcome`, unless it has already ended.
    func resolve(_ id: UInt64, _ outcome: Outcome) {
        let continuation = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard let waiter = state.waiters[id], waiter.outcome == nil else { return nil }
            if let continuation = waiter.continuation {
                state.waiters[id] = nil
                return continuation
            }
            state.waiters[id]?.outcome = outcome
            return nil
        }
        continuation?.resume(returning: outcome)
    }

    /// Longpolls waiting now (for tests and benchmarks).
    var waiting: Int { state.withLock { $0.waiters.count } }

    // MARK: - Cursor signatures

    /// A short signature of a cursor's text under this journal's secret.
    func sign(_ payload: String) -> String {
        let secret = Data(base64Encoded: state.withLock { $0.secretText }) ?? Data()
        let code = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: SymmetricKey(data: secret))
        return ListCursor.base64URL(Data(code.prefix(16)))
    }
}
