import DropboxWire
import Foundation
import LiveText
import Logging
import Synchronization

/// Bounds of the live channel (docs/live.md, "Limits").
package struct LiveLimits: Sendable {
    /// The largest update a client may send; a larger one is refused with an error message and
    /// the connection stays open.
    package var maxUpdateBytes = 1 << 20
    /// Frames larger than this are not even read: the WebSocket layer closes the connection
    /// (close code 1009, "message too big").
    package var maxFrameBytes = 4 << 20
    /// A room's stored log at most; an update that would take it past this is refused.
    package var maxLogBytes = 64 << 20
    /// Members' connections in one room at most; one more is refused at join.
    package var maxPeersPerRoom = 64

    package init() {}
}

/// Who has written in each live note since its file's last revision: the members whose updates
/// the room stored. The revision that next writes the file names them beside the member who
/// saved it (``RevisionRecord/with``), so a burst typed by three members is one revision by
/// all three. Shared by the hub (which adds) and the folder's actor (which takes at a commit):
/// a lock, not an actor, so a commit reads it without a suspension.
final class LiveWriters: Sendable {
    private let rooms = Mutex<[String: [String]]>([:])
    /// Told each room whose note got a revision after members wrote in it live (the hub compacts
    /// its log then).
    private let revised = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// Rooms remembered at most; past it, one room's list (any) is let go to make room, and
    /// that note's next revision names only its saver. A server has far fewer notes edited live
    /// between two saves.
    static let maxRooms = 10_000

    init() {}

    /// `member` sent an update to `room`.
    func wrote(_ member: String, in room: String) {
        rooms.withLock { rooms in
            if rooms[room]?.contains(member) == true { return }
            if rooms[room] == nil, rooms.count >= Self.maxRooms { rooms.remove(at: rooms.startIndex) }
            rooms[room, default: []].append(member)
        }
    }

    /// The members who wrote in the note with id `fileID` since this was last asked, in the
    /// order they first wrote; the note's list starts again empty.
    func take(fileID: String) -> [String] {
        guard let room = LiveHub.roomName(forID: fileID) else { return [] }
        guard let members = rooms.withLock({ $0.removeValue(forKey: room) }) else { return [] }
        revised.withLock { $0 }?(room)
        return members
    }

    /// Calls `action` with each room whose note gets a revision after members wrote in it live.
    func whenRevised(_ action: @escaping @Sendable (String) -> Void) {
        revised.withLock { $0 = action }
    }
}

/// What a connection is sent, in order: relayed or stored updates, control messages, and at
/// last a close.
enum LiveOutbound: Sendable, Equatable {
    case update([UInt8])
    case control(LiveControl)
    case close(reason: String)
    /// The server is stopping: closed with 1001 (going away), so the client comes back later.
    case goingAway
}

/// The rooms of the live channel: one per note id, each with its members' connections and its
/// log on disk.
///
/// A relay and a store: updates are opaque bytes. One actor orders everything a room sees, so an
/// update is appended to the log and handed to every other connection in the same step: the
/// log's order is the order every member receives, and a joiner gets the stored log and then
/// the live updates with nothing missed or doubled between them.
package actor LiveHub {
    struct Peer {
        let member: String
        let send: AsyncStream<LiveOutbound>.Continuation
    }
    private struct Room {
        var log: LiveLog
        var peers: [(id: UInt64, peer: Peer)] = []
    }

    private let directory: String
    let limits: LiveLimits
    /// Who wrote in each room since its note's last revision.
    let writers: LiveWriters
    private let logger: Logger
    private var rooms: [String: Room] = [:]
    private var nextID: UInt64 = 0

    init(directory: String, limits: LiveLimits, logger: Logger, writers: LiveWriters = LiveWriters()) {
        self.directory = directory
        self.limits = limits
        self.writers = writers
        self.logger = logger
    }

    /// The room's file name for a note id (`id:abc` → `abc`); nil for an id that cannot be one.
    static func roomName(forID id: String) -> String? {
        let key = id.hasPrefix("id:") ? String(id.dropFirst(3)) : id
        guard !key.isEmpty, key.count <= 128,
              key.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") })
        else { return nil }
        return key
    }

    /// Adds a connection to a room: it is sent the stored log, then everyone gets the presence.
    /// Returns the connection's id, or a refusal.
    func join(room name: String, member: String, send: AsyncStream<LiveOutbound>.Continuation) -> Result<UInt64, LiveControl.Refused> {
        guard let room = rooms[name] else {
            do {
                let (log, frames) = try LiveLog.open(directory: directory, room: name)
                rooms[name] = Room(log: log)
                return finishJoin(name, member: member, send: send, stored: frames)
            } catch {
                logger.error("live: cannot open the log of \(name): \(error)")
                return .failure(LiveControl.Refused(message: "the server cannot open this note's live log"))
            }
        }
        guard room.peers.count < limits.maxPeersPerRoom else {
            return .failure(LiveControl.Refused(message: "this note has \(limits.maxPeersPerRoom) connections already"))
        }
        // The open room's log is whole (only this actor appends to it, a whole record at a time).
        return finishJoin(name, member: member, send: send, stored: LiveLog.read(path: room.log.path).frames)
    }

    private func finishJoin(_ name: String, member: String, send: AsyncStream<LiveOutbound>.Continuation, stored: [[UInt8]]) -> Result<UInt64, LiveControl.Refused> {
        nextID += 1
        let id = nextID
        send.yield(.control(.welcome(member: member)))
        for frame in stored { send.yield(.update(frame)) }
        rooms[name]?.peers.append((id, Peer(member: member, send: send)))
        sendPresence(name)
        return .success(id)
    }

    /// Removes a connection; the others get the new presence. The last one out closes the log.
    func leave(room name: String, id: UInt64) {
        guard var room = rooms[name] else { return }
        room.peers.removeAll { $0.id == id }
        if room.peers.isEmpty {
            room.log.close()
            rooms[name] = nil
        } else {
            rooms[name] = room
            sendPresence(name)
        }
    }

    /// Stores an update and relays it to every other connection in the room, tagged with its
    /// sender. Returns nil when done, else why it was refused (nothing stored, nothing sent).
    func receive(room name: String, id: UInt64, member: String, update: [UInt8]) -> String? {
        guard var room = rooms[name] else { return "not in a live note" }
        guard update.count <= limits.maxUpdateBytes else {
            return "update of \(update.count) bytes refused: at most \(limits.maxUpdateBytes) bytes"
        }
        let frame = LiveFrame.encode(member: member, update: update)
        guard room.log.currentSize + 4 + frame.count <= limits.maxLogBytes else {
            return "update refused: this note's live log is full (\(limits.maxLogBytes) bytes)"
        }
        do {
            try room.log.append(frame)
        } catch {
            logger.error("live: cannot store an update of \(name): \(error)")
            return "update refused: the server cannot store it"
        }
        rooms[name] = room
        // A writer's mark of its revision (plain: an encrypted club's is sealed) is no typing.
        if !RevisionMark.isMark(update) { writers.wrote(member, in: name) }
        for (other, peer) in room.peers where other != id { peer.send.yield(.update(frame)) }
        return nil
    }

    /// After a revision of the room's note: a plain club's log becomes one record, a snapshot of
    /// the document its updates make (``LiveLog/compact(_:)``), so a room's log holds about the
    /// note's text, not every key ever typed in it. Members in the room lose nothing (they hold
    /// every update), and one who joins later gets the snapshot. A log the server cannot read
    /// (an encrypted club's sealed updates, or any record that is not an update) is left whole.
    /// Returns the log's size before and after, or nil when it was left as it was.
    @discardableResult
    func compact(room name: String) -> (before: Int, after: Int)? {
        var opened: LiveLog?
        if rooms[name] == nil {
            guard FileManager.default.fileExists(atPath: directory + "/" + name), let (log, _) = try? LiveLog.open(directory: directory, room: name)
            else { return nil }
            opened = log
        }
        guard var log = opened ?? rooms[name]?.log else { return nil }
        defer { if opened != nil { log.close() } }
        do {
            let sizes = try log.compact(Self.snapshot(of:))
            if opened == nil { rooms[name]?.log = log }
            if let sizes { logger.debug("live: \(name)'s log compacted from \(sizes.before) to \(sizes.after) bytes") }
            return sizes
        } catch {
            if opened == nil { rooms[name]?.log = log }
            logger.error("live: cannot compact the log of \(name): \(error)")
            return nil
        }
    }

    /// The frames that hold what `frames` hold: the state of the document their updates make, as
    /// one update (sent as from no member), then the newest ``RevisionMark``s among them as they
    /// came, at most ``RevisionMark/kept`` (a member back in the note reads from them that the
    /// file's revision came from the document).
    /// Nil when any is neither an update this server can read nor a mark, or some update waits
    /// for one that is not there (a snapshot would leave it out).
    package static func snapshot(of frames: [[UInt8]]) -> [[UInt8]]? {
        var document = LiveDocument(clientID: 0)
        var marks: [[UInt8]] = []
        for frame in frames {
            guard let (_, update) = LiveFrame.decode(frame) else { return nil }
            if RevisionMark.isMark(update) {
                marks.append(frame)
                continue
            }
            guard (try? document.apply(update: Data(update))) != nil else { return nil }
        }
        guard !document.hasPendingUpdates else { return nil }
        return [LiveFrame.encode(member: "", update: document.encodeStateAsUpdate())] + marks.suffix(RevisionMark.kept)
    }

    /// Relays a connection's cursor to the others in the room, with its member's name (not stored).
    func cursor(room name: String, id: UInt64, member: String, at: String) {
        guard let room = rooms[name] else { return }
        let message = LiveOutbound.control(.memberCursor(member: member, at: at))
        for (other, peer) in room.peers where other != id { peer.send.yield(message) }
    }

    /// Sends one connection the presence list.
    func presence(room name: String, to id: UInt64) {
        guard let room = rooms[name], let peer = room.peers.first(where: { $0.id == id })?.peer else { return }
        peer.send.yield(.control(.presence(members: Self.members(of: room))))
    }

    private func sendPresence(_ name: String) {
        guard let room = rooms[name] else { return }
        let message = LiveOutbound.control(.presence(members: Self.members(of: room)))
        for (_, peer) in room.peers { peer.send.yield(message) }
    }

    private static func members(of room: Room) -> [String] {
        var seen: Set<String> = []
        return room.peers.map(\.peer.member).filter { seen.insert($0).inserted }
    }

    /// Connections in a room now (for tests).
    func connections(room name: String) -> Int { rooms[name]?.peers.count ?? 0 }
}
