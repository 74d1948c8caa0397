import Foundation
import ClubKit
import NoteMerge
import Remote
import TerminalUI

/// Three-way merges of the open note: on a save that met another member's change, and on
/// `Ctrl-R`. The base is the rev the note was opened at (`rev:` download), theirs the note as it
/// is now, mine the editor's text; ``ThreeWayMerge`` puts them together. A clean merge is saved
/// at once with `update` at their rev ("Merged with NAME's changes"); conflicts open the merge
/// view (``MergeSession``, ``MergeView``).
///
/// The user's text is never lost: the editor and its draft keep it, over the rev it was based
/// on, through every path (a failed fetch, a failed save, Cancel, quitting), and take the merged
/// text only once the server confirmed the merged save.
extension NoteConflicts {
    /// What a merge fetched: the base's and their bytes, their revision, and who made it.
    struct MergeFetch: Sendable {
        var base: Data?
        var theirs: Data
        var entry: RemoteEntry
        var who: String?
    }

    /// Why a merge runs.
    enum MergeTrigger: Sendable {
        /// Ctrl-S met a conflict (`attempt` counts merges in a row, each against a newer rev).
        case save(attempt: Int)
        /// Ctrl-R.
        case request
        /// A save succeeded while another member's change came in: take that in too. Quiet when
        /// the server has nothing newer (the news was of a change the save already replaced),
        /// so "Saved" stays what the status bar says.
        case afterSave
    }

    /// At most this many merges follow one another when new revisions keep coming in.
    static let mergeAttempts = 3

    /// `Ctrl-R` in the editor: merge the server's version now.
    func mergeNow() {
        guard let session = state.note else { return }
        guard session.isEditing else {
            context.say(StatusMessage("A save is running; Ctrl-R again once it is done"))
            return
        }
        if session.isReadOnly {
            context.say(.error("This note is read-only: it is not valid UTF-8 text"))
        } else if let deletion = session.remoteDeletion {
            context.say(StatusMessage("Nothing to merge: \(TerminalSafe.escape(deletion.who)) deleted it; Ctrl-S saves it again as a new note"))
        } else if session.entry == nil {
            context.say(StatusMessage("Nothing to merge: this note is not on the server yet"))
        } else if !session.canMerge {
            context.say(StatusMessage("The title changed: save it with Ctrl-S first (a conflict then merges)"))
        } else {
            startMerge(.request)
        }
    }

    /// Fetches their version and the base, then merges (``finishMergeFetch``). `theirs`: the
    /// texts the outbox's sender read to merge this save (it found them overlapping): taken as
    /// they are, so a conflict is read once, not again here; only their author's name is asked.
    func startMerge(_ trigger: MergeTrigger, theirs read: OutboxTheirs? = nil) {
        // The user's text on disk first, whatever happens next.
        let journalled = journal()
        // Open, and no save's items on their way (a save that found their change hands over to
        // this merge: the save machine is merging already).
        guard let session = state.note, session.stage == .open, session.save.phase != .sending else { return }
        let now = context.effects.now()
        guard let entry = session.entry, let baseRev = session.baseRev else {
            // Nothing to merge against after all: a save that handed over is over, not stuck.
            if session.save.phase == .merge { context.model.updateQuietly { $0.note?.save.resumed(at: now) } }
            return
        }
        let generation = context.model.nextID()
        let name = session.fileName
        context.update {
            $0.note?.save.merging(at: now)
            $0.note?.generation = generation
            $0.beginRequest()
            if case .afterSave = trigger { return }
            if journalled { $0.message = StatusMessage("Merging with the server's \"\(TerminalSafe.escape(name))\"…") }
        }
        let store = context.store
        let baseText = session.baseText
        let handedOver = saves.edits.handedOverBase(of: session)
        context.perform({ () async throws(RemoteError) -> MergeFetch in
            var fetch: MergeFetch
            if let read, read.entry.rev != baseRev {
                fetch = MergeFetch(base: Data(read.base.utf8), theirs: Data(read.text.utf8), entry: read.entry)
            } else {
                fetch = try await Self.fetchTheirs(entry.path, baseRev: baseRev, handedOver: handedOver, baseText: baseText, store: store)
            }
            if fetch.base != nil, let id = fetch.entry.modifiedBy {
                fetch.who = try? await store.account(id: id).displayName
            }
            return fetch
        }) { [weak self] result in
            self?.finishMergeFetch(generation: generation, trigger: trigger, result: result)
        }
    }

    /// Their text now and the base it and ours were written on (none when theirs is still the
    /// base: nothing to merge).
    private nonisolated static func fetchTheirs(_ path: String, baseRev: String, handedOver: String?, baseText: String?,
                                                store: any RemoteStore) async throws(RemoteError) -> MergeFetch {
        let current = try await store.read(path)
        guard current.entry.rev != baseRev else { return MergeFetch(base: nil, theirs: current.data, entry: current.entry) }
        // The base: the draft's text as another shell took it and saved it, which both texts
        // were written on; else the server's revision, or, where it keeps none (WebDAV) or no
        // longer has it (a file changed on the server's disk, behind its history), the text
        // this editor opened (or last saved) at that rev, as the outbox's sender merges.
        let base: Data
        do throws(RemoteError) {
            if let handedOver { base = Data(handedOver.utf8) } else { base = try await store.read(rev: baseRev).data }
        } catch {
            switch (error, baseText) {
            case (.notSupported, let known?), (.notFound, let known?): base = Data(known.utf8)
            default: throw error
            }
        }
        return MergeFetch(base: base, theirs: current.data, entry: current.entry)
    }

    private func finishMergeFetch(generation: Int, trigger: MergeTrigger, result: Result<MergeFetch, RemoteError>) {
        context.update { $0.endRequest() }
        guard var session = state.note, session.generation == generation, session.isSaving else { return }
        session.save.resumed(at: context.effects.now())
        let name = session.fileName
        let isSave: Bool
        if case .save = trigger { isSave = true } else { isSave = false }
        /// Back to the conflict dialog (a save: its usual words, why in the log) or a message
        /// (Ctrl-R), the text untouched.
        func giveUp(_ why: String) {
            session.closeAfterSave = false
            context.logger.info("no merge of \(name): \(why)")
            context.update {
                $0.note = session
                $0.message = .error(isSave ? "\"\(TerminalSafe.escape(name))\" was changed on the server since you opened it"
                    : "Cannot merge \"\(name)\": \(why); your text is kept as a draft")
            }
            if isSave { showConflict(name: name, isNew: false) }
        }
        let fetch: MergeFetch
        switch result {
        case .success(let value): fetch = value
        case .failure(.cancelled):
            // Still this note (checked above): back to editing, or it would stay "saving" for good.
            session.closeAfterSave = false
            context.update {
                $0.note = session
                $0.message = StatusMessage("Merge cancelled; your text is kept as a draft")
            }
            return
        case .failure(.notFound(let path)) where !path.hasPrefix("rev:"):
            // Not a change to merge: another member deleted it (the banner says who, and a save
            // offers to put it back as a new note).
            session.closeAfterSave = false
            context.update { $0.note = session }
            return saves.deletedOnServer(ask: isSave)
        case .failure(let error):
            return giveUp("could not merge: \(error.message)")
        }
        guard let baseData = fetch.base else {
            // No one changed it since it was opened: a save's conflict came from elsewhere.
            if isSave { return giveUp("there is no newer text to merge with") }
            // The server's newest is the text this is based on: whatever the banner spoke of
            // is in it already (or was overwritten on purpose), so the banner goes too.
            if session.remoteChange != nil {
                session.remoteChange = nil
                session.banner = nil
            }
            context.update {
                $0.note = session
                if case .afterSave = trigger { return }
                $0.message = StatusMessage("Nothing to merge: no one changed \"\(TerminalSafe.escape(name))\" since you opened it")
            }
            return
        }
        guard let base = String(validating: baseData, as: UTF8.self), let theirs = String(validating: fetch.theirs, as: UTF8.self) else {
            return giveUp("their text is not valid UTF-8, so it cannot be merged")
        }
        let who = fetch.who.map { TerminalSafe.escape($0) } ?? MergeSession.someone
        let mine = session.editor.body.text
        let merged: String
        switch NoteMergeDriver.merge(base: base, mine: mine, theirs: theirs) {
        case .theirsHoldsMine(let text):
            // Theirs already holds everything of mine: take it, nothing to upload.
            context.model.updateQuietly { $0.note = session }
            return adoptMerged(text, entry: fetch.entry, theirs: fetch.entry, who: who, mine: mine, version: session.version, base: session.baseRev)
        case .merged(let text):
            merged = text
        case .overlapping(let merge):
            session.closeAfterSave = false
            session.merge = MergeSession(result: merge, theirs: fetch.entry, theirsText: theirs, who: who, baseRev: session.baseRev ?? "")
            let count = merge.conflictCount
            context.update {
                $0.note = session
                $0.message = StatusMessage("\(count) conflict\(count == 1 ? "" : "s") with \(TerminalSafe.escape(who))'s changes: m mine · t theirs · b both")
            }
            return
        }
        context.model.updateQuietly { $0.note = session }
        let attempt: Int
        if case .save(let n) = trigger { attempt = n } else { attempt = 1 }
        sendMergedSave(merged, theirs: fetch.entry, who: who, mine: mine, attempt: attempt)
    }

    /// Uploads the merged text with `update` at their rev. The editor (and its draft) keep the
    /// user's text until the server confirmed.
    func sendMergedSave(_ merged: String, theirs: RemoteEntry, who: String, mine: String, attempt: Int) {
        let journalled = journal()
        guard let session = state.note, session.isEditing, let rev = theirs.rev else { return }
        let version = session.version, base = session.baseRev
        let generation = saves.markSaving(status: "Saving the merge with \(TerminalSafe.escape(who))'s changes…", journalled: journalled)
        let writes = context.writes, data = Data(merged.utf8), path = theirs.path
        context.perform({ () async throws(RemoteError) -> RemoteEntry in
            // Its front matter's tags become club tags there, as after every save.
            try await writes.saveMerged(data, at: path, over: rev)
        }) { [weak self] result in
            guard let self else { return }
            self.context.update { $0.endRequest() }
            guard var session = self.state.note, session.generation == generation, session.isSaving else { return }
            session.save.resumed(at: self.context.effects.now())
            switch result {
            case .success(let entry):
                self.context.model.updateQuietly { $0.note = session }
                self.adoptMerged(merged, entry: entry, theirs: theirs, who: who, mine: mine, version: version, base: base)
            case .failure(.conflict) where attempt < Self.mergeAttempts:
                // Yet another revision came in meanwhile: merge again, against it.
                session.merge = nil
                self.context.model.updateQuietly { $0.note = session }
                self.startMerge(.save(attempt: attempt + 1))
            case .failure(let error):
                session.closeAfterSave = false
                self.context.update {
                    $0.note = session
                    $0.message = .error("Could not save the merge with \(TerminalSafe.escape(who))'s changes: \(error.message). Your text is kept as a draft; Ctrl-S retries")
                }
            }
        }
    }

    /// After the server has `merged` (as `entry`): the editor takes it as one undo step, the
    /// baseline moves to `entry`, the draft goes. Text typed while the merge was saved is merged
    /// onto it; if that overlaps, the editor keeps it over the old base, so the next save merges.
    func adoptMerged(_ merged: String, entry: RemoteEntry, theirs: RemoteEntry, who: String, mine: String, version: Int, base: String?) {
        guard var session = state.note else { return }
        session.merge = nil
        // The remote change the banner spoke of is in the text now.
        if let change = session.remoteChange, change.rev == theirs.rev || change.rev == entry.rev { session.remoteChange = nil }
        if session.version == version {
            session.editor.body.replaceText(with: merged)
            session.editorCleanIsSaved = false  // the merge is not the server's text yet
            session.version += 1
            saves.saved(session: &session, entry: entry, version: session.version)
        } else if let again = NoteMergeDriver.rebase(typed: session.editor.body.text, from: mine, onto: merged) {
            // Typed while the merge was being saved: that typing goes onto the merge, unsaved.
            session.editor.body.replaceText(with: again)
            session.editorCleanIsSaved = false
            session.version += 1
            saves.saved(session: &session, entry: entry, version: version)
        } else if let base {
            // That typing overlaps their lines: the editor keeps its text, and its draft stays
            // over the old base, so the next save conflicts and merges again rather than drop
            // their change. (`saved` would move the base; the draft never points past it.)
            session.entry = entry
            session.baseRev = base
            session.banner = nil
            session.journalledVersion = -1
            context.model.updateQuietly { $0.note = session }
            journal()
            refresher.took(.notes, [.updated(entry)], select: entry.pathLower)
        }
        // Esc while the merge was saved closed the note once the server had it (``NoteSaves/saved``).
        let closed = state.note == nil
        let typedMore = state.note?.isModified ?? false
        context.update {
            $0.message = StatusMessage("Merged with \(TerminalSafe.escape(who))'s changes" + (typedMore ? "; you typed more since, not saved yet" : "")
                + (closed ? " · Closed \(TerminalSafe.escape(entry.name))" : ""))
        }
    }

    /// Saves the merge view's text once every conflict has a choice.
    func saveMerge() {
        guard let session = state.note, let merge = session.merge else { return }
        guard merge.isResolved else {
            let open = merge.openCount
            context.say(StatusMessage("\(open) conflict\(open == 1 ? "" : "s") left: m mine · t theirs · b both"))
            return
        }
        if merge.isTheirs {
            // Their revision is the merge (theirs chosen, or both where theirs held mine): the
            // editor takes it with nothing uploaded, as when their text held all of mine. Saved
            // again, the same text was a second revision of it in the log.
            return adoptMerged(merge.mergedText, entry: merge.theirs, theirs: merge.theirs, who: merge.who, mine: session.editor.body.text,
                               version: session.version, base: session.baseRev)
        }
        sendMergedSave(merge.mergedText, theirs: merge.theirs, who: merge.who, mine: session.editor.body.text, attempt: 1)
    }
}
