import CAgentShim
import Durable
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A client's connection to the club's agent: starts the agent when none answers, says hello,
/// then sends requests and reads replies, handing any events met on the way to `onEvent`.
///
/// Blocking: the CLI calls it from a thread of its own, the app from ``AgentWatcher``'s thread.
public final class AgentClient: @unchecked Sendable {
    // @unchecked Sendable: `connection` is itself thread-safe for writes; reads (replies and
    // events) happen on one thread at a time by contract (the class's doc), so the lines are
    // never split between two readers.
    public let connection: UnixConnection
    /// The agent's process id, from its hello.
    public private(set) var agentPID: Int32 = 0

    init(connection: UnixConnection) { self.connection = connection }

    /// Connects to the agent for `remote`, starting one (`executable agent --key KEY`, detached)
    /// if none answers, and says hello. A socket that refuses connections is a dead agent's:
    /// the new agent replaces it once it holds the lock.
    public static func connect(place: AgentPlace, remote: AgentRemote, executable: String,
                               startTimeout: TimeInterval = 15) throws(AgentError) -> AgentClient {
        let connection: UnixConnection
        let socket = place.liveSocket
        do {
            connection = try UnixSocket.connect(socket)
        } catch let error where error.code == ENOENT || error.code == ECONNREFUSED {
            try start(place: place, key: remote.key, executable: executable)
            connection = try waitForAgent(place: place, timeout: startTimeout)
        } catch {
            throw .unreachable("cannot connect to the agent at \(socket): \(error)")
        }
        let client = AgentClient(connection: connection)
        let reply = try client.request(AgentRequest(op: .hello, remote: remote))
        client.agentPID = reply.agent ?? 0
        return client
    }

    /// A connection to the live agent, if one answers (nothing is started).
    public static func live(place: AgentPlace) -> UnixConnection? {
        try? UnixSocket.connect(place.liveSocket)
    }

    /// Sends `request` and returns its reply (events before it go to `onEvent`). Throws the
    /// agent's error as ``AgentError/refused(_:)``.
    @discardableResult
    public func request(_ request: AgentRequest, onEvent: (AgentReply) -> Void = { _ in }) throws(AgentError) -> AgentReply {
        guard connection.write(AgentLines.encode(request)) else { throw .unreachable("the agent hung up") }
        while true {
            let reply = try next()
            if reply.event != nil {
                onEvent(reply)
                continue
            }
            guard reply.ok == true else { throw .refused(reply.error ?? "the agent refused") }
            return reply
        }
    }

    /// The next line from the agent: an event once watching, or a reply.
    public func next() throws(AgentError) -> AgentReply {
        guard let line = connection.readLine() else { throw .unreachable("the agent hung up") }
        do {
            return try AgentLines.decode(AgentReply.self, from: line)
        } catch {
            throw .refused("the agent said something this client cannot read: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
    }

    /// Starts the agent detached from us: its own session, stdio on its log.
    static func start(place: AgentPlace, key: String, executable: String) throws(AgentError) {
        // The log is made 0600 by the start (CAgentShim); one an older byteclub made is set so too.
        try? PrivateFiles.folder(place.log.deletingLastPathComponent())
        PrivateFiles.protect(place.log.path)
        let arguments = [executable, "agent", "--key", key]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        guard bc_agent_spawn_detached(executable, &argv, &envp, place.log.path) == 0 else {
            throw .unreachable("cannot start the agent (\(executable)): \(String(cString: strerror(errno)))")
        }
    }

    /// Polls the recorded socket until an agent listens, or the deadline passes: the one we
    /// started, or (when another shell's agent holds the lock and ours left) that one.
    static func waitForAgent(place: AgentPlace, timeout: TimeInterval) throws(AgentError) -> UnixConnection {
        let deadline = Date().addingTimeInterval(timeout)
        var last = UnixSocketError(code: ENOENT)
        while Date() < deadline {
            do {
                return try UnixSocket.connect(place.liveSocket)
            } catch {
                last = error
                usleep(20_000)
            }
        }
        throw .unreachable("the agent did not start within \(Int(timeout)) s (\(last); its log: \(place.log.path))")
    }
}
