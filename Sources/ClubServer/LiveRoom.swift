import Dispatch
import DropboxWire
import Foundation
import LiveText
import Logging
import Synchronization

/// A member's connection in a room: its name and what it is sent.
struct LivePeer {
    let member: String
    let send: AsyncStream<LiveOutbound>.Continuation
}

/// One note's room: its members' connections and its log on disk (docs/live.md, "The server").
///
/// Each room is an actor of its own, and its disk work runs on a queue of its own: a room
/// waiting on a flush holds up no other room, and no thread of the server's task pool.
///
/// **Grouped flushes.** An update is stored before it is relayed (an update a member has seen
/// relayed is on disk), but the updates that come while one flush runs are written after it
/// together, in one write and one flush: a burst of keys costs a few flushes, not one a key, and
/// a connection reads its next update while the last is flushed.
///
/// **Order.** The log's order is the order every member receives. What a connection sends
/// after an update (its cursor, its question for the presence) is relayed or answered after
/// that update is stored and relayed. A joiner is let in between two flushes: it is sent the
/// stored log, then every update relayed after it, none missed or doubled.
actor LiveRoom {
    private enum Queued {
        /// An update, as its frame for the log; `typed` when it is not a writer's revision mark.
        case update(from: UInt64, member: String, frame: [UInt8], typed: Bool)
        case cursor(from: UInt64, message: LiveOutbound)
        case presence(to: UInt64)
        /// Resumed once what was queued before it is stored and relayed (false: the store failed).
        case stored(CheckedContinuation<Bool, Never>)
    }

    private struct Joiner {
        let id: UInt64
        let peer: LivePeer
        let done: CheckedContinuation<LiveControl.Refused?, Never>
    }

    let name: String
    /// Its log on its queue (a test holds the queue to see what waits for the disk).
    let disk: LiveRoomDisk
    let limits: LiveLimits
    let writers: LiveWriters
    let logger: Logger
    /// The note's file, when the server writes it (``LiveRoom+File``).
    let files: LiveNoteFiles?
    /// The server's own writing: set up at the first join of a plain club's note.
    var fileWriter: LiveRoomFileWriter?
    /// The server found it cannot write this note (too big to seed, or a log it cannot read
    /// whole): its members do, for the room's life.
    var leftToMembers = false

    var peers: [(id: UInt64, peer: LivePeer)] = []
    private var queued: [Queued] = []
    /// The bytes the queued updates add to the log, and those of the updates being stored now.
    private var queuedBytes = 0
    private var storingBytes = 0
    /// The log's size after the last step on the disk (another server over the folder may append too).
    private var storedBytes = 0
    private var joiners: [Joiner] = []
    private var compactions: [CheckedContinuation<(before: Int, after: Int)?, Never>] = []
    /// Whether the pump runs: it alone touches the disk, one step at a time.
    private var busy = false
    /// Flushes of the log for updates since the room was made (for tests).
    private(set) var flushes = 0
    private let idleFlag = Atomic<Bool>(true)

    /// Whether the room holds nothing: no member, nothing queued, its log closed. The hub lets
    /// such a room go.
    nonisolated var isIdle: Bool { idleFlag.load(ordering: .acquiring) }

    init(name: String, directory: String, limits: LiveLimits, writers: LiveWriters, files: LiveNoteFiles? = nil, logger: Logger) {
        self.name = name
        self.disk = LiveRoomDisk(directory: directory, room: name)
        self.limits = limits
        self.writers = writers
        self.files = files
        self.logger = logger
    }

    // MARK: What connections ask

    /// Lets a connection in, between two flushes: it is told who it is, sent the stored log,
    /// then everyone gets the presence. Nil when in, else the refusal. `plain`: the note is a
    /// plain club's, so the server writes its file (told in the welcome).
    func join(id: UInt64, member: String, plain: Bool = false, send: AsyncStream<LiveOutbound>.Continuation) async -> LiveControl.Refused? {
        if plain, fileWriter == nil, files != nil, !leftToMembers {
            fileWriter = LiveRoomFileWriter()
            writers.watch(name, true)
        }
        return await withCheckedContinuation { done in
            joiners.append(Joiner(id: id, peer: LivePeer(member: member, send: send), done: done))
            kick()
        }
    }

    /// Removes a connection; the others get the new presence. The last one out closes the log,
    /// once what it sent is stored.
    func leave(id: UInt64) {
        peers.removeAll { $0.id == id }
        if peers.isEmpty { kick() } else { sendPresence() }
    }

    /// Queues an update to be stored and relayed to every other connection, tagged with its
    /// sender. Returns nil when queued, else why it was refused (nothing stored, nothing sent).
    /// A failure to store it is said to its sender later, as an error message.
    func receive(id: UInt64, member: String, update: [UInt8]) -> String? {
        guard peers.contains(where: { $0.id == id }) else { return "not in a live note" }
        guard update.count <= limits.maxUpdateBytes else {
            return "update of \(update.count) bytes refused: at most \(limits.maxUpdateBytes) bytes"
        }
        // A room the server writes from holds only what it can read: a live-text update, or a mark.
        if fileWriter != nil, !RevisionMark.isMark(update), (try? LiveDocument.clockEnds(of: Data(update))) == nil {
            return "update refused: not a live text update"
        }
        let frame = LiveFrame.encode(member: member, update: update)
        guard storedBytes + storingBytes + queuedBytes + 4 + frame.count <= limits.maxLogBytes else {
            return "update refused: this note's live log is full (\(limits.maxLogBytes) bytes)"
        }
        // A writer's mark of its revision (plain: an encrypted club's is sealed) is no typing.
        queued.append(.update(from: id, member: member, frame: frame, typed: !RevisionMark.isMark(update)))
        queuedBytes += 4 + frame.count
        kick()
        return nil
    }

    /// Relays a connection's cursor to the others, with its member's name (not stored), after
    /// the updates it sent before it.
    func cursor(id: UInt64, member: String, at: String) {
        let message = LiveOutbound.control(.memberCursor(member: member, at: at))
        if busy || !queued.isEmpty {
            queued.append(.cursor(from: id, message: message))
            kick()
        } else {
            for (other, peer) in peers where other != id { peer.send.yield(message) }
        }
    }

    /// Sends one connection the presence list, after the updates it sent before it asked.
    func presence(to id: UInt64) {
        if busy || !queued.isEmpty {
            queued.append(.presence(to: id))
            kick()
        } else {
            peers.first { $0.id == id }?.peer.send.yield(.control(.presence(members: members)))
        }
    }

    /// Compacts the log after a revision of the note, between two flushes (``LiveHub/compact(room:)``).
    func compact() async -> (before: Int, after: Int)? {
        await withCheckedContinuation { done in
            compactions.append(done)
            kick()
        }
    }

    /// Connections in the room now.
    var connections: Int { peers.count }

    // MARK: The pump

    func kick() {
        guard !busy else { return }
        busy = true
        idleFlag.store(false, ordering: .releasing)
        Task { await pump() }
    }

    /// Takes the room's work in turn until there is none: joiners, the queued updates (one
    /// write and one flush for all of them), compactions, and at last the log closed when no
    /// one is in the room.
    private func pump() async {
        while true {
            if !joiners.isEmpty {
                let waiting = joiners
                joiners = []
                await admit(waiting)
            } else if !queued.isEmpty {
                let batch = queued
                queued = []
                storingBytes = queuedBytes
                queuedBytes = 0
                await store(batch)
                storingBytes = 0
            } else if !compactions.isEmpty {
                let waiting = compactions
                compactions = []
                let sizes = await compactLog()
                for done in waiting { done.resume(returning: sizes) }
            } else if peers.isEmpty, disk.isOpen {
                try? await disk.run { $0.close() }
                if fileWriter != nil { writers.watch(name, false) }
            } else {
                break
            }
        }
        busy = false
        if peers.isEmpty, !disk.isOpen { idleFlag.store(true, ordering: .releasing) }
        if !peers.isEmpty, fileWriter != nil { writers.watch(name, true) }
    }

    private func admit(_ waiting: [Joiner]) async {
        var frames: [[UInt8]]
        do {
            (frames, storedBytes) = try await disk.run { try $0.readAll() }
            // A note the server writes, with no live history yet: seeded from its file here,
            // before anyone joins. Members who opened it at two revisions seeded two texts,
            // and the note was there twice.
            if frames.isEmpty {
                if let seed = await seed() {
                    storedBytes = try await disk.run { try $0.append([seed]) }
                    frames = [seed]
                }
            } else {
                // A file changed while no one was in the room: in the room before anyone joins,
                // and to those in it already.
                let caughtUp = await catchUp(frames)
                if !caughtUp.isEmpty {
                    storedBytes = try await disk.run { try $0.append(caughtUp) }
                    frames += caughtUp
                    for frame in caughtUp {
                        for (_, peer) in peers { peer.send.yield(.update(frame)) }
                    }
                }
            }
        } catch {
            logger.error("live: cannot open the log of \(name): \(error)")
            for joiner in waiting { joiner.done.resume(returning: LiveControl.Refused(message: "the server cannot open this note's live log")) }
            return
        }
        for joiner in waiting {
            guard peers.count < limits.maxPeersPerRoom else {
                joiner.done.resume(returning: LiveControl.Refused(message: "this note has \(limits.maxPeersPerRoom) connections already"))
                continue
            }
            joiner.peer.send.yield(.control(.welcome(member: joiner.peer.member, serverWrites: fileWriter != nil)))
            for frame in frames { joiner.peer.send.yield(.update(frame)) }
            peers.append((joiner.id, joiner.peer))
            joiner.done.resume(returning: nil)
        }
        sendPresence()
    }

    private func store(_ batch: [Queued]) async {
        let frames = batch.compactMap { item -> [UInt8]? in
            if case .update(_, _, let frame, _) = item { frame } else { nil }
        }
        var failure: String?
        if !frames.isEmpty {
            do {
                storedBytes = try await disk.run { try $0.append(frames) }
                flushes += 1
            } catch {
                logger.error("live: cannot store \(frames.count) updates of \(name): \(error)")
                failure = "update refused: the server cannot store it"
            }
        }
        var typing = false
        for item in batch {
            switch item {
            case .update(let from, let member, let frame, let typed):
                if let failure {
                    peers.first { $0.id == from }?.peer.send.yield(.control(.error(message: failure)))
                    continue
                }
                if typed, from != Self.server {
                    writers.wrote(member, in: name)
                    typing = true
                }
                for (other, peer) in peers where other != from { peer.send.yield(.update(frame)) }
            case .cursor(let from, let message):
                for (other, peer) in peers where other != from { peer.send.yield(message) }
            case .presence(let to):
                peers.first { $0.id == to }?.peer.send.yield(.control(.presence(members: members)))
            case .stored(let done):
                done.resume(returning: failure == nil)
            }
        }
        if typing { scheduleWrite() }
    }

    /// The connection id the server's own updates go as (no connection has it).
    static let server: UInt64 = 0

    /// Stores and relays the server's own updates to every connection (as from no member), and
    /// returns once they are stored. False when one was refused (the log full).
    func storeOwn(_ updates: [[UInt8]]) async -> Bool {
        for update in updates {
            let frame = LiveFrame.encode(member: "", update: update)
            guard storedBytes + storingBytes + queuedBytes + 4 + frame.count <= limits.maxLogBytes else { return false }
            queued.append(.update(from: Self.server, member: "", frame: frame, typed: !RevisionMark.isMark(update)))
            queuedBytes += 4 + frame.count
        }
        return await withCheckedContinuation { done in
            queued.append(.stored(done))
            kick()
        }
    }

    private func compactLog() async -> (before: Int, after: Int)? {
        let name = name
        do {
            let sizes = try await disk.run { try $0.compact(LiveHub.snapshot(of:)) }
            if let sizes {
                storedBytes = sizes.after
                logger.debug("live: \(name)'s log compacted from \(sizes.before) to \(sizes.after) bytes")
            }
            return sizes
        } catch {
            logger.error("live: cannot compact the log of \(name): \(error)")
            return nil
        }
    }

    var members: [String] {
        var seen: Set<String> = []
        return peers.map(\.peer.member).filter { seen.insert($0).inserted }
    }

    private func sendPresence() {
        let message = LiveOutbound.control(.presence(members: members))
        for (_, peer) in peers { peer.send.yield(message) }
    }
}

/// A room's log on its own serial queue: every use of it runs there, one at a time, off the
/// server's task pool (a flush may take seconds on a busy disk).
///
/// `@unchecked Sendable`: `log` is read and written only in the blocks ``run(_:)`` puts on
/// `queue`, which is serial, so one at a time; `open` is an atomic, and the rest is constant.
final class LiveRoomDisk: @unchecked Sendable {
    private let directory: String
    private let room: String
    private let queue: DispatchQueue
    private var log: LiveLog?
    private let open = Atomic<Bool>(false)

    init(directory: String, room: String) {
        self.directory = directory
        self.room = room
        queue = DispatchQueue(label: "byteclub.live.\(room)")
    }

    /// Whether the log is open now.
    var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Runs `body` on the room's queue, with the log at hand.
    func run<T: Sendable>(_ body: @escaping @Sendable (LiveRoomDisk) throws -> T) async throws -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { done in
            queue.async { done.resume(returning: Result { try body(self) }) }
        }
        return try result.get()
    }

    /// The log's whole records and its size, opening it (and dropping a torn last record) when
    /// it is not open yet.
    func readAll() throws -> ([[UInt8]], Int) {
        if let log { return LiveLog.read(path: log.path) }
        let (opened, frames) = try LiveLog.open(directory: directory, room: room)
        log = opened
        open.store(true, ordering: .releasing)
        return (frames, opened.size)
    }

    /// Appends the frames in one write and one flush; the log's size after.
    func append(_ frames: [[UInt8]]) throws -> Int {
        if log == nil { _ = try readAll() }
        try log!.append(frames)
        return log!.size
    }

    /// Compacts the log (``LiveLog/compact(_:)``), opening it for that when no one is in the room.
    func compact(_ snapshot: ([[UInt8]]) -> [[UInt8]]?) throws -> (before: Int, after: Int)? {
        if log == nil {
            guard FileManager.default.fileExists(atPath: directory + "/" + room) else { return nil }
            _ = try readAll()
        }
        return try log!.compact(snapshot)
    }

    func close() {
        log?.close()
        log = nil
        open.store(false, ordering: .releasing)
    }
}
