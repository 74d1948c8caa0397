import Foundation
import Remote
import TerminalUI

/// Carrying out what the ``Transfers`` machine asks for, and keeping the progress figures and
/// the ticker in step with it (the transfer modal follows the state: ClubApp+Layers.swift).
extension PhotoTransfers {
    /// Feeds an event to the transfers machine and carries out its actions.
    func apply(_ event: (inout Transfers) -> [Transfers.Action]) {
        perform(mutateTransfers(event))
    }

    /// Feeds an event to the transfers machine and returns its actions, with the modal and the
    /// ticker already matched to the new state.
    func mutateTransfers(_ event: (inout Transfers) -> [Transfers.Action]) -> [Transfers.Action] {
        var actions: [Transfers.Action] = []
        context.update { actions = event(&$0.transfers) }
        syncTicker()
        return actions
    }

    func perform(_ actions: [Transfers.Action]) {
        for action in actions {
            switch action {
            case .say(let message):
                context.say(message)
            case .cancelTask(let id):
                tasks[id]?.cancel()
                // A queued transfer has no task yet: it must never start.
                starters[id] = nil
            case .deleteCommittedUpload(let entry):
                let writes = context.writes
                context.perform({ () async throws(RemoteError) in try await writes.deletePhoto(entry.path) }) { [context] result in
                    if case .failure(let error) = result {
                        context.say(.error("The upload finished as it was cancelled, and \"\(TerminalSafe.escape(entry.name))\" could not be removed: \(error.message)"))
                    } else {
                        context.say(StatusMessage("Upload cancelled"))
                    }
                }
            case .placeDownload:
                // The download's end places the file itself (it knows the folder and the name).
                break
            case .removeFile(let url):
                // A file only: never a folder, and a link is removed, not followed.
                unlink(url.path)
            case .refreshPhotos(let select):
                refresher.refresh(.photos, select: select)
            case .startTask, .discardDownload, .download, .upload:
                performQueueAction(action)
            }
        }
    }

    // MARK: Progress

    /// A progress handler for transfer `id` that the network's threads may call.
    func progressRelay(_ id: Int) -> ProgressHandler {
        context.effects.relay { [weak self] done, expected in
            self?.progressed(id, done: done, expected: expected)
        }
    }

    private func progressed(_ id: Int, done: Int64, expected: Int64) {
        progressEvents += 1
        let now = context.effects.now()
        var changed = false
        // Progress never starts or stops the spinner: no need for a full update.
        context.model.updateQuietly { changed = $0.transfers.progressed(id, done: done, expected: expected, at: now) }
        guard changed else { return }
        context.compositor.setNeedsRedraw()
    }

    /// While transfers run, their figures are fed again 4 times a second, so a stalled
    /// connection shows its rate falling, and the spinner turns.
    private func syncTicker() {
        if state.transfers.hasActive, ticker == nil {
            ticker = context.effects.repeating(every: .milliseconds(250)) { [weak self] in self?.tick() }
        } else if !state.transfers.hasActive, let running = ticker {
            running.cancel()
            ticker = nil
        }
    }

    private func tick() {
        guard state.transfers.hasActive else {
            syncTicker()
            return
        }
        let now = context.effects.now()
        context.model.updateQuietly { $0.transfers.ticked(at: now) }
        context.compositor.setNeedsRedraw()
    }

    // MARK: The modal

    /// The transfer modal's answer (the modal is on screen while ``Transfers/modalID`` says).
    func modalOutcome(_ id: Int, _ outcome: TransferModal.Outcome) {
        switch outcome {
        case .cancel: apply { $0.cancelRequested(id) }
        case .background: apply { $0.backgrounded(id) }
        case .close:
            apply {
                $0.modalClosed(id)
                return []
            }
        }
    }

    /// `t`: shows the newest running transfer in the modal.
    func showBackgroundTransfer() {
        apply { $0.showNewest() }
    }

    /// Cancels a transfer at once: the modal goes now, the connection is aborted by the task's
    /// cancellation, and the final status follows when the task ends.
    func cancel(_ id: Int) {
        apply { $0.cancelRequested(id) }
    }

    /// On the way out: downloads stop with their resume data (so `Enter` resumes them next time),
    /// uploads stop. The resume data is written from the network's threads, not the UI queue, so
    /// it lands while the process waits here.
    func stopTransfersForExit() {
        // Queued transfers never start now: no task ending below may admit one.
        starters.removeAll()
        for (id, task) in tasks {
            context.logger.info("stopping a transfer on exit", metadata: ["name": "\(state.transfers[id]?.progress.name ?? "")"])
            task.cancel()
        }
        if downloadsRunning.wait(timeout: .now() + 2) == .timedOut {
            context.logger.warning("a download did not stop within 2 s; its resume data may be older")
        }
    }
}
