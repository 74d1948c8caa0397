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
    var concurrency: Int { queue.limit }

    var remote: AgentRemote?
    /// The club's store without a bandwidth limit (made at `hello`): says the club is known.
    var store: (any RemoteStore)?
    /// Stores by bandwidth limit, one per limit in use (each transfer keeps its own `--bwlimit`).
    var limitedStores: [Int64: Task<any RemoteStore, any Error>] = [:]
    /// The transfers, oldest first, in the queue the app's transfers use too.
    var queue: TransferQueue<AgentTransfer>
    var transfers: [AgentTransfer] { queue.items }
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
        self.queue = TransferQueue(limit: concurrency)
        self.onIdle = onIdle
    }

    /// Reads the journal: whatever was queued or running when the last agent died is queued
    /// again, to start once a client has said which club (and with what credentials).
    public func recover() {
        let contents = journal.load()
        remote = contents.remote
        queue = TransferQueue(contents.transfers, limit: queue.limit)
        queue.requeueRunning()
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
                var unlimited = given
                unlimited.bandwidthLimit = nil
                do {
                    store = try await makeStore(unlimited)
                } catch {
                    return .failure("cannot reach the club: \(error)")
                }
                limitedStores = [:]
            }
            remote = given
            persist()
            schedule()
            return AgentReply(ok: true, agent: getpid())
        case .submit:
            guard store != nil else { return .failure("say hello first: the agent does not know the club yet") }
            guard var transfer = request.transfer else { return .failure("submit needs a transfer") }
            if let refusal = Self.refusal(of: transfer) { return .failure(refusal) }
            transfer.id = UUID().uuidString.lowercased()
            // A handed-over session or partial file is where the transfer stands already.
            let partial = transfer.resumeData.flatMap(DownloadResume.partialPath(of:))
                .flatMap { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? NSNumber)?.int64Value }
            transfer.done = transfer.session?.offset ?? partial ?? 0
            transfer.error = nil
            transfer.result = nil
            transfer.created = Date()
            queue.enqueue(transfer)
            transfer.state = .queued
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
            guard let id = request.id, queue[id] != nil else {
                return .failure("no transfer \(request.id ?? "(none given)")")
            }
            return change(id, request.op)
        case .clear:
            let gone = queue.removeFinished()
            gone.forEach(Self.discardPartial)
            persist()
            for transfer in gone { broadcast(transfer, event: "removed") }
            rearmIdle()
            return AgentReply(ok: true)
        }
    }

    /// Why a submitted transfer cannot be taken, or nil.
    static func refusal(of transfer: AgentTransfer) -> String? {
        guard transfer.local.hasPrefix("/") else { return "the local path must be absolute: \(transfer.local)" }
        if let limit = transfer.bandwidthLimit, limit <= 0 { return "the bandwidth limit must be positive, not \(limit)" }
        if let streams = transfer.streams, !TransferStreams.allowed.contains(streams) {
            return "streams must be between \(TransferStreams.allowed.lowerBound) and \(TransferStreams.allowed.upperBound), not \(streams)"
        }
        switch transfer.kind {
        case .upload:
            guard FileManager.default.isReadableFile(atPath: transfer.local) else { return "Cannot read \(transfer.local)" }
            if transfer.resumeData != nil { return "an upload carries an upload session, not download resume data" }
            if let session = transfer.session, session.sessionID.isEmpty || session.offset < 0 {
                return "the handed-over upload session needs its id and an offset of 0 or more"
            }
        case .download:
            if transfer.session != nil { return "a download carries resume data, not an upload session" }
            if let data = transfer.resumeData, DownloadResume.partialPath(of: data) == nil {
                return "the handed-over resume data cannot be read"
            }
        }
        return nil
    }

    /// The store that moves a transfer limited to `limit` bytes a second (nil: none). Made once
    /// per limit, and shared by the transfers with that limit.
    func store(limitedTo limit: Int64?) async throws -> any RemoteStore {
        guard let store, let remote else { throw AgentError.refused("the agent does not know the club yet") }
        guard let limit else { return store }
        if let making = limitedStores[limit] { return try await making.value }
        var limited = remote
        limited.bandwidthLimit = limit
        let makeStore = self.makeStore
        let making = Task { try await makeStore(limited) }
        limitedStores[limit] = making
        do {
            return try await making.value
        } catch {
            limitedStores[limit] = nil
            throw error
        }
    }

    /// Pause, resume or cancel one transfer.
    func change(_ id: String, _ op: AgentRequest.Op) -> AgentReply {
        do {
            switch op {
            case .pause: try queue.pause(id)
            case .resume: try queue.resume(id)
            default: try queue.cancel(id)
            }
        } catch {
            let state = if case .isAlready(let state) = error { state.rawValue } else { "gone" }
            return .failure("\(queue[id]?.name ?? id) is \(state)")
        }
        queue.update(id) { transfer in
            if op == .resume { transfer.error = nil }
            if op == .cancel { transfer.session = nil }
        }
        guard let transfer = queue[id] else { return .failure("no transfer \(id)") }
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
        let busy = queue.runningCount > 0 || (store != nil && !queue.queued.isEmpty)
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
