import Foundation
import Remote
import TerminalUI

/// What follows an edit of the open note, wherever it came from (a key in the editor, a photo's
/// reference the rendered view inserts, the user's own editor): search hits mode ends, the
/// version moves on, and the text is journalled to its ``Draft`` at most ``journalDelay`` later
/// (and always before a save is sent); a draft is removed only once the server has confirmed
/// the save.
///
/// A helper: it writes the open note's state and its draft, and calls no controller.
@MainActor
final class NoteEdits {
    /// How long an edit may wait before it is written to its draft.
    static let journalDelay: Duration = .milliseconds(300)

    let context: AppContext
    /// The open note's live channel: each edit goes to the other members in it.
    weak var live: LiveNotes?
    /// Whether a journal write is scheduled.
    private var journalScheduled = false
    /// A background journal write is under way; another was asked for meanwhile.
    private var journalWriting = false
    private var journalAgain = false
    /// The open note's own document while it is not live (alone, offline, WebDAV, Dropbox): its
    /// journal is the note's draft, each edit appended as the editor made it
    /// (``LiveNote/local(in:seededWith:)``), and the editor (its ``TextBuffer/lineage``) and
    /// ``TextBuffer/editCount`` it last took.
    private var local: (note: LiveNote, lineage: UInt64, count: Int)?
    /// The editor whose document is being started, off the UI queue (its lineage).
    private var starting: UInt64?
    /// Where a note's own document is started (its whole text seeded), giving way to the UI.
    nonisolated private static let starts = YieldingThread(name: "byteclub.note-journal")

    /// Waits for the documents started so far (``ClubApp/waitForBackgroundWork()``).
    nonisolated static func waitForStarts() { starts.sync {} }

    init(context: AppContext) {
        self.context = context
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    /// Types `text` at the editor's cursor, as a paste.
    func insert(_ text: String) {
        var outcome: NoteEditorOutcome?
        context.model.updateQuietly { outcome = $0.note?.editor.handle(.paste(text)) }
        if case .edited? = outcome { edited() } else { context.compositor.setNeedsRedraw() }
    }

    /// After an edit: search hits mode ends, the version moves on, a journal write soon; or,
    /// when undo brought back the text the server has, `[+]` goes, and so does the draft.
    func edited() {
        endSearchHits()
        guard let session = state.note else { return }
        defer { live?.edited() }
        if session.editorCleanIsSaved, !session.editor.isModified {
            configuration.drafts?.removeIfOurs(session.draftID)
            // A new number, never one a save under way started from: that save's answer must
            // not take this text for the one it sent.
            let clean = session.version + 1
            context.update {
                $0.note?.version = clean
                $0.note?.savedVersion = clean
                $0.note?.journalledVersion = clean
                $0.drafts.removeAll { $0.id == session.draftID }
            }
            return
        }
        context.update { $0.note?.version += 1 }
        journalLocally()
        scheduleJournal()
    }

    /// The open note's edits since the last into its own document's journal, as the editor made
    /// them: a key is an append. A new editor (another note, a reload's, a merge's, the user's own
    /// editor's text) or a journal gone (its draft dropped) starts a new document, seeded with the
    /// editor's whole text once, off the UI queue (a 1 MiB note's seed is tens of ms); until it is
    /// ready the draft holds the text, as any draft. A live note's journal is the live one (``LiveNotes``).
    private func journalLocally() {
        guard let session = state.note, !session.isReadOnly, !session.liveJournalled, let drafts = configuration.drafts else {
            local = nil
            return
        }
        let body = session.editor.body
        // Changed in place (`local?`): a copy held beside it made the document's text be copied
        // at each key (2 MiB a key in a 1 MiB note).
        if let (lineage, count) = local.map({ ($0.lineage, $0.count) }), lineage == body.lineage, let journal = local?.note.journal,
           FileManager.default.fileExists(atPath: journal.path), let edits = body.edits(since: count) {
            // Its undo steps joined as the editor joins a typed run: if the note goes live, they
            // are the member's to undo there (``LiveDocument/takeUndoSteps(of:)``).
            for edit in edits { _ = local?.note.edit(replacing: edit.range, with: edit.text, continuing: edit.continuesStep) }
            local?.count = body.editCount
            if local?.note.document.utf16Count == body.utf16Count { return }
        }
        local = nil
        guard starting != body.lineage else { return }
        starting = body.lineage
        let (lines, lineage, count, folder) = (body.lineClusters, body.lineage, body.editCount, drafts.localJournals)
        // A restored draft's own document, taken up where it was (its editor opened with its
        // text, edit 0 on); else a new one over the text the note was opened over, from the
        // room's document when this machine has it (LiveNotes), so that a join takes its edits in
        // as operations.
        let restored = session.restoredOwnJournal.flatMap { $0.lineage == lineage ? $0 : nil }
        let start = live?.ownStart(for: session)
        Self.starts.async { [weak self, hop = context.effects.hop] in
            if let restored, let note = Self.takeUp(restored, in: folder) {
                hop { self?.started(note, lineage: lineage, count: 0, restored: true) }
                return
            }
            let text = String(decoding: TextBuffer.utf8(of: lines), as: UTF8.self)
            let note = LiveNote.local(in: folder, seededWith: text, over: start?.base, from: start?.room?.encodeStateAsUpdate())
            hop { self?.started(note, lineage: lineage, count: count) }
        }
    }

    /// The open note's own document, when it holds every edit of its editor (its start done, and
    /// not behind): what a join takes in as the operations it holds (``LiveNotes``).
    /// A restored draft's document not taken up yet (nothing typed since it opened) is taken up now.
    func ownDocument() -> LiveNote? {
        guard let session = state.note, !session.isReadOnly, !session.liveJournalled else { return nil }
        let body = session.editor.body
        if let local, local.lineage == body.lineage, local.count == body.editCount, local.note.document.utf16Count == body.utf16Count {
            return local.note
        }
        guard local == nil, starting == nil, body.editCount == 0, let restored = session.restoredOwnJournal, restored.lineage == body.lineage,
              let folder = configuration.drafts?.localJournals, let note = Self.takeUp(restored, in: folder) else { return nil }
        local = (note, body.lineage, 0)
        return note
    }

    /// A restored draft's own document, from its journal: nil unless the journal is one of this
    /// club's own documents' (`folder`) and holds the draft's text.
    private nonisolated static func takeUp(_ restored: NoteSession.RestoredJournal, in folder: URL) -> LiveNote? {
        let journal = URL(fileURLWithPath: restored.path)
        guard journal.deletingLastPathComponent().standardizedFileURL == folder.standardizedFileURL else { return nil }
        let note = LiveNote(noteID: journal.lastPathComponent, folder: folder)
        return note.start != nil && note.text == restored.text ? note : nil
    }

    /// A document started for the editor of `lineage` at its edit `count`: it takes the edits
    /// made since, or, for an editor gone meanwhile, its journal goes (no draft names it).
    /// A restored draft's document (`restored`) is its draft's journal: never removed here.
    private func started(_ note: LiveNote, lineage: UInt64, count: Int, restored: Bool = false) {
        if starting == lineage { starting = nil }
        guard let body = state.note?.editor.body, body.lineage == lineage, !(state.note?.liveJournalled ?? true) else {
            if !restored, let journal = note.journal { try? FileManager.default.removeItem(at: journal) }
            return
        }
        local = (note, lineage, count)
        journalLocally()
    }

    /// The journal that holds `session`'s text: the live note's, or its own document's when that
    /// has taken every edit of its editor. Its draft then keeps no text of its own
    /// (``Draft/liveJournal``). Nil when neither does: the draft holds the text.
    private func journal(holding session: NoteSession) -> String? {
        if let live = live?.journal(holding: session) { return live }
        let body = session.editor.body
        guard !session.liveJournalled, let local, local.lineage == body.lineage, local.count == body.editCount,
              local.note.document.utf16Count == body.utf16Count, let journal = local.note.journal,
              FileManager.default.fileExists(atPath: journal.path) else { return nil }
        return journal.path
    }

    /// Another member's edit came into the text (a live note): journalled as the user's are.
    func journalSoon() { scheduleJournal() }

    /// After every edit: a journal write soon, off the UI queue.
    private func scheduleJournal() {
        guard !journalScheduled else { return }
        journalScheduled = true
        context.effects.after(Self.journalDelay) { [weak self] in
            self?.journalScheduled = false
            self?.journalInBackground()
        }
    }

    /// Writes the open note's draft on the drafts' queue: only the lines are taken here (a
    /// copy-on-write share, nothing copied), and the text, its JSON and the durable write are
    /// made there, so typing in a 1 MiB note never waits for its draft. One write at a time; edits
    /// made meanwhile are written by the next. A failure is said, as for ``journal()``.
    private func journalInBackground() {
        guard let current = state.note, current.stage != .loading, !current.isReadOnly,
              current.version != current.journalledVersion, let drafts = configuration.drafts else { return }
        guard !journalWriting else {
            journalAgain = true
            return
        }
        journalWriting = true
        let open = fresh(current, drafts)
        let lines = open.editor.body.lineClusters
        // A draft whose text is its journal's is made without it: no whole text each time.
        let empty = {
            var draft = open.draft(at: configuration.format.now(), body: "")
            draft.liveJournal = journal(holding: open)
            draft.journalLength = draft.liveJournal.flatMap { Self.length(of: $0) }
            if draft.journalLength == nil { draft.liveJournal = nil }
            return draft
        }()
        let version = open.version
        let apart = Draft.newID()
        let text = { @Sendable in String(decoding: TextBuffer.utf8(of: lines), as: UTF8.self) }
        drafts.saveInBackgroundIfOurs({
            var draft = empty
            if draft.liveJournal == nil { draft.body = text() }
            return draft
        }, text: text, apart: { apart }) { [weak self, hop = context.effects.hop] result in
            hop {
                guard let self else { return }
                self.journalWriting = false
                switch result {
                case .failure(let error):
                    self.context.logger.error("cannot write the draft: \(error)")
                    self.context.say(.error("Could not write the draft: \(error.localizedDescription)"))
                case .success(let written):
                    // Another process's text was in the note's draft: this text went to a draft
                    // of its own, which the session journals to from now on.
                    if written != empty.id { self.keepApart(open, as: written) }
                    self.context.model.updateQuietly { state in
                        guard state.note?.draftID == written, let done = state.note?.journalledVersion, done < version else { return }
                        state.note?.journalledVersion = version
                    }
                }
                if self.journalAgain {
                    self.journalAgain = false
                    self.scheduleJournal()
                }
            }
        }
    }

    /// The length of the file at `path` (a journal: what was appended to it so far), or nil.
    private static func length(of path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// Writes the open note's text to its draft if it changed since the last write. Called after
    /// every edit (debounced), before every save, and on the way out.
    @discardableResult
    func journal() -> Bool {
        guard let open = state.note, open.stage != .loading, !open.isReadOnly,
              open.version != open.journalledVersion, configuration.drafts != nil else { return true }
        do {
            try writeDraft(of: open)
            return true
        } catch {
            context.logger.error("cannot write the draft: \(error)")
            context.say(.error("Could not write the draft: \(error.localizedDescription)"))
            return false
        }
    }

    /// Writes `session`'s draft now (the open note's, or one about to be handed to an editor),
    /// under an id of its own when its file holds another process's text, and marks the version
    /// journalled. Returns the session as written (its draft id may be new).
    @discardableResult
    func writeDraft(of session: NoteSession) throws -> NoteSession {
        guard let drafts = configuration.drafts else { return session }
        let session = fresh(session, drafts)
        var written = session
        let journal = journal(holding: session)
        func draft(_ session: NoteSession) -> Draft {
            var draft = session.draft(at: configuration.format.now())
            draft.liveJournal = journal
            return draft
        }
        if try !drafts.saveIfOurs(draft(session)) {
            written = keepApart(session)
            try drafts.save(draft(written))
        }
        context.model.updateQuietly { state in
            if state.note?.draftID == written.draftID { state.note?.journalledVersion = written.version }
        }
        return written
    }

    /// A note opened from the server that has not journalled yet, over a draft of that note
    /// already on disk (this process's or another's: one left open behind, kept after a
    /// question, `byteclub edit`'s): it takes a draft of its own, and the one there stays.
    private func fresh(_ session: NoteSession, _ drafts: DraftStore) -> NoteSession {
        guard session.journalledVersion == 0, let path = session.entry?.path, session.draftID == Draft.id(forPath: path),
              drafts.has(session.draftID) else { return session }
        return keepApart(session)
    }

    /// The text `session`'s draft held when another shell took it over (`byteclub edit` resumed
    /// it) and then had the club's confirmation of it: the text that shell's revision was written
    /// on, and this editor's too, so the base of its next merge (``DraftStore/handedOver(_:over:)``).
    /// Merged from the rev it opened, the draft's own lines, in both texts, conflicted with
    /// themselves. Nil in every other case.
    func handedOverBase(of session: NoteSession) -> String? {
        guard let drafts = configuration.drafts, let path = session.entry?.path else { return nil }
        let own = Draft.id(forPath: path)
        // The note's own draft's, only when this editor wrote it: one opened from a draft kept
        // apart took up other text over the same rev (a line lost in a generated history, seed 1
        // encrypted: the own draft an earlier editor wrote, which the shell sent, was merged over
        // as the base, deleting the lines it held).
        let ownHandedOver = session.heldOwnDraft ? drafts.handedOver(own, over: session.baseRev) : nil
        return ownHandedOver ?? (session.draftID == own ? nil : drafts.handedOver(session.draftID, over: session.baseRev))
    }

    /// The session under a new draft id, in the state too: its note's draft file was written by
    /// another process (`byteclub edit` keeping its text after a conflict, another app), whose
    /// text is never written over; both drafts stay.
    @discardableResult
    private func keepApart(_ session: NoteSession, as id: String = Draft.newID()) -> NoteSession {
        var claimed = session
        claimed.draftID = id
        // Whichever editor journals to that draft now, on screen or kept open behind it.
        context.model.updateQuietly { state in
            if state.note?.draftID == session.draftID { state.note?.draftID = claimed.draftID }
            state.updateParked(draftID: session.draftID) { $0.draftID = claimed.draftID }
        }
        context.logger.info("a draft of \(session.entry?.path ?? session.editor.title.text) was written by another process; this one is kept apart",
                            metadata: ["draft": "\(claimed.draftID)"])
        return claimed
    }

    /// The first edit or cursor move after a search: `n` and `N` are letters again.
    func endSearchHits() {
        guard let session = state.note, let matches = session.searchMatches else { return }
        context.model.updateQuietly {
            $0.note?.searchMatches = nil
            if $0.note?.banner == Navigator.searchBanner(matches) { $0.note?.banner = nil }
        }
    }
}
