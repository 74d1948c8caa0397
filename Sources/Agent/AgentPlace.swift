import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where one club's agent lives on this machine: its socket in a folder only this user can
/// enter; its lock, journal, log and the record of its socket's path under the state folder.
///
/// The lock sits beside the journal, not beside the socket: two shells with different
/// `XDG_RUNTIME_DIR`s share one journal, so they must share one lock too, or each would start
/// an agent over the same journal (and `clear` in one would erase the other's transfers). The
/// live agent writes where it listens into ``socketRecord``; a client from any shell connects
/// there, and starts an agent only when nothing answers.
///
/// The folder is `$XDG_RUNTIME_DIR/byteclub/` (a per-user tmpfs the system already made 0700),
/// or without one `<tmp>/byteclub-<uid>/`, which anyone could have made first: it is used only
/// when it is a real folder (not a link) owned by us with no access for others, and refused
/// otherwise, never fixed up (someone else's folder could hold their socket).
public struct AgentPlace: Sendable, Equatable {
    public let folder: URL
    public let socket: URL
    /// Held (flock) by the live agent for its whole life: the one that gets it serves.
    public let lock: URL
    public let journal: URL
    public let log: URL
    /// The live agent's socket path (one line), written once it listens, removed as it leaves.
    public let socketRecord: URL

    /// `key` names the club (``AgentRemote/key``); `stateFolder` is `$XDG_STATE_HOME/byteclub`.
    public init(key: String, stateFolder: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws(AgentError) {
        let folder = try Self.folder(environment: environment)
        let name = Self.safeName(key)
        self.folder = folder
        // A Unix socket's path must fit in 108 bytes: the hash alone names it there.
        let hash = String(name.suffix(16))
        socket = folder.appendingPathComponent("agent-\(hash).sock")
        journal = Self.journal(key: key, stateFolder: stateFolder)
        let beside = journal.deletingLastPathComponent()
        lock = beside.appendingPathComponent("\(name).lock")
        log = beside.appendingPathComponent("\(name).log")
        socketRecord = Self.socketRecord(key: key, stateFolder: stateFolder)
    }

    /// The record of the live agent's socket, found (like the journal) without the socket folder.
    public static func socketRecord(key: String, stateFolder: URL) -> URL {
        stateFolder.appendingPathComponent("agent").appendingPathComponent("\(safeName(key)).socket")
    }

    /// Where the live agent listens, as it recorded it; nil when no agent recorded one.
    public static func recordedSocket(_ record: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: record.path) else { return nil }
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return path.hasPrefix("/") ? path : nil
    }

    /// Where a client connects: the live agent's recorded socket, else the one an agent
    /// started from here would listen on.
    public var liveSocket: String { Self.recordedSocket(socketRecord) ?? socket.path }

    /// The club's journal, found without making (or checking) the socket folder: a command that
    /// only looks for unfinished transfers leaves nothing behind.
    public static func journal(key: String, stateFolder: URL) -> URL {
        stateFolder.appendingPathComponent("agent").appendingPathComponent("\(safeName(key)).json")
    }

    /// A file name for any key: a short readable part and a hash of the whole.
    static func safeName(_ key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let readable = String(key.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(16))
        return readable + "-" + String(format: "%016llx", hash)
    }

    /// The socket folder, made if missing and checked either way.
    static func folder(environment: [String: String]) throws(AgentError) -> URL {
        let uid = getuid()
        let folder: URL
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            folder = URL(fileURLWithPath: runtime).appendingPathComponent("byteclub")
        } else {
            let temporary = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
            folder = URL(fileURLWithPath: temporary).appendingPathComponent("byteclub-\(uid)")
        }
        if mkdir(folder.path, 0o700) != 0, errno != EEXIST {
            throw .place("cannot make the agent's folder \(folder.path): \(String(cString: strerror(errno)))")
        }
        try check(folder: folder.path, uid: uid)
        return folder
    }

    /// Refuses a folder that is a link, not ours, or open to anyone else.
    static func check(folder path: String, uid: uid_t) throws(AgentError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .place("cannot inspect \(path): \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .place("\(path) is not a folder; refusing to put the agent's socket there") }
        guard info.st_uid == uid else {
            throw .place("\(path) belongs to uid \(info.st_uid), not to you (uid \(uid)); refusing to use it for the agent's socket")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw .place("\(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); it must be 0700")
        }
    }
}

/// What can go wrong between a client and the agent, in words for a person.
public enum AgentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The socket folder is unusable.
    case place(String)
    /// No agent answers and none could be started.
    case unreachable(String)
    /// The agent answered with an error, or spoke another version.
    case refused(String)

    public var description: String {
        switch self {
        case .place(let message), .unreachable(let message), .refused(let message): return message
        }
    }
}
