import Agent
import ArgumentParser
import ClubKit
import Foundation
import Remote

/// `byteclub agent`: the background transfer owner. Started on demand by the app, `transfers`
/// and `put --agent`/`get --agent` (detached, in a session of its own), never by hand.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "The background transfer agent (started on demand; not for running by hand).",
        discussion: "Listens on $XDG_RUNTIME_DIR/byteclub/agent-<club>.sock (mode 0600) for the club's transfers and exits by itself once idle.",
        shouldDisplay: false)
    @Option(help: "The club this agent works for (from the starting client).") var key: String
    /// Seconds with nothing to do and nobody attached before it exits (also BYTECLUB_AGENT_IDLE_SECONDS).
    @Option(help: .hidden) var idle: Double?

    func run() async throws {
        let seconds = idle ?? Paths.variable("BYTECLUB_AGENT_IDLE_SECONDS").flatMap(Double.init) ?? 60
        let place = try AgentPlace(key: key, stateFolder: Paths.state)
        try await AgentServer.run(place: place, makeStore: { try await AgentStores.make($0, version: ClubCLI.version) }, idleExit: .milliseconds(Int(max(0.1, seconds) * 1000)))
    }
}

/// The path of this very executable, for starting the agent.
public var ownExecutable: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
}

/// Connects to (or starts) the agent for the club `options` name.
func connectAgent(_ options: BackendOptions, quiet: Bool = false) throws -> (AgentClient, AgentRemote, AgentPlace) {
    let remote = try options.agentRemote()
    let place = try BackendOptions.agentPlace(remote)
    do {
        return (try AgentClient.connect(place: place, remote: remote, executable: ownExecutable), remote, place)
    } catch {
        if !quiet { say(error.description) }
        throw ExitCode(6)
    }
}

/// The agent again after the one a command followed went away: a dying agent can still take a
/// connection and then hang up, and a new one takes a moment to start, so this asks again for
/// up to `seconds` (a poll, each try short) before it gives up.
func reconnectAgent(_ options: BackendOptions, within seconds: TimeInterval = 10) -> AgentClient? {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
        if let (client, _, _) = try? connectAgent(options, quiet: true), (try? client.request(AgentRequest(op: .watch))) != nil {
            return client
        }
        usleep(200_000)
    } while Date() < deadline
    return nil
}

/// `byteclub transfers`: the agent's transfers, listed or waited for.
struct TransfersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfers",
        abstract: "List the background agent's transfers, or wait for them.",
        discussion: """
            Starts the club's agent if none runs, and so picks up every transfer a killed agent left \
            unfinished. --json prints one array of transfers ({id, kind, local, remote, mode, \
            autorename, state, done, total, error, result, created, bandwidth_limit, streams}, \
            docs/cli.md): fields are only ever added. --wait returns once every transfer has finished: exit 0 \
            when all are done, 1 when any failed or was cancelled. Each line starts with the \
            transfer's id; --cancel ID cancels that one (the start of an id that no other shares \
            will do), as the app's Transfers panel does: a download keeps what it has for a retry, \
            an upload's partial session is dropped. Exit 3 when no transfer has that id, 1 when it \
            had already finished.
            """)
    @Flag(help: "Print JSON: an array of transfers (stable).") var json = false
    @Flag(help: "Wait until every transfer has finished; exit non-zero if any failed.") var wait = false
    @Option(help: "Cancel the transfer with this id (from `byteclub transfers`).") var cancel: String?
    @OptionGroup var backend: BackendOptions

    func validate() throws {
        if cancel != nil && wait { throw ValidationError("--cancel takes one transfer; run --wait after it") }
        if let cancel, cancel.isEmpty { throw ValidationError("--cancel needs a transfer's id, as `byteclub transfers` lists it") }
    }

    func run() throws {
        var (client, _, _) = try connectAgent(backend)
        if let cancel { return try cancelOne(cancel, client: client) }
        var transfers: [String: AgentTransfer] = [:]
        var order: [String] = []
        func take(_ transfer: AgentTransfer) {
            if transfers[transfer.id] == nil { order.append(transfer.id) }
            transfers[transfer.id] = transfer
        }
        do {
            let reply = try client.request(AgentRequest(op: wait ? .watch : .list), onEvent: { $0.transfer.map(take) })
            reply.transfers?.forEach(take)
        } catch {
            say(error.description)
            throw ExitCode(6)
        }
        if wait {
            let progress = ProgressLine("transfers")
            while order.contains(where: { transfers[$0].map { !$0.state.isFinished } ?? false }) {
                let unfinished = order.compactMap { transfers[$0] }.filter { !$0.state.isFinished || $0.state == .done }
                progress.update(unfinished.reduce(0) { $0 + $1.done }, unfinished.reduce(0) { $0 + max(0, $1.total) })
                do {
                    let event = try client.next()
                    if event.event == "progress", let transfer = event.transfer { take(transfer) }
                } catch {
                    // The agent went away (killed?): a new one takes over from its journal.
                    guard let again = reconnectAgent(backend) else {
                        say("the agent stopped and none could be started again")
                        throw Exit.network.code
                    }
                    client = again
                    do {
                        try client.request(AgentRequest(op: .list)).transfers?.forEach(take)
                    } catch {
                        say(error.description)
                        throw Exit.network.code
                    }
                }
            }
            progress.finish()
        }
        let all = order.compactMap { transfers[$0] }
        if json {
            try CLIJSON.print(all.map(TransferJSON.init))
        } else {
            FileHandle.standardOutput.write(Data(all.map(Self.line).joined().utf8))
        }
        if wait, all.contains(where: { $0.state == .failed || $0.state == .cancelled }) { throw ExitCode(1) }
    }

    /// `--cancel ID`: the one transfer whose id is `typed` or starts with it.
    private func cancelOne(_ typed: String, client: AgentClient) throws {
        let listed: [AgentTransfer]
        do {
            listed = try client.request(AgentRequest(op: .list)).transfers ?? []
        } catch {
            say(error.description)
            throw Exit.network.code
        }
        let matches = listed.filter { $0.id == typed } + (listed.contains { $0.id == typed } ? [] : listed.filter { $0.id.hasPrefix(typed) })
        guard let target = matches.first else {
            say("no transfer has the id \(TerminalSafe.escape(typed)) (byteclub transfers lists them)")
            throw Exit.notFound.code
        }
        guard matches.count == 1 else {
            say("\(TerminalSafe.escape(typed)) starts the ids of \(matches.count) transfers; give more of it")
            throw Exit.usage.code
        }
        let reply: AgentReply
        do {
            reply = try client.request(AgentRequest(op: .cancel, id: target.id))
        } catch AgentError.refused(let reason) {
            say(reason)
            throw Exit.noMatch.code
        } catch {
            say(error.description)
            throw Exit.network.code
        }
        let cancelled = reply.transfer ?? target
        if json {
            try CLIJSON.print(TransferJSON(cancelled))
        } else {
            FileHandle.standardOutput.write(Data(Self.line(cancelled).utf8))
        }
    }

    /// `3f2a9c1e  upload    42%  running  trip.jpg → /byteclub/photos/trip.jpg`
    static func line(_ transfer: AgentTransfer) -> String {
        let percent = transfer.total > 0 ? "\(min(100, Int(transfer.done * 100 / transfer.total)))%" : "-"
        let arrow = transfer.kind == .upload ? "\(transfer.local) → \(transfer.result ?? transfer.remote)" : "\(transfer.remote) → \(transfer.local)"
        var text = TerminalSafe.escape(String(transfer.id.prefix(8))) + "  " + transfer.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + percent.padding(toLength: 5, withPad: " ", startingAt: 0)
            + " " + transfer.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + TerminalSafe.escape(arrow)
        if let error = transfer.error { text += "  (" + TerminalSafe.escape(error) + ")" }
        return text + "\n"
    }
}

/// A transfer as `transfers --json` prints it: the agent's record without its resume state.
struct TransferJSON: Encodable {
    var id, kind, local, remote, mode, state: String
    var autorename: Bool
    var done, total: Int64
    var error, result: String?
    var created: Date
    var bandwidthLimit: Int64?
    var streams: Int?

    init(_ transfer: AgentTransfer) {
        (id, kind, local, remote, mode, state) = (transfer.id, transfer.kind.rawValue, transfer.local, transfer.remote, transfer.mode.tag, transfer.state.rawValue)
        (autorename, done, total, error, result) = (transfer.autorename, transfer.done, transfer.total, transfer.error, transfer.result)
        (created, bandwidthLimit, streams) = (transfer.created, transfer.bandwidthLimit, transfer.streams)
    }

    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        for (key, value) in [(CodingKeys.id, id), (.kind, kind), (.local, local), (.remote, remote), (.mode, mode), (.state, state)] {
            try object.encode(value, forKey: key)
        }
        try object.encode(autorename, forKey: .autorename)
        try object.encode(done, forKey: .done)
        try object.encode(total, forKey: .total)
        try object.encode(error, forKey: .error)
        try object.encode(result, forKey: .result)
        try object.encode(created, forKey: .created)
        try object.encode(bandwidthLimit, forKey: .bandwidthLimit)
        try object.encode(streams, forKey: .streams)
    }

    enum CodingKeys: String, CodingKey { case id, kind, local, remote, mode, state, autorename, done, total, error, result, created, bandwidthLimit, streams }
}

/// `put --agent` and `get --agent`: hand one transfer to the agent and follow it to its end,
/// through a restart of the agent if it dies on the way. Ctrl-C cancels it.
enum AgentTransferFollower {
    static func run(_ transfer: AgentTransfer, backend: BackendOptions) throws -> AgentTransfer {
        var (client, _, _) = try connectAgent(backend)
        let id: String
        var latest: AgentTransfer
        do {
            try client.request(AgentRequest(op: .watch))
        } catch {
            say("\(error)")
            throw Exit.network.code
        }
        do {
            let reply = try client.request(AgentRequest(op: .submit, transfer: transfer))
            guard let submitted = reply.transfer else { throw AgentError.refused("the agent did not say what it took") }
            id = submitted.id
            latest = submitted
        } catch AgentError.unreachable {
            // The request went out and no answer came: the agent may have journaled the transfer
            // before it stopped, and a restarted agent would finish it. Unknown is said as such.
            say("the agent stopped before saying whether it took \(transfer.name); `byteclub transfers` shows whether it is there and how far it got")
            throw Exit.deferred.code
        } catch {
            say("\(error)")
            throw Exit.noMatch.code
        }
        let cancel = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        cancel.setEventHandler {
            if let (other, _, _) = try? connectAgent(backend) { _ = try? other.request(AgentRequest(op: .cancel, id: id)) }
            say("Cancelled")
            Foundation.exit(130)
        }
        cancel.activate()
        let progress = ProgressLine(TerminalSafe.escape(transfer.name))
        while !latest.state.isFinished {
            do {
                let event = try client.next()
                if let moved = event.transfer, moved.id == id {
                    latest = moved
                    progress.update(moved.done, moved.total)
                }
            } catch {
                // The agent stopped while it had the transfer: one started again takes it up from
                // its journal. When none answers, the outcome is not known here.
                guard let again = reconnectAgent(backend),
                      let found = try? again.request(AgentRequest(op: .list)).transfers?.first(where: { $0.id == id }) else {
                    progress.finish()
                    say("the agent stopped while it had \(transfer.name) (\(id)); `byteclub transfers` shows whether it finished")
                    throw Exit.deferred.code
                }
                client = again
                latest = found
            }
        }
        progress.finish()
        return latest
    }
}
