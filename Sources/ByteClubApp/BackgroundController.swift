import Foundation
import Remote
import TerminalUI

/// The background agent in the app: its transfers, followed as they move, shown in the
/// Transfers panel and the status bar; the quit question that hands the app's own running
/// transfers to it; the panel's keys on its rows.
///
/// The agent's changes arrive as delegate-style callbacks (``agentDidChange(_:)``) on the UI
/// queue, through the app's one hop (``UIEffects/perform(_:then:)``): each delivery asks for
/// the next batch, so there is one request in flight at a time, as with a Transfer delegate.
@MainActor
final class BackgroundController {
    let context: AppContext
    /// The app's own transfers: what a hand-over stops and continues.
    let transfers: PhotoTransfers
    /// The way out, once the transfers are handed over.
    let exit: AppExit
    /// A request for the next batch is in flight.
    private var listening = false

    init(context: AppContext, transfers: PhotoTransfers, exit: AppExit) {
        self.context = context
        self.transfers = transfers
        self.exit = exit
    }

    /// Follows the agent's transfers, if there is an agent (the executable decides whether one
    /// is worth asking: one that runs, or a journal with unfinished transfers).
    func start() {
        guard let agent = context.configuration.agent, !listening else { return }
        listening = true
        context.perform({ () async throws(RemoteError) -> [BackgroundTransfer] in try await agent.nextChanges() }) { [weak self] result in
            guard let self else { return }
            self.listening = false
            switch result {
            case .success(let changes):
                self.agentDidChange(changes)
                self.start()
            case .failure(let error):
                if !self.context.state.background.isEmpty {
                    self.context.say(.error("The background agent is gone (\(error.message)); byteclub transfers starts it again"))
                }
            }
        }
    }

    /// The agent's delegate callback: rows replaced by id, new ones added in order.
    func agentDidChange(_ changes: [BackgroundTransfer]) {
        let now = context.effects.now()
        context.update { state in
            for change in changes {
                state.backgroundRates[change.id] = AppState.movedAgain(state.backgroundRates[change.id], change, at: now)
                if let index = state.background.firstIndex(where: { $0.id == change.id }) {
                    state.background[index] = change
                } else {
                    state.background.append(change)
                }
            }
        }
    }

    // MARK: Quitting

    /// `q` with the app's own transfers running: keep them going in the background (the
    /// default, Enter, or `b`), quit and stop them (`q`, as the question without an agent
    /// answers), or stay (`s`, Esc). False when there is no agent to hand them to.
    func offerBackground() -> Bool {
        guard let agent = context.configuration.agent else { return false }
        let own = context.state.transfers.byID.values.filter { !$0.progress.isFinal && ($0.isRunning || $0.isQueued) }.sorted { $0.id < $1.id }
        guard !own.isEmpty else { return false }
        // A WebDAV server has no upload sessions: an upload handed over starts again from its
        // first byte in the agent, which the question says rather than let the figure drop.
        let restarts = context.store is WebDAVStore && own.contains { $0.progress.direction == .upload }
        let body = QuitQuestion.lines(running: own.count, uploadsStartOver: restarts, unsavedEdits: context.state.hasUnsavedEdits,
                                        unsavedNotes: context.state.unsavedNotesSentence)
        let modal = Modal(title: "Quit byteclub?", body: body, buttons: ["Background", "Quit and stop them", "Stay"], width: 68)
        let destination = context.configuration.downloadDirectory
        context.ask { DialogLayer(modal, selected: 0) { [weak self] choice in
            guard let self else { return }
            switch choice {
            case 0:
                self.handOver(own, to: agent, downloadsTo: destination)
            case 1:
                self.exit.quit(0)
            default:
                break
            }
        } }
        return true
    }

    /// Hands the app's own transfers to the agent, then quits. They stop here first, so the
    /// agent is the only one sending: each upload goes with its session (the agent continues
    /// it at the server's offset, so no byte the server took goes twice) and each download
    /// with its resume data (the agent continues its partial file at its size).
    private func handOver(_ own: [PhotoTransfer], to agent: any BackgroundAgent, downloadsTo destination: URL?) {
        let handed = own.map { (id: $0.id, upload: $0.progress.direction == .upload, local: $0.local, remote: $0.remotePath) }
        let stopping = transfers.stopForHandOver()
        let sessions = transfers.uploadSessions
        let paused = context.configuration.pausedDownloads
        context.say(StatusMessage("Handing \(handed.count) transfer\(handed.count == 1 ? "" : "s") to the background…"))
        context.perform({ () async throws(RemoteError) -> (submitted: Set<Int>, error: RemoteError?) in
            for task in stopping { await task.value }
            var submitted: Set<Int> = []
            do throws(RemoteError) {
                for item in handed {
                    if item.upload {
                        try await agent.submitUpload(item.local, to: item.remote, session: sessions.mark(item.id))
                    } else if let destination {
                        let saved = paused?.all().first { $0.path.lowercased() == item.remote.lowercased() }
                        try await agent.submitDownload(item.remote, to: destination.appendingPathComponent((item.remote as NSString).lastPathComponent),
                                                       resumeData: saved?.resumeData)
                        // The agent owns its partial file now: the next run must not resume it too.
                        paused?.remove(item.remote)
                    }
                    submitted.insert(item.id)
                }
            } catch {
                return (submitted, error)
            }
            return (submitted, nil)
        }) { [weak self] result in
            guard case .success(let outcome) = result, let error = outcome.error else { return self?.exit.quit(0) ?? () }
            // Nothing is lost: the uploads the agent did not take go on here from their
            // sessions, the downloads are paused with their resume data (Enter resumes them).
            guard let self else { return }
            for item in handed where item.upload && !outcome.submitted.contains(item.id) {
                self.transfers.upload(item.local, showsModal: false, resuming: sessions.mark(item.id))
            }
            self.context.say(.error("Cannot hand the transfers to the background (\(error.message)); the uploads go on here, Enter resumes a download"))
        }
    }

    // MARK: The panel on the agent's rows

    func panelAction(_ action: TransfersPanel.Action, id: Int?) {
        guard let agent = context.configuration.agent else { return }
        if action == .clear {
            context.update { $0.background.removeAll { [.done, .failed, .cancelled].contains($0.state) } }
            context.perform({ () async throws(RemoteError) -> Void in try await agent.clearFinished() }) { _ in }
            return
        }
        guard let id, id < 0, -id - 1 < context.state.background.count else { return }
        let row = context.state.background[-id - 1]
        enum Command { case cancel, pause, resume }
        let command: Command
        switch action {
        case .cancel: command = .cancel
        case .pause: command = row.state == .paused ? .resume : .pause
        case .retry: command = .resume
        default: return
        }
        let agentID = row.id
        context.perform({ () async throws(RemoteError) -> Void in
            switch command {
            case .cancel: try await agent.cancel(agentID)
            case .pause: try await agent.pause(agentID)
            case .resume: try await agent.resume(agentID)
            }
        }) { [weak self] result in
            if case .failure(let error) = result { self?.context.say(.error(error.message)) }
        }
    }
}

/// The question `q` asks while the app's own transfers run.
public enum QuitQuestion {
    /// Its lines for `running` transfers; `uploadsStartOver`: an upload handed to the agent
    /// starts again from its first byte (a WebDAV server has no upload sessions).
    public static func lines(running: Int, uploadsStartOver: Bool, unsavedEdits: Bool, unsavedNotes: String? = nil) -> [String] {
        var body = [running == 1 ? "A transfer is still running." : "\(running) transfers are still running."]
        let them = running == 1 ? "it" : "them"
        body.append("Keep \(them) going in the background? byteclub transfers shows \(them).")
        if uploadsStartOver {
            body.append("This WebDAV server cannot continue a cut upload: in the background an upload starts again from 0 %.")
        }
        body.append("Or quit and stop \(them): a download pauses (Enter resumes it next time), an upload stops.")
        if unsavedEdits { body.append(unsavedNotes ?? "A note has unsaved changes (its draft is kept for next time).") }
        return body
    }
}
