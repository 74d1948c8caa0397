import DropboxWire
import Foundation
import Remote

/// The agent's wire format: one JSON object per line, each way, every one carrying `"v": 1`.
///
/// A client sends requests (`{"v":1,"op":"submit",…}`) and reads one reply per request
/// (`{"v":1,"ok":true,…}` or `{"v":1,"ok":false,"error":"…"}`), in order. After `watch` the
/// connection also carries events (`{"v":1,"event":"progress","transfer":{…}}`), interleaved
/// with replies; a client tells them apart by `event`. docs/agent.md documents it.
public enum AgentProtocol {
    /// The version this build speaks. A request of another version is answered with an error
    /// that names both, so an old app and a new agent (or the reverse) say why they cannot talk.
    public static let version = 1
}

/// Which club the agent works for, as the client resolved it (flags, config, environment).
///
/// Sent with `hello` over the 0600 socket and kept in the agent's memory only: the journal
/// records ``key`` and the kind, never `secret`, so a token or password is never written
/// anywhere tokens.json (Dropbox) does not already hold it.
public struct AgentRemote: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case club, webdav, dropbox, embedded }

    public var kind: Kind
    /// The club server's or WebDAV folder's URL; Dropbox's API base when not the real one.
    public var url: String?
    /// The club token or WebDAV password (never journaled).
    public var secret: String?
    /// The WebDAV user.
    public var user: String?
    /// The embedded club's folder.
    public var dataDir: String?
    /// Bytes per second (`--bwlimit`) of the client that said hello. Kept for old clients: the
    /// agent limits each transfer by its own ``AgentTransfer/bandwidthLimit``.
    public var bandwidthLimit: Int64?
    /// Seconds without data before a request fails (`--timeout`).
    public var idleTimeout: Double?
    /// Names this club: one agent, one socket, one journal per key.
    public var key: String
    /// A club server's pinned key (`sha256//…`): the agent's connections accept no other.
    public var pin: String?
    /// The club's folder (a named remote's `folder`; nil: `/byteclub`), where an encrypted
    /// club keeps its keys.
    public var folder: String?

    public init(kind: Kind, key: String, url: String? = nil, secret: String? = nil, user: String? = nil, dataDir: String? = nil,
                bandwidthLimit: Int64? = nil, idleTimeout: Double? = nil, pin: String? = nil) {
        self.pin = pin
        self.kind = kind
        self.key = key
        self.url = url
        self.secret = secret
        self.user = user
        self.dataDir = dataDir
        self.bandwidthLimit = bandwidthLimit
        self.idleTimeout = idleTimeout
    }
}

/// One transfer the agent owns. Its JSON is what `byteclub transfers --json` prints, and is
/// stable: fields may be added, never renamed or removed.
public struct AgentTransfer: Codable, Sendable, Equatable, QueuedTransfer {
    public enum Kind: String, Codable, Sendable { case upload, download }
    /// queued, running, paused, done, failed or cancelled: the states of Remote's
    /// `TransferQueue`, which the app's transfers go through too.
    public typealias State = TransferState

    public var id: String
    public var kind: Kind
    /// The file on this machine: the upload's source, the download's destination.
    public var local: String
    /// The path in the club folder.
    public var remote: String
    /// How an upload treats a file already there: `"add"` or `"overwrite"` in the JSON.
    public var mode: WriteMode
    public var autorename: Bool
    public var state: State
    /// Bytes done and expected (-1 unknown).
    public var done: Int64
    public var total: Int64
    /// Why it failed, for a person.
    public var error: String?
    /// Where it landed (an upload renamed by `autorename`).
    public var result: String?
    /// The upload session to continue after a restart, or handed over with `submit` (the app's
    /// own session, continued at the server's offset).
    public var session: UploadSessionMark?
    /// A paused download's resume data; with `submit`, a partial file to continue at its size.
    public var resumeData: Data?
    public var created: Date
    /// Bytes per second for this transfer (`--bwlimit`), kept through a restart of the agent.
    public var bandwidthLimit: Int64?
    /// Connections for a large file (`--streams`; nil: as `put` chooses by itself).
    public var streams: Int?

    public init(id: String, kind: Kind, local: String, remote: String, mode: WriteMode = .add, autorename: Bool = false,
                state: State = .queued, done: Int64 = 0, total: Int64 = -1, created: Date = Date(), bandwidthLimit: Int64? = nil,
                streams: Int? = nil, session: UploadSessionMark? = nil, resumeData: Data? = nil) {
        self.id = id
        self.kind = kind
        self.local = local
        self.remote = remote
        self.mode = mode
        self.autorename = autorename
        self.state = state
        self.done = done
        self.total = total
        self.created = created
        self.bandwidthLimit = bandwidthLimit
        self.streams = streams
        self.session = session
        self.resumeData = resumeData
    }

    public var queueState: TransferState {
        get { state }
        set { state = newValue }
    }

    /// The file's name, for a row or a line.
    public var name: String {
        let path = kind == .upload ? local : remote
        return path.split(separator: "/").last.map(String.init) ?? path
    }
}

/// A request from a client.
public struct AgentRequest: Codable, Sendable, Equatable {
    public enum Op: String, Codable, Sendable { case hello, submit, list, watch, pause, resume, cancel, clear }

    public var v: Int
    public var op: Op
    /// `hello`: the club.
    public var remote: AgentRemote?
    /// `submit`: what to move (its id, state and figures are the agent's to set).
    public var transfer: AgentTransfer?
    /// `pause`, `resume`, `cancel`: which transfer.
    public var id: String?

    public init(op: Op, remote: AgentRemote? = nil, transfer: AgentTransfer? = nil, id: String? = nil, v: Int = AgentProtocol.version) {
        self.v = v
        self.op = op
        self.remote = remote
        self.transfer = transfer
        self.id = id
    }
}

/// A reply to a request, or (with `event` set) an event of a watched connection.
public struct AgentReply: Codable, Sendable, Equatable {
    public var v: Int = AgentProtocol.version
    public var ok: Bool?
    public var error: String?
    /// `progress` (a transfer moved or changed state) or `removed` (cleared).
    public var event: String?
    public var transfer: AgentTransfer?
    public var transfers: [AgentTransfer]?
    /// `hello`: the agent's process id.
    public var agent: Int32?

    public init(ok: Bool? = nil, error: String? = nil, event: String? = nil, transfer: AgentTransfer? = nil,
                transfers: [AgentTransfer]? = nil, agent: Int32? = nil) {
        self.ok = ok
        self.error = error
        self.event = event
        self.transfer = transfer
        self.transfers = transfers
        self.agent = agent
    }

    public static func failure(_ message: String) -> AgentReply { AgentReply(ok: false, error: message) }
}

/// JSON lines: one object, no newline inside (JSONEncoder never writes one), then `\n`.
public enum AgentLines {
    public static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        data.append(0x0A)
        return data
    }

    public static func decode<T: Decodable>(_ type: T.Type, from line: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: line)
    }
}
