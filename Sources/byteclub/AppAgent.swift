import Agent
import ByteClubApp
import ClubCLI
import ClubKit
import Foundation
import Remote

/// The app's ``BackgroundAgent``: the club's agent over its socket. Watching holds one
/// connection (read on a serial queue of its own, never the concurrency pool); each command
/// opens a connection of its own, starting the agent if none runs.
final class AppAgent: BackgroundAgent, @unchecked Sendable {
    // @unchecked Sendable: `watcher` and `watching` are touched only on `watchQueue` (serial);
    // `remote`, `place` and `executable` are immutable.
    private let remote: AgentRemote
    private let place: AgentPlace
    private let executable: String
    private let watchQueue = DispatchQueue(label: "byteclub.agent.watch")
    private let commandQueue = DispatchQueue(label: "byteclub.agent.commands")
    private var watcher: AgentClient?

    init(remote: AgentRemote, place: AgentPlace, executable: String) {
        self.remote = remote
        self.place = place
        self.executable = executable
    }

    /// The app's agent for the club `options` name, or nil when asking would prompt (a WebDAV
    /// password typed at start is not asked twice) or the socket folder is unusable.
    static func make(_ options: BackendOptions) -> AppAgent? {
        if options.webdav != nil, (Paths.variable("BYTECLUB_WEBDAV_PASSWORD") ?? "").isEmpty { return nil }
        guard let remote = try? options.agentRemote(), let place = try? BackendOptions.agentPlace(remote) else { return nil }
        return AppAgent(remote: remote, place: place, executable: ownExecutable)
    }

    /// Whether the app should start an agent just to look: only when a journal holds transfers
    /// that are not finished (a killed agent's). Otherwise only a running agent is asked.
    private var journalHasWork: Bool {
        AgentJournal(url: place.journal).load().transfers.contains { !$0.state.isFinished }
    }

    func nextChanges() async throws(RemoteError) -> [BackgroundTransfer] {
        let result: Result<[BackgroundTransfer], RemoteError> = await withCheckedContinuation { continuation in
            watchQueue.async { continuation.resume(returning: self.nextChangesBlocking()) }
        }
        return try result.get()
    }

    private func nextChangesBlocking() -> Result<[BackgroundTransfer], RemoteError> {
        do throws(AgentError) {
            guard let watcher else {
                let connection: AgentClient
                if AgentPlace.recordedSocket(place.socketRecord) != nil || journalHasWork {
                    connection = try AgentClient.connect(place: place, remote: remote, executable: executable)
                } else {
                    return .failure(.local("no background agent runs"))
                }
                let reply = try connection.request(AgentRequest(op: .watch))
                watcher = connection
                return .success((reply.transfers ?? []).map(Self.shown))
            }
            while true {
                let event = try watcher.next()
                if event.event == "progress", let transfer = event.transfer { return .success([Self.shown(transfer)]) }
            }
        } catch {
            watcher = nil
            return .failure(.local(error.description))
        }
    }

    /// One request on a connection of its own.
    private func command(_ request: AgentRequest) async throws(RemoteError) {
        let result: Result<Void, RemoteError> = await withCheckedContinuation { continuation in
            commandQueue.async {
                do throws(AgentError) {
                    let client = try AgentClient.connect(place: self.place, remote: self.remote, executable: self.executable)
                    try client.request(request)
                    client.connection.close()
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(.local(error.description)))
                }
            }
        }
        try result.get()
    }

    /// The app's `--bwlimit` goes with each transfer, so the agent keeps it (through its restarts too).
    func submitUpload(_ file: URL, to path: String, session: UploadSessionMark?) async throws(RemoteError) {
        try await command(AgentRequest(op: .submit, transfer: AgentTransfer(id: "", kind: .upload, local: file.standardizedFileURL.path, remote: path,
                                                                              autorename: true, bandwidthLimit: remote.bandwidthLimit, session: session)))
    }

    func submitDownload(_ path: String, to destination: URL, resumeData: Data?) async throws(RemoteError) {
        try await command(AgentRequest(op: .submit, transfer: AgentTransfer(id: "", kind: .download, local: destination.standardizedFileURL.path,
                                                                              remote: path, bandwidthLimit: remote.bandwidthLimit, resumeData: resumeData)))
    }

    func cancel(_ id: String) async throws(RemoteError) { try await command(AgentRequest(op: .cancel, id: id)) }
    func pause(_ id: String) async throws(RemoteError) { try await command(AgentRequest(op: .pause, id: id)) }
    func resume(_ id: String) async throws(RemoteError) { try await command(AgentRequest(op: .resume, id: id)) }
    func clearFinished() async throws(RemoteError) { try await command(AgentRequest(op: .clear)) }

    /// The agent's record as the app shows it (names through TerminalSafe: they reach the screen).
    static func shown(_ transfer: AgentTransfer) -> BackgroundTransfer {
        BackgroundTransfer(id: transfer.id, isUpload: transfer.kind == .upload, name: TerminalSafe.escape(transfer.name),
                           remotePath: transfer.result ?? transfer.remote, local: URL(fileURLWithPath: transfer.local),
                           state: TransferRowState(rawValue: transfer.state.rawValue) ?? .failed, done: transfer.done, total: transfer.total,
                           error: transfer.error.map(TerminalSafe.escape))
    }
}
