import Foundation
import Remote
import TerminalUI

/// The outbox's answers to a save `Ctrl-S` sent at once (``NoteSaves/save(confirmedEmpty:)``):
/// the runner sends each as an event (``AppEvent/saveAnswered(_:)``), which the root hands here,
/// to the session's ``NoteSave`` machine.
extension NoteSaves {
    /// One answer of the outbox runner to the save sent at once.
    func answered(_ answer: NoteSave.Answer) {
        guard let sent = state.note?.save.sent else { return }
        finishQueuedSave(generation: sent.generation, version: sent.version, name: sent.name, sent: sent.text, items: sent.items, answer: answer)
    }

    /// The outbox runner's answer to a save sent at once (``save(confirmedEmpty:)``): a rename
    /// before it moves the note and the save goes on; the rest is carried out as any save's.
    private func finishQueuedSave(generation: Int, version: Int, name: String, sent: String, items: [String], answer: NoteSave.Answer) {
        guard var session = state.note, session.generation == generation, session.isSaving else { return }
        let outcome = session.save.answered(answer, canMerge: session.canMerge, at: context.effects.now())
        switch outcome {
        case .ignored:
            return
        case .moved(let entry, let movesBase):
            // A move keeps the text: the base text stays with the rev the move made.
            let text = session.baseText
            session.entry = entry
            if movesBase { session.setBase(entry.rev, text: text) }
            context.model.updateQuietly { $0.note = session }
            return
        case .merged(let entry, let merged, let by):
            context.update { $0.endRequest() }
            context.model.updateQuietly { $0.note = session }
            let draftID = session.draftID, base = session.baseRev
            named(by) { [weak self] who in
                guard let self, self.state.note?.draftID == draftID else { return }
                self.conflicts?.adoptMerged(merged, entry: entry, theirs: entry, who: who, mine: sent, version: version, base: base)
            }
        case .queue:
            // The server went away: the outbox keeps the items and sends them when it is back.
            context.update { $0.endRequest() }
            context.model.updateQuietly { $0.note = session }
            if let entry = session.entry, !session.isModified, entry.name == name, session.remoteDeletion == nil {
                // The server has this text already: nothing is to wait for it (as offline).
                outboxRunner?.withdraw(items)
                outboxRunner?.publishCounts()
                session.closeAfterSave = false
                context.update {
                    $0.note = session
                    $0.message = StatusMessage("No changes to save in \"\(TerminalSafe.escape(name))\"")
                }
                return
            }
            outboxRunner?.publishCounts()
            markQueued(items, version: version)
            context.say(StatusMessage("Saved \"\(name)\" in the outbox (\(state.offline.waiting) waiting): the server cannot be reached; it is sent by itself"))
        case .waits:
            // No answer yet (a server that stalls says nothing for the whole idle limit): the
            // items are on disk in the outbox already and its sender goes on with them, so the
            // editor goes on as after a save made offline, and the status bar says it waits.
            context.update { $0.endRequest() }
            context.model.updateQuietly { $0.note = session }
            markQueued(items, version: version)
            context.say(StatusMessage("Saved \"\(TerminalSafe.escape(name))\" in the outbox (\(state.offline.waiting) waiting): the server has not answered yet; it is sent by itself"))
        default:
            context.update { $0.endRequest() }
            carryOut(outcome, session: session, version: version, name: name)
        }
    }

    /// The outbox's sender came back with a conflict for the save this editor stopped waiting
    /// for (no answer within ``OutboxRunner/answerGrace``: it went on as queued). While the editor
    /// still holds exactly what it sent, and nothing else is asked, it asks now as an answered
    /// save does, the merge or the conflict dialog, rather than leave only "open it to merge" in
    /// the status bar for a note that is open.
    func lateConflict(_ report: OutboxReport) {
        guard let session = state.note, session.queuedItem == report.item.id, session.isEditing, session.merge == nil,
              state.dialogs.isEmpty else { return }
        let outcome = NoteSave.outcome(of: report, last: true, canMerge: session.canMerge)
        carryOut(outcome, session: session, version: session.version, name: session.fileName)
    }

    /// A member's display name for an account id (the live updates' names cache), or words.
    private func named(_ account: String?, _ then: @escaping @MainActor (String) -> Void) {
        guard let account, let live else { return then(MergeSession.someone) }
        live.withNames(of: [account]) { [weak live] in then(live?.name(of: account).map { TerminalSafe.escape($0) } ?? MergeSession.someone) }
    }
}
