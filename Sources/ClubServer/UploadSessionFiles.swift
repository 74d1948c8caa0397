import Durable
import Foundation
import Synchronization

/// The files of `.byteclub/sessions/`: each session's bytes (`<id>`), and its markers, the
/// member who opened it (`<id>.owner`, written at its start), and a concurrent session's ledger
/// (`<id>.concurrent`, ``ConcurrentSessionLedger``). A closed session says so in its own mode
/// (``markClosed(_:)``); servers before 2026-11-27 left a `<id>.closed` file, still honoured.
///
/// Reading and writing only; what a sweep removes and what a member may hold are decided by
/// ``SessionSweep`` and ``UploadSessionLedger``. Sessions from before owners were recorded
/// belong to nobody and count for nobody.
enum UploadSessionFiles {
    static let ownerSuffix = ".owner"

    /// Who opened each session this process has seen, by session path: a marker never changes
    /// once written (ids are random and never reused), so it is read from disk once. Without it
    /// every `start` and append read every open session's marker (on the store's actor, ahead of
    /// every commit): with a few hundred open, as a batch upload keeps, a 1 KiB start took 44 ms.
    private static let knownOwners = Mutex<[String: String]>([:])

    /// Records who opened a session; false if the marker cannot be written.
    ///
    /// One `open` and one `write` of a few bytes, not a temporary file renamed and flushed (two
    /// inodes and a flush for each file a `put -r` sends): a marker lost to a crash leaves a
    /// session nobody owns, which counts for nobody and expires as any other.
    static func recordOwner(_ member: String, of session: String) -> Bool {
        let fd = open(session + ownerSuffix, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        let written = DurableFile.writeAll(fd, Array(member.utf8))
        close(fd)
        guard written else {
            unlink(session + ownerSuffix)
            return false
        }
        knownOwners.withLock { $0[session] = member }
        let directory = (session as NSString).deletingLastPathComponent
        openSessions.withLock { $0.add(session, owner: member, in: directory) }
        return true
    }

    /// The mode bit that says a sequential session is closed: its owner's execute bit, on a file
    /// made 0600. Issue 56: the `<id>.closed` file it replaces was two more inodes for each file
    /// a `put -r` sends (Foundation writes it through a temporary file), one of them deleted at
    /// once and the other at its commit, and ext4's search for free inodes among the recently
    /// deleted ones was 7–10% of the server's time. A commit sets the file's mode anew.
    static let closedBit: mode_t = S_IXUSR

    /// Marks a sequential session closed (no more appends; a batch may commit it).
    @discardableResult
    static func markClosed(_ session: String) -> Bool { chmod(session, 0o600 | closedBit) == 0 }

    /// Whether the session whose file has `info` is closed: its mode, or an older server's marker.
    static func isClosed(_ session: String, info: stat) -> Bool {
        info.st_mode & closedBit != 0 || access(session + ".closed", F_OK) == 0
    }

    /// ``isClosed(_:info:)`` for a session not `stat`ed yet (false when it is gone).
    static func isClosed(_ session: String) -> Bool {
        var info = stat()
        return stat(session, &info) == 0 && isClosed(session, info: info)
    }

    /// Removes a session's owner marker (the session itself was committed or removed). With
    /// `later`, the marker is only forgotten now and removed by ``removeForgottenMarkers()``.
    static func forgetOwner(of session: String, later: Bool = false) {
        if later {
            _ = forgottenMarkers.withLock { $0.insert(session + ownerSuffix) }
        } else {
            unlink(session + ownerSuffix)
        }
        _ = knownOwners.withLock { $0.removeValue(forKey: session) }
        openSessions.withLock { $0.remove(session) }
    }

    /// Owner markers of committed sessions not removed yet. A batch's commits leave theirs here
    /// and the change watcher removes them once the batches have ended: on ext4 without a
    /// journal a new inode is looked for past every inode deleted in the last 5–35 seconds, one
    /// block lookup each, so a marker deleted at each commit slowed every file a `put -r` made
    /// after it (issue 56). A marker whose session is gone counts for nobody (``owned(by:in:)``)
    /// and, left by a crash, is swept with the expired sessions.
    private static let forgottenMarkers = Mutex<Set<String>>([])

    /// Removes the markers ``forgetOwner(of:later:)`` left.
    static func removeForgottenMarkers() {
        let markers = forgottenMarkers.withLock { markers in
            defer { markers = [] }
            return markers
        }
        for marker in markers { unlink(marker) }
    }

    /// The sessions open in the sessions folder, by owner, with their sizes as last seen: what
    /// ``owned(by:in:)`` answers from, so a `start` or an append among a batch's thousand open
    /// sessions does not list the folder and `stat` each of them. Read from the folder again
    /// when a second old (another server over the same folder opens sessions too), kept by this
    /// process's own starts, appends and commits meanwhile.
    private static let openSessions = Mutex(OpenSessions())

    struct OpenSessions {
        static let freshness: Duration = .seconds(1)
        var directory: String?
        var listed: ContinuousClock.Instant?
        /// By session path: its owner and apparent size.
        var sessions: [String: (owner: String, size: Int64)] = [:]

        func isFresh(for directory: String) -> Bool {
            guard self.directory == directory, let listed else { return false }
            return ContinuousClock.now - listed < Self.freshness
        }

        mutating func add(_ session: String, owner: String, in directory: String) {
            guard self.directory == directory else { return }
            sessions[session] = (owner, sessions[session]?.size ?? 0)
        }

        mutating func remove(_ session: String) { sessions[session] = nil }

        mutating func setSize(_ size: Int64, of session: String) {
            guard let known = sessions[session] else { return }
            sessions[session] = (known.owner, size)
        }
    }

    /// A session's size after an append to it, for ``owned(by:in:)``.
    static func noteSize(of session: String) {
        let size = apparentSize(session)
        openSessions.withLock { $0.setSize(size, of: session) }
    }

    /// The member a session's marker names: remembered, or read once.
    private static func owner(of session: String) -> String? {
        if let known = knownOwners.withLock({ $0[session] }) { return known }
        guard let data = FileManager.default.contents(atPath: session + ownerSuffix) else { return nil }
        let member = String(decoding: data, as: UTF8.self)
        knownOwners.withLock { $0[session] = member }
        return member
    }

    /// The sessions `member` has open in `directory`, with their files' apparent sizes.
    static func owned(by member: String, in directory: String) -> [String: Int64] {
        if let known = openSessions.withLock({ $0.isFresh(for: directory) ? $0.sessions : nil }) {
            return known.reduce(into: [:]) { owned, entry in if entry.value.owner == member { owned[entry.key] = entry.value.size } }
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let forgotten = forgottenMarkers.withLock { $0 }
        var all: [String: (owner: String, size: Int64)] = [:]
        for name in names where name.hasSuffix(ownerSuffix) && !forgotten.contains(directory + "/" + name) {
            let session = directory + "/" + String(name.dropLast(ownerSuffix.count))
            // A marker whose session is gone (committed) is not read.
            var info = stat()
            guard stat(session, &info) == 0, let owner = owner(of: session) else { continue }
            all[session] = (owner, Int64(info.st_size))
        }
        openSessions.withLock { $0 = OpenSessions(directory: directory, listed: .now, sessions: all) }
        return all.reduce(into: [:]) { owned, entry in if entry.value.owner == member { owned[entry.key] = entry.value.size } }
    }

    static func apparentSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    // MARK: - Concurrent sessions' ledgers

    static func ledgerPath(_ session: String) -> String { session + ConcurrentSessionLedger.suffix }

    /// The session's ledger; nil for a sequential session (or one that is gone).
    static func readLedger(_ session: String) -> ConcurrentSessionLedger? {
        guard let data = FileManager.default.contents(atPath: ledgerPath(session)) else { return nil }
        return ConcurrentSessionLedger(text: String(decoding: data, as: UTF8.self))
    }

    /// Replaces the ledger whole and durably (``DurableFile``): a block it records as written
    /// stays recorded after a crash, as the block's bytes do.
    static func writeLedger(_ ledger: ConcurrentSessionLedger, for session: String, temporaryDirectory: String) -> Bool {
        (try? DurableFile.write(Data(ledger.text.utf8), to: ledgerPath(session), permissions: 0o600,
                                temporaryDirectory: temporaryDirectory)) != nil
    }

    /// Creates an empty concurrent session's file and ledger.
    static func createConcurrent(_ session: String, temporaryDirectory: String) -> Bool {
        guard FileManager.default.createFile(atPath: session, contents: nil, attributes: [.posixPermissions: 0o600]) else { return false }
        guard writeLedger(ConcurrentSessionLedger(), for: session, temporaryDirectory: temporaryDirectory) else {
            unlink(session)
            return false
        }
        return true
    }

    // MARK: - Expiry

    /// Removes what ``SessionSweep`` says has expired in `directory`; callable before the actor
    /// exists (at start, when nothing is leased). Returns the names removed.
    static func sweep(_ directory: String, olderThan expiry: Duration, now: Date, isLeased: (String) -> Bool) -> [String] {
        var modified: [String: Double] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            var info = stat()
            modified[name] = lstat(directory + "/" + name, &info) == 0
                ? Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9 : .infinity
        }
        let cutoff = SessionSweep.cutoff(expiry: expiry, now: now)
        let removed = SessionSweep.expired(modified, cutoff: cutoff) { isLeased(directory + "/" + $0) }
            .filter { unlink(directory + "/" + $0) == 0 }
        let markers = SessionSweep.markers(modified, removed: Set(removed), cutoff: cutoff).filter { unlink(directory + "/" + $0) == 0 }
        let gone = markers.filter { $0.hasSuffix(ownerSuffix) }.map { directory + "/" + String($0.dropLast(ownerSuffix.count)) }
        if !gone.isEmpty { knownOwners.withLock { known in for session in gone { known.removeValue(forKey: session) } } }
        if !removed.isEmpty || !markers.isEmpty { openSessions.withLock { $0.listed = nil } }
        return removed + markers
    }
}
