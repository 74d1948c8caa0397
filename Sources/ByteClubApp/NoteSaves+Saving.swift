import ClubKit
import Foundation
import Remote
import TerminalUI

/// Saving a note: `add` for a new one, `update` at the rev it was opened at otherwise, a move
/// first for a new title. When the server's note changed meanwhile, ``NoteConflicts`` takes
/// over: a three-way merge (NoteConflicts+Merge.swift) and, where no merge can be made (a new
/// note whose name is taken, a new title, a note deleted there, a base that is gone), the
/// conflict dialog (Overwrite, Save as copy, Reload theirs). The text is journalled before anything is sent, and
/// its draft goes only once the server confirmed the save.
extension NoteSaves {
    /// `Ctrl-S`: uploads the text, `add` for a new note and `update` at the opened rev otherwise;
    /// a changed title moves the file first (after checking the rev, so a rename never hides
    /// someone else's change). On a note another member deleted, what its banner says: saved
    /// again as a new note where it was (a create: a note made there since is asked about).
    func save(confirmedEmpty: Bool = false) {
        guard let session = state.note else { return }
        guard session.isEditing else {
            // A save (or a merge) is on its way and its answer is this editor's: said, not dropped.
            if session.isSaving {
                context.say(StatusMessage("Saving \"\(TerminalSafe.escape(session.fileName))\"…: wait for the server's answer, then Ctrl-S again"))
            }
            return
        }
        if session.isReadOnly || state.readsOnly {
            context.say(.error(state.readsOnly ? AppState.readerRefusal : "This note is read-only: it is not valid UTF-8 text"))
            return
        }
        if let problem = NoteSession.titleProblem(session.editor.title.text) {
            context.update {
                $0.note?.closeAfterSave = false
                $0.message = .error(problem)
            }
            return
        }
        if ConflictMarkers.present(in: session.editor.body.text) {
            // The same answer as `byteclub edit` gives (a draft the shell kept with both sides
            // marked, opened here): the markers are for the writer to settle, never the club's.
            context.update {
                $0.note?.closeAfterSave = false
                $0.message = .error(ConflictMarkers.refusal(TerminalSafe.escape(session.editor.title.text)))
            }
            return
        }
        if session.editor.body.isEmpty, !confirmedEmpty {
            let modal = Modal(title: "Empty note", body: ["The note has no text. Save it empty?"], buttons: ["Save", "Cancel"])
            context.ask { DialogLayer(modal, selected: 1) { [weak self] choice in
                if choice == 0 { self?.save(confirmedEmpty: true) } else { self?.context.model.updateQuietly { $0.note?.closeAfterSave = false } }
            } }
            return
        }
        if session.remoteDeletion != nil {
            // No note to update: made new (title, extension and folder kept), it saves as one.
            context.model.updateQuietly { $0.note?.becomeNew() }
        }
        let name = state.note?.fileName ?? session.fileName
        // The journal first: whatever happens to the request, the text is on disk.
        let journalled = journal()
        if outbox?.shouldQueue ?? false {
            // Offline, or older changes still wait: after them, in order.
            guard journalled else { return }
            queueSave(name: name)
            return
        }
        // Online: the same items, sent at once by the outbox's sender; the editor waits for them.
        guard let runner = outboxRunner, let current = state.note, current.isEditing else { return }
        // A rename moves only at the opened rev: a change made meanwhile is asked about, not moved.
        let items = saveItems(current, name: name).map { item in
            var item = item
            if item.kind == .rename { item.onlyAtBaseRev = true }
            return item
        }
        let ids = items.map(\.id), version = current.version, text = current.editor.body.text
        let generation = markSaving(status: "Saving \"\(TerminalSafe.escape(name))\"…", journalled: journalled)
        context.model.updateQuietly {
            $0.note?.save.sending(NoteSave.Sent(generation: generation, version: version, name: name, text: text, items: ids), at: context.effects.now())
        }
        live?.liveNotes?.saving(text)
        let sent = runner.sendNow(items)
        if !sent {
            // Not queued (said why): nothing was sent, the draft keeps the text.
            context.update {
                $0.endRequest()
                $0.note?.closeAfterSave = false
                $0.note?.save.resumed(at: context.effects.now())
            }
        }
    }

    /// Marks the note as saving under a new generation (returned) with `status` on screen:
    /// sending is now the best way to keep the text, so when journalling failed (not
    /// `journalled`) the draft's failure stays on screen after it.
    func markSaving(status: String, journalled: Bool) -> Int {
        let generation = context.model.nextID()
        let draftProblem = journalled ? nil : state.message?.text
        let now = context.effects.now()
        context.update {
            $0.note?.save.writing(at: now)
            $0.note?.generation = generation
            let inView = $0.note?.remoteChange
            $0.note?.remoteChangeAtSave = inView
            $0.beginRequest()
            $0.message = draftProblem.map { .error(status + " " + $0) } ?? StatusMessage(status)
        }
        return generation
    }

    /// Carries out where a save ended, for `session` as the answer left it (editing again).
    func carryOut(_ outcome: NoteSave.Outcome, session: NoteSession, version: Int, name: String) {
        var session = session
        switch outcome {
        case .saved(let entry, let adopt):
            if adopt { session.editor.title.text = ClubLayout.title(of: entry.name) }
            saved(session: &session, entry: entry, version: version, copy: adopt)
        case .nameTaken:
            session.closeAfterSave = false
            context.update {
                $0.note = session
                $0.message = .error("A note named \"\(TerminalSafe.escape(name))\" already exists; change the title (Ctrl-T) or rename that note first")
            }
        case .deleted:
            session.closeAfterSave = false
            context.model.updateQuietly { $0.note = session }
            deletedOnServer(ask: true)
        case .merge(let theirs):
            // Another member saved since it was opened: merge their change with ours (with the
            // texts the sender read for it, when it did).
            context.model.updateQuietly { $0.note = session }
            conflicts?.startMerge(.save(attempt: 1), theirs: theirs)
        case .conflict:
            session.closeAfterSave = false
            let isNew = session.entry == nil
            // The note that changed is the one on the server, under its name there (a new title
            // names no file yet).
            let changed = session.entry?.name ?? name
            context.update {
                $0.note = session
                $0.message = .error(isNew ? "A note named \"\(TerminalSafe.escape(name))\" already exists" : "\"\(TerminalSafe.escape(changed))\" was changed on the server since you opened it")
            }
            conflicts?.showConflict(name: isNew ? name : changed, isNew: isNew)
        case .queue:
            // The server cannot be reached: the outbox keeps the text and sends it when it is back.
            // (The request's failure already told the outbox runner the server is gone.)
            context.model.updateQuietly { $0.note = session }
            queueSave(name: name)
        case .failed(let error):
            session.closeAfterSave = false
            context.update {
                $0.note = session
                // A refusal (a reader, a member removed) will not change with a retry: no "Ctrl-S retries".
                if case .forbidden = error {
                    // The draft first: a long refusal is cut at the screen's edge, never the
                    // news that nothing typed is lost. The same words as the outbox's refusal
                    // (OutboxSender.notSaved), whichever path the save took.
                    $0.message = .error("Kept as a draft, not saved \"\(TerminalSafe.escape(ClubLayout.title(of: name)))\": \(error.message)")
                } else {
                    $0.message = .error("Could not save \"\(TerminalSafe.escape(name))\": \(error.message). Your text is kept as a draft; Ctrl-S retries")
                }
            }
        case .refused(let reason):
            session.closeAfterSave = false
            context.update {
                $0.note = session
                $0.message = .error(reason + "; your text is kept as a draft")
            }
        case .moved, .merged, .ignored, .waits:
            // Answers of a save sent through the outbox (finishQueuedSave).
            break
        }
    }

    /// After the server confirmed a save: the baseline moves, the draft goes, the list follows.
    /// `copy`: saved as a copy beside the note, which stays (else a save at another path moved it).
    func saved(session: inout NoteSession, entry: RemoteEntry, version: Int, copy: Bool = false) {
        // What an offline open shows next time: the text the server confirmed (the editor may
        // hold more, typed during the save; that is in the draft).
        if session.version == version { context.cacheNoteText(Data(session.editor.body.text.utf8), of: entry) }
        let previous = session.entry
        session.entry = entry
        // The list takes the saved note at once (a new one, or its new rev and size; a save that
        // renamed, its old row gone), as the server answered: that is the whole of it, the club
        // is not listed again (a 100,000-note club was, after every save). A server gone right
        // after the save leaves the note there to open again (from this machine's copy). Ours,
        // so no news (LiveUpdates.announce), nor is what the feed says of it next.
        var changes: [RemoteChange] = [.updated(entry)]
        if let previous, previous.pathLower != entry.pathLower, !copy {
            changes.insert(Refresher.gone(previous), at: 0)
        }
        refresher.took(.notes, changes)
        // The text saved is the editor's when nothing was typed since; else the one sent at once
        // (a queued save's is not known here).
        let editorText = session.version == version ? session.editor.body.text : nil
        session.setBase(entry.rev, text: editorText)
        if let savedText = editorText ?? session.save.sent.flatMap({ $0.version == version ? $0.text : nil }) { live?.liveNotes?.saved(savedText) }
        session.savedVersion = version
        // Nothing typed since the save began: the editor's text is the server's, its clean state.
        session.editorCleanIsSaved = session.version == version
        if session.editorCleanIsSaved { session.editor.markSaved() }
        // Another member's change that came in while this save was in flight is not in the saved
        // text: its banner stays, and the merge below takes it in (or says why it cannot). One
        // known before the save began was dealt with by it (merged or overwritten on purpose).
        let known = session.remoteChangeAtSave
        let pending = session.remoteChange.flatMap { $0.rev == entry.rev || $0 == known ? nil : $0 }
        session.remoteChangeAtSave = nil
        session.remoteChange = pending
        session.banner = pending.map { LiveUpdates.banner(for: $0, format: configuration.format) }
        let stillModified = session.isModified
        // From now on the draft of this text belongs to the saved note's path.
        let oldDraft = session.draftID
        session.draftID = Draft.id(forPath: entry.path)
        session.heldOwnDraft = true
        // Esc → Save closes once saved, unless more was typed meanwhile: that text stays open.
        let close = session.closeAfterSave && !stillModified
        var keptElsewhere = false
        session.closeAfterSave = false
        if stillModified {
            // Typed during the save: that text is newer than the server's. It goes to the draft
            // under its new name now, and the old draft goes only once that write succeeded.
            session.journalledVersion = -1
            context.model.updateQuietly { $0.note = session }
            if journal(), oldDraft != session.draftID { configuration.drafts?.removeIfOurs(oldDraft) }
        } else {
            // The editor holds the server's text: nothing is left to journal (a merge adopted
            // after the save had a version no draft ever had, and a journal write still scheduled
            // by typing, or the one on the way out, would write the saved text back as a draft).
            session.journalledVersion = session.version
            // A draft of the path another process kept (`byteclub edit` after a conflict) stays.
            keptElsewhere = configuration.drafts?.removeIfOurs(session.draftID) == false
            if oldDraft != session.draftID { configuration.drafts?.removeIfOurs(oldDraft) }
            context.model.updateQuietly { $0.note = close ? nil : session }
        }
        context.update {
            $0.drafts.removeAll { $0.id == oldDraft || (!stillModified && !keptElsewhere && $0.id == session.draftID) }
            $0.message = StatusMessage("Saved \"\(TerminalSafe.escape(entry.name))\"" + (stillModified ? "; you typed more since, not saved yet" : ""))
        }
        // Closed: the list is on the saved note (it took the entry above).
        if close { showInList(session) }
        if pending != nil, let open = state.note, open.isEditing, open.merge == nil, open.canMerge {
            conflicts?.startMerge(.afterSave)
        }
    }

    /// The open note is gone from the server (a save or a merge found so): the banner says who
    /// deleted it, and with `ask` the choice is offered at once (from then on Ctrl-S saves it
    /// again as a new note, as the banner says: ``save(confirmedEmpty:)``).
    func deletedOnServer(ask: Bool) {
        guard let session = state.note, let entry = session.entry else { return }
        if let known = session.remoteDeletion {
            if ask { askAboutDeletedNote(who: known.who) }
            return
        }
        let draftID = session.draftID
        let mark: @MainActor (String?) -> Void = { [weak self] who in
            guard let self, let open = self.state.note, open.draftID == draftID, open.entry?.pathLower == entry.pathLower else { return }
            guard let who else {
                // There again (restored meanwhile): the next Ctrl-S saves over it as usual.
                self.context.say(StatusMessage("\"\(TerminalSafe.escape(entry.name))\" is on the server again; Ctrl-S saves"))
                return
            }
            self.context.update {
                $0.note?.markDeleted(by: who)
                $0.message = .error("\"\(TerminalSafe.escape(entry.name))\" was deleted on the server by \(TerminalSafe.escape(who))")
            }
            if ask { self.askAboutDeletedNote(who: who) }
        }
        if let live { live.whoDeleted(entry.path, then: mark) } else { mark(LiveUpdates.unknownMember) }
    }

    /// A save that found the note deleted by another member: save the text again as a new note
    /// (same title, same place), or discard it. Cancel is the default: Enter on a reflex must not
    /// drop the text, nor put back a note someone meant to delete.
    func askAboutDeletedNote(who: String) {
        guard let session = state.note else { return }
        let name = TerminalSafe.escape(session.fileName)
        let buttons = ["Save as new note", "Discard", "Cancel"]
        let modal = Modal(title: "Deleted by \(TerminalSafe.escape(who))", body: [
            "\"\(name)\" was deleted on the server by \(TerminalSafe.escape(who)).",
            "Save as new note puts your text back as a new note. Discard closes it and drops your text.",
        ], buttons: buttons)
        context.ask { DialogLayer(modal, selected: buttons.count - 1) { [weak self] choice in
            guard let self else { return }
            switch choice {
            case 0?:
                self.context.model.updateQuietly { $0.note?.becomeNew() }
                self.save()
            case 1?:
                self.context.model.updateQuietly { $0.note?.closeAfterSave = false }
                self.discardEditor()
            default:
                self.context.update {
                    $0.note?.closeAfterSave = false
                    $0.message = StatusMessage("Not saved; your text is kept as a draft")
                }
            }
        } }
    }
}

/// The outcome of `body` as a value.
func attempt<T>(_ body: () async throws(RemoteError) -> T) async -> Result<T, RemoteError> {
    do throws(RemoteError) {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
