import DropboxWire
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Settings for one club server.
public struct ClubServerConfiguration: Sendable {
    /// The served folder; Dropbox path "/x" is `root/x`.
    public var root: String
    public var host: String = "127.0.0.1"
    /// 0 picks a free port.
    public var port: Int = 0
    /// The bearer token every request must carry; it speaks for the member `club`. Empty: no
    /// shared token, only `members`.
    public var token: String
    /// Members with tokens of their own (`serve --member NAME=TOKEN`); with any, file metadata
    /// says who made each revision (`sharing_info.modified_by`).
    public var members: [ClubMember] = []
    /// HTTPS with this certificate; nil speaks plain HTTP (the embedded club on 127.0.0.1, tests,
    /// and `serve --insecure-http` behind a TLS-terminating proxy).
    public var tls: ServerIdentity?
    /// Members kept in `ROOT/.byteclub/members.json` (`byteclub members`), beside `token` and
    /// `members`; `serve` keeps them, the embedded club does not.
    public var keepsMembers = false
    /// Wrong tokens (or invite secrets) one client address may send in a minute before it is
    /// shut out for a while (AuthThrottle).
    public var failedAuthenticationsPerMinute = 10
    /// How often the member registry is looked at for changes made by `byteclub members --root`.
    public var memberPollInterval: Duration = .milliseconds(200)
    public var chaos: ChaosSpec?
    public var chaosSeed: UInt64 = 1
    /// Per-request body cap; larger files go through upload sessions (Dropbox's limit).
    public var maxRequestBodyBytes: Int64 = 150 * 1024 * 1024
    /// The largest file a copy writes out in full when the disk cannot reflink it: 350 GB, the
    /// largest file Dropbox's upload sessions make, so whatever could be uploaded can be copied.
    public var maxFileBytes: Int64 = UploadSessionType.maxSessionBytes
    /// A member's open upload sessions: at most this many (a start beyond it is a 429) …
    public var maxSessionsPerMember = 1_000
    /// … holding at most this many bytes together, counted by their files' apparent sizes (an
    /// append beyond it is `too_large`). One largest file by default.
    public var maxSessionBytesPerMember: Int64 = UploadSessionType.maxSessionBytes
    /// Timeouts and connection caps (docs/server.md, "Limits and timeouts").
    public var limits = ConnectionLimits()
    /// Upload sessions with nothing appended for this long are removed, with their files, at
    /// start and by a sweep while running (hourly, or every quarter of a shorter expiry).
    public var sessionExpiry: Duration = Self.defaultSessionExpiry
    /// 48 hours: Dropbox keeps sessions a week, but a club's disk is smaller.
    public static let defaultSessionExpiry: Duration = .seconds(48 * 3600)
    /// Change-journal records kept after a compaction; the journal is compacted when it holds
    /// twice as many (docs/server.md, "Change journal"). A cursor older than what is kept gets
    /// `reset`.
    public var journalLimit = 10_000
    /// How often the whole folder is compared with what the server last saw of it, to notice
    /// changes made on disk behind its back.
    public var rescanInterval: Duration = .seconds(1)
    /// What one second of a longpoll's `timeout` lasts. Always one second in service; tests
    /// shrink it so a 30-second longpoll times out in a fraction of a second.
    public var longpollTimeUnit: Duration = .seconds(1)
    /// Longpolls that may wait at once (`serve --max-longpolls`); past it one is answered at
    /// once with `"backoff"` rather than waiting (docs/server.md, "Longpoll").
    public var maxLongpolls = 1_000
    /// The seconds a backed-off longpoll's client is told to wait before its next one.
    public var longpollBackoff = 10
    /// Revisions and deleted files' histories older than this many days are pruned, at start
    /// and daily (`serve --history-days`); 0 keeps them for ever.
    public var historyDays = 30
    /// How often retention runs after the start: daily in service; tests shorten it.
    public var historyPruneInterval: Duration = .seconds(86_400)
    /// The base of share links' URLs (`serve --public-url`), for a server behind a proxy;
    /// nil: the address the member reached the server at.
    public var publicURL: URL?
    /// The live channel's bounds (docs/live.md, "Limits").
    package var live = LiveLimits()
    public var logger: Logger

    /// "https" with TLS, else "http".
    public var scheme: String { tls == nil ? "http" : "https" }

    public init(root: String, token: String, logger: Logger = Logger(label: "byteclub.server")) {
        self.root = root
        self.token = token
        self.logger = logger
    }
}

/// A running club server. `start` returns once it listens; `stop` shuts it down.
public final class ClubServer: Sendable {
    public let port: Int
    public let host: String
    public let root: String
    /// "https" or "http".
    public let scheme: String
    private let task: Task<Void, any Error>
    private let group: ServiceGroup
    private let counters: Counters
    private let admission: ConnectionAdmission
    private let journal: ChangeJournal
    /// The live channel's rooms (for tests: where a room's writing of its note stands).
    package let liveHub: LiveHub

    /// Longpolls waiting for a change now (for tests and benchmarks).
    public var waitingLongpolls: Int { journal.waiting }
    /// Request-body bytes read from the network since start (uploads and sessions).
    public var bodyBytesReceived: Int64 { counters.bodyBytesReceived.load(ordering: .relaxed) }
    /// Upload requests (upload, session start/append/finish) seen since start.
    public var uploadRequests: Int { counters.uploadRequests.load(ordering: .relaxed) }
    /// Connections being served now (refused ones not counted).
    public var openConnections: Int { admission.openConnections }
    /// The cap on connections in force: `limits.maxConnections`, or less if the descriptor limit is lower.
    public var maxConnections: Int { admission.maxConnections }

    public var baseURL: URL { URL(string: "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)")! }

    private init(port: Int, host: String, root: String, scheme: String, task: Task<Void, any Error>, group: ServiceGroup, counters: Counters,
                 admission: ConnectionAdmission, journal: ChangeJournal, liveHub: LiveHub) {
        self.journal = journal
        self.liveHub = liveHub
        self.counters = counters
        self.admission = admission
        self.port = port
        self.host = host
        self.root = root
        self.scheme = scheme
        self.task = task
        self.group = group
    }

    /// Starts serving in the background and returns once the socket is bound.
    public static func start(_ configuration: ClubServerConfiguration) async throws -> ClubServer {
        let api = try ClubAPI(configuration)
        let bound = BoundPort()
        let application = try api.application { port in bound.set(port) }
        let group = ServiceGroup(configuration: .init(services: [application], logger: configuration.logger))
        let claim = api.store.temporaryClaim
        let task = Task {
            // Stopped, its temporary files are leftovers the next server may clear.
            defer { claim.release() }
            try await group.run()
        }
        guard let port = await bound.wait(orFailureOf: task) else {
            task.cancel()
            // The task has ended (that is how the wait ends without a port): its error says why.
            if case .failure(let error) = await task.result, isAddressInUse(error) {
                throw ClubServerError.portInUse(host: configuration.host, port: configuration.port)
            }
            throw ClubServerError.cannotBind("\(configuration.host):\(configuration.port)")
        }
        return ClubServer(port: port, host: configuration.host, root: api.store.root, scheme: configuration.scheme, task: task, group: group, counters: api.counters,
                          admission: api.admission, journal: api.store.journal, liveHub: api.liveHub)
    }

    /// Serves in the foreground until SIGINT or SIGTERM. `onListening` gets the bound port.
    public static func run(_ configuration: ClubServerConfiguration, onListening: @escaping @Sendable (Int, String) -> Void) async throws {
        let api = try ClubAPI(configuration)
        let root = api.store.root
        let application = try api.application { port in onListening(port, root) }
        defer { api.store.temporaryClaim.release() }
        do {
            try await application.runService()
        } catch let error where isAddressInUse(error) {
            // Said as a sentence, not as NIO's `bind(descriptor:ptr:bytes:): Address already in use (errno: 98)`.
            throw ClubServerError.portInUse(host: configuration.host, port: configuration.port)
        }
    }

    /// Whether `error` is the listening socket's bind failing because another socket listens
    /// on that address and port (NIO's `IOError` with `EADDRINUSE`).
    static func isAddressInUse(_ error: any Error) -> Bool {
        guard let error = error as? NIOCore.IOError else { return false }
        return error.errnoCode == EADDRINUSE
    }

    /// Stops accepting, lets requests in flight finish (longpolls and live connections are
    /// answered or closed at once), then returns. A connection still open after `grace` is
    /// closed: a stop never waits on a client.
    ///
    /// Every wait is bounded: a server whose service group does not end once its connections are
    /// closed (seen once in a test run: a stop that never returned held the whole suite) is
    /// cancelled, and a stop returns after three graces whatever happened.
    public func stop(grace: Duration = .seconds(2)) async {
        await group.triggerGracefulShutdown()
        let task = self.task
        if await !Self.ends(task, within: grace) {
            await admission.closeAll()
            if await !Self.ends(task, within: grace) {
                task.cancel()
                _ = await Self.ends(task, within: grace)
            }
        }
        await admission.closeAll()
    }

    /// Whether `task` ended within `grace` (it is left running when not).
    ///
    /// Not a task group: a group waits for all its children before it returns, and a child
    /// awaiting `task.result` does not end when cancelled, so "at most `grace`" became "until the
    /// server ends", which the connections closed only after this returned. The first answer
    /// wins here; the waiter on the task ends when the task does.
    private static func ends(_ task: Task<Void, any Error>, within grace: Duration) async -> Bool {
        let first = FirstAnswer()
        return await withCheckedContinuation { continuation in
            first.waiting(continuation)
            Task { _ = await task.result; first.answer(true) }
            Task { try? await Task.sleep(for: grace); first.answer(false) }
        }
    }
}

/// The first of two answers to a waiting continuation (``ClubServer/ends(_:within:)``).
private final class FirstAnswer: Sendable {
    private let waiter = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func waiting(_ continuation: CheckedContinuation<Bool, Never>) { waiter.withLock { $0 = continuation } }

    func answer(_ value: Bool) {
        waiter.withLock { waiter -> CheckedContinuation<Bool, Never>? in
            defer { waiter = nil }
            return waiter
        }?.resume(returning: value)
    }
}

/// Hands the bound port from the server's start callback to `start`.
private final class BoundPort: Sendable {
    private struct State {
        var done = false
        var port: Int?
        var waiter: CheckedContinuation<Int?, Never>?
    }
    private let state = Mutex(State())

    /// The first call wins: a port once bound, or nil when the server ended without binding.
    func set(_ port: Int?) {
        let waiter = state.withLock { state -> CheckedContinuation<Int?, Never>? in
            guard !state.done else { return nil }
            state.done = true
            state.port = port
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: port)
    }

    /// Waits for the port, or for the server task to end first (a bind failure).
    func wait(orFailureOf task: Task<Void, any Error>) async -> Int? {
        let watcher = Task {
            _ = await task.result
            self.set(nil)
        }
        defer { watcher.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Int?? in
                if state.done { return .some(state.port) }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

public enum ClubServerError: Error, CustomStringConvertible {
    case badRoot(String, String)
    case cannotBind(String)
    /// Another socket listens on that address and port (EADDRINUSE).
    case portInUse(host: String, port: Int)

    public var description: String {
        switch self {
        case .badRoot(let path, let reason): return "Cannot use \(path) as the club folder: \(reason)"
        case .cannotBind(let reason): return "Cannot start the server: \(reason)"
        case .portInUse(let host, let port): return "port \(port) is already in use on \(host)"
        }
    }
}
