import Durable
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `byteclub agent`: takes the club's lock, listens on its socket, and serves each connection
/// on a thread of its own until the engine has been idle long enough.
public enum AgentServer {
    /// Runs the agent; returns only if another agent holds the lock (it is the one that serves)
    /// or the socket cannot be made. The process exits from the engine's idle clock.
    public static func run(place: AgentPlace, makeStore: @escaping AgentStoreFactory, idleExit: Duration,
                           check: PeerCheck = PeerCheck()) async throws(AgentError) {
        // The lock decides between two starters that raced, from any shell (it sits beside the
        // journal): the loser finds it held and leaves the live agent's socket alone. Held until
        // the process ends (the fd is never closed).
        try? PrivateFiles.folder(place.lock.deletingLastPathComponent())
        let lock = PrivateFiles.open(place.lock.path, O_RDWR | O_CREAT)
        guard lock >= 0 else { throw .place("cannot open \(place.lock.path): \(String(cString: strerror(errno)))") }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            close(lock)
            return
        }
        // The lock file names the live agent (for a person, or a test, that wants to signal it).
        let pid = Data("\(getpid())\n".utf8)
        _ = ftruncate(lock, 0)
        _ = pid.withUnsafeBytes { pwrite(lock, $0.baseAddress, $0.count, 0) }
        // We hold the lock, so whatever socket is there belongs to a dead agent: replace it.
        unlink(place.socket.path)
        let listener: Int32
        do {
            listener = try UnixSocket.listen(place.socket.path)
        } catch {
            throw .place("cannot listen on \(place.socket.path): \(error)")
        }
        do {
            try record(place.socket.path, at: place.socketRecord)
        } catch {
            unlink(place.socket.path)
            throw error
        }
        let engine = AgentEngine(journal: AgentJournal(url: place.journal), makeStore: makeStore, idleExit: idleExit) {
            // Idle: the record and the socket go first, so a client never connects to an agent
            // on its way out (one that tries starts a new agent, which waits for our lock).
            unlink(place.socketRecord.path)
            unlink(place.socket.path)
            exit(0)
        }
        await engine.recover()
        let accepting = Thread {
            while let connection = UnixSocket.accept(listener) {
                let serving = Thread { serve(connection, engine: engine, check: check) }
                serving.start()
            }
        }
        accepting.start()
        // Parked for good: the engine's idle clock ends the process.
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }

    /// Writes where we listen for clients of other shells: replaced whole over the old record (a
    /// dead agent's), so a reader sees one whole path or the old one. No flush: after a power
    /// cut there is no agent to find.
    static func record(_ socket: String, at record: URL) throws(AgentError) {
        do {
            try DurableFile.write(Data((socket + "\n").utf8), to: record, permissions: 0o600, flush: false)
        } catch {
            throw .place("cannot record the agent's socket in \(record.path): \(error)")
        }
    }

    /// One connection: the peer's uid first, then request lines until it hangs up.
    static func serve(_ connection: UnixConnection, engine: AgentEngine, check: PeerCheck) {
        if let refusal = check.refusal(peer: connection.peerUID) {
            connection.write(AgentLines.encode(AgentReply.failure(refusal)))
            connection.finish()
            return
        }
        blocking { await engine.attach(connection) }
        while let line = connection.readLine() {
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) else { continue }
            blocking { await engine.handle(line, on: connection) }
        }
        connection.close()
        blocking { await engine.detach(connection) }
    }

    /// Runs `work` on the concurrency pool and waits for it on this (non-pool) thread.
    static func blocking(_ work: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await work()
            done.signal()
        }
        done.wait()
    }
}
