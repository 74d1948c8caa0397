import Foundation
import Remote

/// Makes the store for a club from what a client resolved (the executable knows how: it owns
/// the flags, the config and the embedded server).
public typealias AgentStoreFactory = @Sendable (AgentRemote) async throws -> any RemoteStore

/// The agent's state: its transfers, the club's store, the clients watching, the idle clock.
///
/// Connections call in from their reading threads; running transfers call in from their tasks.
/// Every reply and event is written from inside the actor, so a connection sees a request's
/// reply before the events that follow it.
public actor AgentEngine {
    let journal: AgentJournal
    let makeStore: AgentStoreFactory
    /// How long the agent stays with nothing to do and nobody attached.
    let idleExit: Duration
    /// Called once the idle time has passed (the process exits).
    let onIdle: @Sendable () -> Void
    /// At most this many run at once; the rest wait as `queued`.
    let concurrency: Int

    var remote: AgentRemote?
    var store: (any RemoteStore)?
    var transfers: [AgentTransfer] = []
    var tasks: [String: Task<Void, Never>] = [:]
    var watchers: [ObjectIdentifier: UnixConnection] = [:]
    var attached = 0
    var idleTimer: Task<Void, Never>?
    /// When each transfer's last progress event went out (events are kept to ~10 a second).
    var lastEvent: [String: ContinuousClock.Instant] = [:]

    public init(journal: AgentJournal, makeStore: @escaping AgentStoreFactory, idleExit: Duration = .seconds(60), concurrency: Int = 4,
                onIdle: @escaping @Sendable () -> Void) {
        self.journal = journal
        self.makeStore = makeStore
        self.idleExit = idleExit
        self.concurrency = concurrency
        self.onIdle = onIdle
    }

    /// Reads the journal: whatever was queued or running when the last agent died is queued
    /// again, to start once a client has said which club (and with what credentials).
    public func recover() {
        let contents = journal.load()
        remote = contents.remote
        transfers = contents.transfers.map { transfer in
            var transfer = transfer
            if transfer.state == .running { transfer.state = .queued }
            return transfer
        }
        rearmIdle()
    }

    // MARK: - Clients

    public func attach(_ connection: UnixConnection) {
        attached += 1
        idleTimer?.cancel()
        idleTimer = nil
    }

    public func detach(_ connection: UnixConnection) {
        attached -= 1
        watchers[ObjectIdentifier(connection)] = nil
        rearmIdle()
    }

    /// Answers one request line on `connection`.
    public func handle(_ line: Data, on connection: UnixConnection) async {
        struct Version: Decodable { var v: Int? }
        guard let version = try? AgentLines.decode(Version.self, from: line) else {
            connection.write(AgentLines.encode(AgentReply.failure("not a JSON object: every request is one line of JSON")))
            return
        }
        guard version.v == AgentProtocol.version else {
            let theirs = version.v.map(String.init) ?? "none"
            connection.write(AgentLines.encode(AgentReply.failure(
                "protocol version \(theirs) is not spoken here: this agent speaks version \(AgentProtocol.version); quit the app and run `byteclub transfers` so a matching agent starts once this one is idle")))
            return
        }
        let request: AgentRequest
        do {
            request = try AgentLines.decode(AgentRequest.self, from: line)
        } catch {
            connection.write(AgentLines.encode(AgentReply.failure("bad request: \(error)")))
            return
        }
        connection.write(AgentLines.encode(await answer(request, on: connection)))
    }

    func answer(_ request: AgentRequest, on connection: UnixConnection) async -> AgentReply {
        switch request.op {
        case .hello:
            guard let given = request.remote else { return .failure("hello needs the club (remote)") }
            if let remote, remote.key != given.key {
                return .failure("this agent works for another club (\(remote.key)), not \(given.key)")
            }
            if store == nil || remote?.secret != given.secret {
                do {
                    store = try await makeStore(given)
                } catch {
                    return .failure("cannot reach the club: \(error)")
                }
            }
            remote = given
            persist()
            schedule()
            return AgentReply(ok: true, agent: getpid())
        case .submit:
            guard store != nil else { return .failure("say hello first: the agent does not know the club yet") }
            guard var transfer = request.transfer else { return .failure("submit needs a transfer") }
            guard transfer.local.hasPrefix("/") else { return .failure("the local path must be absolute: \(transfer.local)") }
            if transfer.kind == .upload {
                guard FileManager.default.isReadableFile(atPath: transfer.local) else { return .failure("Cannot read \(transfer.local)") }
            }
            transfer.id = UUID().uuidString.lowercased()
            transfer.state = .queued
            transfer.done = 0
            transfer.error = nil
            transfer.result = nil
            transfer.session = nil
            transfer.created = Date()
            transfers.append(transfer)
            persist()
            broadcast(transfer)
            schedule()
            return AgentReply(ok: true, transfer: transfer)
        case .list:
            return AgentReply(ok: true, transfers: transfers)
        case .watch:
            watchers[ObjectIdentifier(connection)] = connection
            return AgentReply(ok: true, transfers: transfers)
        case .pause, .resume, .cancel:
            guard let id = request.id, let index = transfers.firstIndex(where: { $0.id == id }) else {
                return .failure("no transfer \(request.id ?? "(none given)")")
            }
            return change(index, request.op)
        case .clear:
            let gone = transfers.filter { $0.state.isFinished }
            gone.forEach(Self.discardPartial)
            transfers.removeAll { $0.state.isFinished }
            persist()
            for transfer in gone { broadcast(transfer, event: "removed") }
            rearmIdle()
            return AgentReply(ok: true)
        }
    }

    /// Pause, resume or cancel one transfer.
    func change(_ index: Int, _ op: AgentRequest.Op) -> AgentReply {
        var transfer = transfers[index]
        switch op {
        case .pause:
            guard transfer.state == .queued || transfer.state == .running else { return .failure("\(transfer.name) is \(transfer.state.rawValue)") }
            transfer.state = .paused
        case .resume:
            guard transfer.state == .paused || transfer.state == .failed else { return .failure("\(transfer.name) is \(transfer.state.rawValue)") }
            transfer.state = .queued
            transfer.error = nil
        default:
            guard !transfer.state.isFinished else { return .failure("\(transfer.name) is \(transfer.state.rawValue)") }
            transfer.state = .cancelled
            transfer.session = nil
        }
        transfers[index] = transfer
        // The task sees the new state when its cancellation lands (it keeps a pause's resume data).
        tasks[transfer.id]?.cancel()
        persist()
        broadcast(transfer)
        schedule()
        return AgentReply(ok: true, transfer: transfer)
    }

    // MARK: - Bookkeeping

    func persist() {
        do {
            try journal.save(AgentJournal.Contents(remote: remote, transfers: transfers))
        } catch {
            FileHandle.standardError.write(Data("byteclub agent: \(error)\n".utf8))
        }
    }

    /// Sends `transfer` to every watcher; a watcher that has gone is dropped.
    func broadcast(_ transfer: AgentTransfer, event: String = "progress") {
        let line = AgentLines.encode(AgentReply(event: event, transfer: transfer))
        for (key, connection) in watchers where !connection.write(line) {
            watchers[key] = nil
        }
    }

    /// Starts the idle clock when nothing runs and nobody is attached; stops it otherwise.
    func rearmIdle() {
        idleTimer?.cancel()
        idleTimer = nil
        let busy = transfers.contains { $0.state == .running || ($0.state == .queued && store != nil) }
        guard !busy, attached == 0 else { return }
        let wait = idleExit
        let onIdle = self.onIdle
        idleTimer = Task {
            guard (try? await Task.sleep(for: wait)) != nil else { return }
            self.idleTimerFired(onIdle)
        }
    }

    func idleTimerFired(_ onIdle: @Sendable () -> Void) {
        guard idleTimer != nil, !Task.isCancelled else { return }
        onIdle()
    }
}
