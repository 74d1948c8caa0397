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
    /// How long a plain club's live note is quiet before the server writes its file (one
    /// revision per burst; ``LiveRoom``).
    package var writePause: Duration = .seconds(2)
    /// Whether the server writes a plain club's live notes (and seeds a new room from the file);
    /// off, the members do, as in an encrypted club (the channel's relay tests).
    package var serverWrites = true

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
    /// The rooms whose notes the server writes (a plain club's, with someone in them), and who
    /// is told of any revision of theirs: one made outside the live note is merged in.
    private let watched = Mutex<Set<String>>([])
    private let committed = Mutex<(@Sendable (String) -> Void)?>(nil)
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

    /// The members who wrote in the note with id `fileID` since its last revision, in the order
    /// they first wrote, the list kept (the server's own write names the first as its saver).
    func peek(fileID: String) -> [String] {
        guard let room = LiveHub.roomName(forID: fileID) else { return [] }
        return rooms.withLock { $0[room] ?? [] }
    }

    /// The members who wrote in the note with id `fileID` since this was last asked, in the
    /// order they first wrote; the note's list starts again empty.
    func take(fileID: String) -> [String] {
        guard let room = LiveHub.roomName(forID: fileID) else { return [] }
        if watched.withLock({ $0.contains(room) }) { committed.withLock { $0 }?(room) }
        guard let members = rooms.withLock({ $0.removeValue(forKey: room) }) else { return [] }
        revised.withLock { $0 }?(room)
        return members
    }

    /// Calls `action` with each room whose note gets a revision after members wrote in it live.
    func whenRevised(_ action: @escaping @Sendable (String) -> Void) {
        revised.withLock { $0 = action }
    }

    /// Whether any revision of `room`'s note is to be told (``whenCommitted(_:)``).
    func watch(_ room: String, _ on: Bool) {
        watched.withLock { if on { $0.insert(room) } else { $0.remove(room) } }
    }

    /// Calls `action` with each watched room whose note gets a revision, by anyone.
    func whenCommitted(_ action: @escaping @Sendable (String) -> Void) {
        committed.withLock { $0 = action }
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

/// The rooms of the live channel: one per note id, each an actor of its own (``LiveRoom``) with
/// its members' connections and its log on disk. The hub only finds a note's room, makes it, and
/// lets it go once no one is in it and its log is closed.
package actor LiveHub {
    private let directory: String
    let limits: LiveLimits
    /// Who wrote in each room since its note's last revision.
    let writers: LiveWriters
    /// The notes' files, for the rooms of a plain club (nil: the members write them).
    private let files: LiveNoteFiles?
    private let logger: Logger
    private var rooms: [String: LiveRoom] = [:]
    /// Who holds each room: its connections, and a compaction under way.
    private var holders: [String: Int] = [:]
    private var nextID: UInt64 = 0
    /// Rooms kept at most before the idle ones are let go.
    static let keptRooms = 64

    init(directory: String, limits: LiveLimits, logger: Logger, writers: LiveWriters = LiveWriters(), files: LiveNoteFiles? = nil) {
        self.directory = directory
        self.limits = limits
        self.writers = writers
        self.files = files
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

    /// The room named `name`, made when there is none, held until ``release(_:)``.
    private func hold(_ name: String) -> LiveRoom {
        holders[name, default: 0] += 1
        if let room = rooms[name] { return room }
        if rooms.count >= Self.keptRooms {
            for (other, room) in rooms where holders[other] == nil && room.isIdle { rooms[other] = nil }
        }
        let room = LiveRoom(name: name, directory: directory, limits: limits, writers: writers, files: files, logger: logger)
        rooms[name] = room
        return room
    }

    private func release(_ name: String) {
        let left = (holders[name] ?? 1) - 1
        holders[name] = left > 0 ? left : nil
    }

    /// Adds a connection to a room: it is sent the stored log, then everyone gets the presence.
    /// Returns the connection's id and its room, or a refusal.
    /// `plain`: the note is a plain club's (the server can read its updates and writes its file).
    func join(room name: String, member: String, plain: Bool = false,
              send: AsyncStream<LiveOutbound>.Continuation) async -> Result<(id: UInt64, room: LiveRoom), LiveControl.Refused> {
        nextID += 1
        let id = nextID
        let room = hold(name)
        if let refused = await room.join(id: id, member: member, plain: plain, send: send) {
            release(name)
            return .failure(refused)
        }
        return .success((id, room))
    }

    /// Removes a connection; the others get the new presence. The last one out closes the log.
    func leave(room name: String, id: UInt64) async {
        guard let room = rooms[name] else { return }
        release(name)
        await room.leave(id: id)
    }

    /// After a revision of the room's note: a plain club's log becomes one record, a snapshot of
    /// the document its updates make (``LiveLog/compact(_:)``), so a room's log holds about the
    /// note's text, not every key ever typed in it. Members in the room lose nothing (they hold
    /// every update), and one who joins later gets the snapshot. A log the server cannot read
    /// (an encrypted club's sealed updates, or any record that is not an update) is left whole.
    /// Returns the log's size before and after, or nil when it was left as it was.
    @discardableResult
    func compact(room name: String) async -> (before: Int, after: Int)? {
        let room = hold(name)
        defer { release(name) }
        return await room.compact()
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

    /// A revision of the room's note was committed (by anyone): a room that writes its note
    /// looks at the file after its pause, and merges in a change made outside the live note.
    func committed(room name: String) async {
        await rooms[name]?.fileCommitted()
    }

    /// Connections in a room now (for tests).
    func connections(room name: String) async -> Int { await rooms[name]?.connections ?? 0 }

    /// Where a room's writing of its note stands (for tests); nil when there is no such room.
    package func writing(room name: String) async -> LiveRoomWriting? { await rooms[name]?.writing }
}
