import Foundation
import Remote
import TerminalUI

/// What the sender's results do to the state: the save the open editor waits for is answered
/// through its ``NoteSave``; any other item (queued offline, or by an earlier run) moves the open
/// note, the drafts and the status bar here, with no controller told.
extension OutboxRunner {
    /// Queues the open editor's save and sends it at once; its items' reports (a rename's, then
    /// the save's) or the stop that ended it are sent as ``AppEvent/saveAnswered(_:)``. False (said) when it
    /// could not be queued: nothing was sent, and the text stays in its draft.
    ///
    /// With an outbox of the user's, the editor waits for the server at most ``answerGrace``:
    /// the items are on disk before this returns, so a server that does not answer (one that
    /// stalls says nothing for the whole idle limit, 10 s in the app) is not waited for on
    /// "Saving…"; the save waits in the outbox and says so (``stopAwaiting(_:)``).
    func sendNow(_ items: [OutboxItem]) -> Bool {
        let ids = items.map(\.id)
        awaited = ids
        guard append(items) else {
            awaited = nil
            return false
        }
        send()
        if context.configuration.outbox != nil, awaited == ids {
            context.effects.after(Self.answerGrace) { [weak self] in self?.stopAwaiting(ids) }
        }
        return true
    }

    /// How long the editor waits for the answer to a save sent at once before the save is said
    /// to wait in the outbox: far above a club's usual answer (milliseconds, a merge a few round
    /// trips), far below the idle limit after which a silent server counts as offline.
    static let answerGrace: Duration = .seconds(2)

    /// The save `ids` sent at once has had no answer within ``answerGrace``: the editor no longer
    /// waits for it. The items stay in the outbox, and the send under way goes on; its result
    /// comes as any queued item's (``delivered(_:)``: the open note's rev, the draft), and a
    /// failure to reach the server makes the app offline, as for any send.
    func stopAwaiting(_ ids: [String]) {
        guard let waiting = awaited, waiting == ids else { return }
        awaited = nil
        publishCounts()
        context.send(.saveAnswered(.unanswered(items: ids)))
    }

    /// The pending items follow what the sender did with `report`'s item: it is gone, and its
    /// followers took its path and rev (the sender did that on disk; here in memory). Items this
    /// app queued while it was being sent are retargeted on disk too, which the sender could not.
    func followed(_ report: OutboxReport) {
        let item = report.item
        pending.removeAll { $0.id == item.id }
        let entry = report.result.entry
        for index in pending.indices where Outbox.retarget(&pending[index], after: item, entry: entry, result: report.result) {
            guard queuedDuringSend.contains(pending[index].id) else { continue }
            do { try queueOutbox.replace(pending[index]) } catch { context.logger.error("cannot retarget an outbox item: \(error)") }
        }
    }

    /// Answers the editor waiting for `report`'s item; false when none waits for it.
    func answerAwaited(_ report: OutboxReport) -> Bool {
        guard let waiting = awaited, let index = waiting.firstIndex(of: report.item.id) else { return false }
        if index == waiting.count - 1 || !report.result.went {
            awaited = nil
            // A rename that did not go: the save after it must not write under the old name.
            withdraw(Array(waiting[(index + 1)...]))
        }
        listFollows(report)
        // (A draft the sender kept is the editor's own: its row follows once the editor closes.)
        context.send(.saveAnswered(.report(report)))
        return true
    }

    /// The send stopped while the editor waited: an unreachable server keeps the save waiting in
    /// the user's outbox; anything else (or no outbox of the user's) takes it back out, and the
    /// editor says it could not save, its text in its draft.
    func stoppedAwaited(_ error: RemoteError) {
        guard let waiting = awaited else { return }
        awaited = nil
        let waits = error.isUnreachable && context.configuration.outbox != nil
        if !waits { withdraw(waiting) }
        // Left to wait, a rename is an offline one: moved whatever came meanwhile, later saves merging.
        for index in pending.indices where waits && waiting.contains(pending[index].id) && pending[index].onlyAtBaseRev != nil {
            pending[index].onlyAtBaseRev = nil
            do { try queueOutbox.replace(pending[index]) } catch { context.logger.error("cannot rewrite an outbox item: \(error)") }
        }
        context.send(.saveAnswered(.stopped(error, waits: waits, items: waiting)))
    }

    /// Takes items out of the outbox unsent.
    func withdraw(_ ids: [String]) {
        for item in pending where ids.contains(item.id) {
            do { try queueOutbox.remove(item) } catch { context.logger.error("cannot withdraw an outbox item: \(error)") }
        }
        pending.removeAll { ids.contains($0.id) }
    }

    /// Removes what waits for the draft `draftID` (the user dropped it).
    func drop(draftID: String) {
        let dropped = pending.filter { $0.draftID == draftID }.map(\.id)
        withdraw(dropped)
        publishCounts()
    }

    /// One item's result, for an item no editor waits for: the open note, the drafts, the lists
    /// and the status bar follow it.
    func delivered(_ report: OutboxReport) {
        let item = report.item
        context.logger.info("outbox", metadata: ["item": "\(item.kind.rawValue) \(item.path)", "result": "\(report.result)"])
        switch report.result {
        case .sent(let entry):
            sentInRun += 1
            noteSent(item, entry: entry, merged: false, text: nil)
        case .merged(let entry, _):
            sentInRun += 1
            mergedInRun += 1
            noteSent(item, entry: entry, merged: true, text: report.text)
            context.say(.init("Merged \"\(TerminalSafe.escape(item.title))\" with changes made on the server meanwhile", kind: .success))
        case .conflict(_, let reason):
            problemsInRun += 1
            firstProblem = firstProblem ?? reason
            noteKeptAsDraft(item)
            context.say(.error(reason))
            // The open editor's own save, answered late, its text as sent: it asks now.
            if let open = state.note, open.queuedItem == item.id, open.editor.body.text == item.text {
                context.send(.lateConflict(report))
            }
        case .refused(let reason):
            problemsInRun += 1
            firstProblem = firstProblem ?? reason
            context.say(.error(reason))
        }
        // The sender dropped the draft, or kept the text as one: the rows follow.
        if item.draftID != nil { refresher.reloadDrafts() }
        listFollows(report)
    }

    /// Our own change, as the server answered it: the list takes it in place (the club is not
    /// listed again), and the live updates do not announce it as news.
    private func listFollows(_ report: OutboxReport) {
        let item = report.item
        let photos = context.configuration.layout.photosFolder.lowercased() + "/"
        let tab: Tab = item.kind == .upload || item.path.lowercased().hasPrefix(photos) ? .photos : .notes
        switch (item.kind, report.result.entry) {
        case _ where !report.result.went: refresher.ownChange(tab)
        case (.delete, _): refresher.took(tab, [Refresher.gone(item.path)])
        case (.rename, let moved?): refresher.took(moveFrom: item.path, to: moved, in: tab)
        case (_, let entry?): refresher.took(tab, [.updated(entry)])
        case (_, nil): refresher.ownChange(tab)
        }
    }

    /// The server confirmed an outbox item: the open note takes the new rev when it is the
    /// editor that queued the item (or holds exactly its text), and counts as saved if it still
    /// holds that text; the draft goes if it holds exactly that text and no later item needs it.
    /// `isMerged`: the server's rev holds someone else's change too, so nothing moves onto it;
    /// an editor still holding our text takes the merged text (`merged`) in place.
    private func noteSent(_ item: OutboxItem, entry: RemoteEntry?, merged isMerged: Bool, text merged: String?) {
        guard item.kind != .upload, item.kind != .delete, let entry else { return }
        if !isMerged, item.kind != .rename, let text = item.text {
            // What an offline open shows next time: the text the server now has.
            context.cacheNoteText(Data(text.utf8), of: entry)
        }
        if var session = state.note, session.isEditing,
           session.draftID == item.draftID || session.entry?.pathLower == item.path.lowercased() {
            confirm(&session, item: item, entry: entry, merged: isMerged, text: merged)
            context.update { $0.note = session }
        }
        // A note kept open behind the one on screen (OpenNotes.swift) that queued the item.
        if let draftID = item.draftID, let index = state.parkedIndex(draftID: draftID), state.buffers.parked[index].isEditing {
            var session = state.buffers.parked[index]
            confirm(&session, item: item, entry: entry, merged: isMerged, text: merged)
            context.update { $0.updateParked(draftID: draftID) { $0 = session } }
        }
        guard let draftID = item.draftID, let drafts = context.configuration.drafts,
              !pending.contains(where: { $0.draftID == draftID }), let text = merged ?? item.text,
              let draft = drafts.load(draftID) else { return }
        switch draft.afterSend(of: item, landed: entry, text: text) {
        case .remove:
            // Only a draft holding exactly the text the server confirmed (a merge holds it too):
            // a newer one is the user's later work.
            if state.note?.draftID == draftID && state.note?.isModified == true { return }
            if let index = state.parkedIndex(draftID: draftID), state.buffers.parked[index].isModified { return }
            drafts.remove(draftID)
            context.update { $0.drafts.removeAll { $0.id == draftID } }
        case .move(let moved):
            // Typed since, in no editor open here (an app killed before the answer, whose
            // outbox this one sent): the draft of the note the club now has, not a new note's
            // beside it. An editor that has it journals it itself, moved by ``confirm``.
            if state.note?.draftID == draftID || state.parkedIndex(draftID: draftID) != nil { return }
            do { try drafts.save(moved) } catch { context.logger.error("cannot move a sent note's draft: \(error)") }
        case .keep:
            return
        }
    }

    /// What the server's confirmation of `item` does to `session`, the editor that queued it
    /// (or that holds exactly its text): the new rev, and saved if it still holds that text.
    private func confirm(_ session: inout NoteSession, item: OutboxItem, entry: RemoteEntry, merged isMerged: Bool, text merged: String?) {
        let sameText = session.editor.body.text == item.text
        let ours = session.queuedItem == item.id || sameText
        switch item.kind {
        case .rename:
            session.entry = entry
            // A rename moves the note, not its text: the base text stays.
            if !isMerged, session.baseRev == item.baseRev { session.setBase(entry.rev, text: session.baseText) }
        case .save, .create:
            if isMerged {
                // Ours is in the merge; the editor takes it unless more was typed since.
                if let merged, sameText, session.version == session.savedVersion {
                    session.editor.body.replaceText(with: merged)
                    session.entry = entry
                    session.setBase(entry.rev, text: merged)
                    session.version += 1
                    session.savedVersion = session.version
                    session.journalledVersion = session.version
                    session.editorCleanIsSaved = false
                    context.cacheNoteText(Data(merged.utf8), of: entry)
                }
            } else if ours, session.baseRev == item.baseRev {
                session.entry = entry
                session.setBase(entry.rev, text: item.text)
                if sameText { session.savedVersion = session.version }
            }
        case .delete, .upload:
            break
        }
    }

    /// An outbox save came back unsent (the note changed on the server and the changes overlap):
    /// the open note, if it is that one, counts as unsaved again, so Ctrl-S brings up the merge
    /// view and Esc asks before anything is dropped.
    private func noteKeptAsDraft(_ item: OutboxItem) {
        let keep = { (session: inout NoteSession) in
            // Over the base the draft was kept at: the next save conflicts and merges.
            if item.kind == .save { session.setBase(item.baseRev, text: item.baseText) }
            session.savedVersion = -1
            session.editorCleanIsSaved = false
        }
        // A note kept open behind the one on screen is that note too (OpenNotes.swift).
        context.update { $0.updateParked(draftID: item.draftID, keep) }
        guard var session = state.note, session.draftID == item.draftID || session.entry?.pathLower == item.path.lowercased() else { return }
        keep(&session)
        context.update { $0.note = session }
    }
}

extension AppContext {
    /// Keeps a note's text in the disk cache (off the UI queue), for opening it offline.
    func cacheNoteText(_ data: Data, of entry: RemoteEntry) {
        guard let cache = configuration.cache, let text = String(validating: data, as: UTF8.self) else { return }
        let note = ClubCache.Note(path: entry.path, rev: entry.rev, text: text, saved: configuration.format.now())
        let logger = self.logger
        // Until the write lands, an offline open finds the text here: a save then the server
        // gone at once still opens the note (a busy disk's fsync can take a second).
        let key = entry.path.lowercased()
        model.cacheWrites[key] = note
        let model = self.model
        effects.perform({ () async throws(RemoteError) in
            do { try cache.saveNote(note) } catch { logger.error("cannot cache \(entry.name): \(error)") }
        }) { _ in
            if model.cacheWrites[key] == note { model.cacheWrites[key] = nil }
        }
    }

    /// The note's text as last cached on this machine: one on its way to the disk, else the disk's.
    func cachedNote(_ path: String) -> ClubCache.Note? {
        model.cacheWrites[path.lowercased()] ?? configuration.cache?.note(path)
    }
}
