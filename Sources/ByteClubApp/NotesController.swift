import Foundation
import Remote
import TerminalUI

/// The Notes tab: open, edit, drafts, delete and rename (saving is in NotesController+Saving.swift).
///
/// Every edit is journalled to a ``Draft`` (at most ``journalDelay`` later, and always before a
/// save is sent); a draft is removed only once the server has confirmed the save.
@MainActor
final class NotesController {
    /// How long an edit may wait before it is written to its draft.
    static let journalDelay: Duration = .milliseconds(300)

    let context: AppContext
    let refresher: Refresher
    /// The download of the note being opened, which Esc abandons.
    private var loadTask: Task<Void, Never>?
    /// Whether a journal write is scheduled.
    private var journalScheduled = false
    /// The draft of the note `e` asked to open in the user's editor once its text is in.
    var externalEditPending: String?
    /// A background journal write is under way; another was asked for meanwhile.
    private var journalWriting = false
    private var journalAgain = false
    /// Where changes go while the server cannot be reached (NotesController+Offline.swift).
    weak var outboxRunner: OutboxRunner?
    /// The search results a note was opened from (NotesController+Search.swift).
    weak var searchController: (any NoteSearching)?
    /// Who deleted a note, asked of the server as the live updates ask it (a helper's names cache).
    weak var live: LiveUpdates?
    /// Called after a note was renamed on the server (the links to it may be updated).
    var onRenamed: (@MainActor (_ from: RemoteEntry, _ to: RemoteEntry) -> Void)?

    init(context: AppContext, refresher: Refresher) {
        self.context = context
        self.refresher = refresher
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    /// The item under the notes list's selection.
    var selectedItem: NoteItem? { state.selectedNoteItem(in: context.model.noteListing) }

    // MARK: Opening

    /// `Enter` on the notes list.
    func openSelected() {
        guard let item = selectedItem else { return }
        if let note = state.note, note.phase != .loading { return }
        switch item {
        case .draft(let draft):
            open(draft: draft, entry: nil)
        case .note(let entry, let hasDraft):
            if hasDraft, let draft = state.drafts.first(where: { $0.path?.lowercased() == entry.pathLower }) {
                open(draft: draft, entry: entry)
            } else {
                load(entry)
            }
        }
    }

    /// `n`: a new, empty note with the cursor in the title.
    func newNote() {
        if let note = state.note, note.phase != .loading { return }
        if state.readsOnly { return context.say(.error(AppState.readerRefusal)) }
        context.update {
            var session = NoteSession(newNote: Draft.newID())
            session.newNoteExtension = configuration.layout.newNoteExtension
            $0.note = session
            $0.message = StatusMessage("New note · Enter goes to the text · Ctrl-S saves · Esc closes")
        }
    }

    func open(draft: Draft, entry: RemoteEntry?) {
        if openQueued(draft, entry: entry) { return }
        var session = NoteSession(draft: draft, entry: entry, savedAt: timeOfDay(draft.updated))
        session.newNoteExtension = configuration.layout.newNoteExtension
        context.update {
            $0.note = session
            $0.message = StatusMessage("Restored the draft of \"\(TerminalSafe.escape(draft.title.isEmpty ? "untitled" : draft.title))\"")
        }
    }

    /// Downloads `entry`'s text into a new session; the list keeps the keys meanwhile.
    func load(_ entry: RemoteEntry) {
        loadTask?.cancel()
        var session = NoteSession(loading: entry)
        session.generation = context.model.nextID()
        let generation = session.generation
        context.update {
            $0.note = session
            $0.beginRequest()
            $0.message = StatusMessage("Opening \"\(TerminalSafe.escape(entry.name))\"…")
        }
        let store = context.store
        loadTask = context.perform({ () async throws(RemoteError) in try await store.read(entry.path) }) { [weak self] result in
            self?.finishLoad(generation: generation, result: result)
        }
    }

    private func finishLoad(generation: Int, result: Result<(data: Data, entry: RemoteEntry), RemoteError>) {
        // Every load ends here exactly once, abandoned or not: the spinner's count goes down.
        context.update { $0.endRequest() }
        guard var session = state.note, session.generation == generation, session.phase == .loading else { return }
        loadTask = nil
        switch result {
        case .success(let (data, entry)):
            session.entry = entry
            session.setBase(entry.rev, text: String(validating: data, as: UTF8.self))
            cacheText(data, of: entry)
            var message = state.message
            if let text = String(validating: data, as: UTF8.self), entry.readOnly == true || state.readsOnly {
                // A reader's note: shown, never saved (the server would refuse it anyway).
                session.editor = NoteEditorState(title: ClubLayout.title(of: entry.name), body: text, isNew: false, isReadOnly: true)
                session.isReadOnly = true
                session.banner = "Read-only: you are a reader in this club"
                message = StatusMessage("Reading \"\(TerminalSafe.escape(entry.name))\" (read-only: you are a reader) · Esc closes")
            } else if let text = String(validating: data, as: UTF8.self) {
                session.editor = NoteEditorState(title: ClubLayout.title(of: entry.name), body: text, isNew: false)
                // Keep what an action said (reloading theirs); replace only "Opening …". Opened
                // for the rendered view (`v`), the editor's keys are not the ones on screen.
                if message?.text.hasPrefix("Opening") ?? true {
                    message = state.noteView != nil ? nil : StatusMessage("Editing \"\(TerminalSafe.escape(entry.name))\" · Ctrl-S saves · Esc closes")
                }
            } else {
                // Never re-save a damaged form: show what decodes, and refuse edits.
                let shown = String(decoding: data, as: UTF8.self)
                session.editor = NoteEditorState(title: ClubLayout.title(of: entry.name), body: shown, isNew: false, isReadOnly: true)
                session.isReadOnly = true
                session.banner = "Not valid UTF-8: opened read-only; byteclub will not save it back"
                message = .error("\"\(TerminalSafe.escape(entry.name))\" is not valid UTF-8 text; opened read-only")
            }
            session.phase = .editing
            placeAtSearchHit(&session)
            context.update {
                $0.note = session
                $0.message = message
            }
            runPendingExternalEdit()
        case .failure(.cancelled):
            break
        case .failure(let error) where error.isUnreachable && openCached(session):
            break
        case .failure(let error):
            context.update {
                $0.note = nil
                $0.message = .error("Could not open \"\(TerminalSafe.escape(session.entry?.name ?? ""))\": \(error.message)")
            }
        }
    }

    // MARK: Editing

    /// A key for the open editor; returns whether it was taken.
    func handleEditorKey(_ key: Key) -> Bool {
        // The scalars, not the session: a copy alive while the key edits in place below would
        // make that edit copy a big note's array of lines.
        guard let phase = state.note?.phase else { return false }
        if phase == .loading {
            let name = state.note?.entry?.name ?? ""
            // The list has the keys; Esc abandons the download.
            guard key == .escape else { return false }
            loadTask?.cancel()
            loadTask = nil
            context.update {
                $0.note = nil
                $0.message = StatusMessage("Stopped opening \"\(TerminalSafe.escape(name))\"")
            }
            return true
        }
        // A merge with conflicts has the keys until it is done (NotesController+Merge.swift).
        if state.note?.merge != nil { return handleMergeKey(key) }
        if let taken = handleSearchHitKey(key) { return taken }
        if MergeView.editorBindings.action(for: key) == .merge {
            mergeNow()
            return true
        }
        // Keys typed while the screen is too small would change a note no one sees.
        if context.compositor.isTooSmall, !key.isMouse, key != .escape, key != .ctrl("s") { return true }
        if Self.externalEditorBindings.action(for: key) == .open {
            openInExternalEditor()
            return true
        }
        // In place: a copy of the session would copy a big note's lines on every key.
        var outcome: NoteEditorOutcome?
        context.model.updateQuietly {
            $0.note?.editor.register = $0.clipboard
            outcome = $0.note?.editor.handle(key)
        }
        sayEditorKeysOnceTyping()
        switch outcome {
        case .edited?:
            edited()
        case .copied(let text)?:
            copy(text)
        case .cut(let text)?:
            copy(text)
            edited()
        case .searchEveryNote(let query)?:
            searchController?.open(query: query)
        case .moved?:
            // The cursor moved by hand: the user works somewhere else now, and a letter typed
            // there must be that letter (n and N included), not a jump to a match.
            if Self.putsTheCursor(key) { endSearchHits() }
            context.compositor.setNeedsRedraw()
        case .save?:
            save()
        case .close?:
            closeEditor()
        case .readOnly?:
            context.say(.error(state.readsOnly ? AppState.readerRefusal : "This note is read-only: it is not valid UTF-8 text"))
        case .ignored?, nil:
            return false
        }
        return true
    }

    /// After an edit: search hits mode ends, the version moves on, a journal write soon; or,
    /// when undo brought back the text the server has, `[+]` goes, and so does the draft.
    private func edited() {
        endSearchHits()
        guard let session = state.note else { return }
        if session.editorCleanIsSaved, !session.editor.isModified {
            configuration.drafts?.remove(session.draftID)
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
        scheduleJournal()
    }

    /// Ctrl-C, Ctrl-X: the terminal's clipboard (OSC 52, through tmux too) and the register
    /// every note pastes from.
    private func copy(_ text: String) {
        context.configuration.clipboard?(text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        context.update {
            $0.clipboard = text
            $0.message = StatusMessage(lines > 1 ? "Copied \(lines) lines" : "Copied \(text.count) character\(text.count == 1 ? "" : "s")")
        }
    }

    /// The new note's "Enter goes to the text" is about the title: once typing in the body,
    /// the status bar says the editor's keys instead.
    private func sayEditorKeysOnceTyping() {
        guard state.note?.editor.focus == .body, let text = state.message?.text, text.hasPrefix("New note ·") else { return }
        context.model.updateQuietly { $0.message = StatusMessage(NoteEditorState.hint) }
    }

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
        guard let session = state.note, session.phase != .loading, !session.isReadOnly,
              session.version != session.journalledVersion, let drafts = configuration.drafts else { return }
        guard !journalWriting else {
            journalAgain = true
            return
        }
        journalWriting = true
        let lines = session.editor.body.lineClusters
        let empty = session.draft(at: configuration.format.now(), body: "")
        let version = session.version
        drafts.saveInBackground({
            var draft = empty
            draft.body = String(decoding: TextBuffer.utf8(of: lines), as: UTF8.self)
            return draft
        }) { [weak self, hop = context.effects.hop] error in
            hop {
                guard let self else { return }
                self.journalWriting = false
                if let error {
                    self.context.logger.error("cannot write the draft: \(error)")
                    self.context.say(.error("Could not write the draft: \(error.localizedDescription)"))
                } else {
                    self.context.model.updateQuietly { state in
                        guard state.note?.draftID == empty.id, let done = state.note?.journalledVersion, done < version else { return }
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

    /// Writes the open note's text to its draft if it changed since the last write. Called after
    /// every edit (debounced), before every save, and on the way out.
    @discardableResult
    func journal() -> Bool {
        guard let session = state.note, session.phase != .loading, !session.isReadOnly,
              session.version != session.journalledVersion, let drafts = configuration.drafts else { return true }
        do {
            try drafts.save(session.draft(at: configuration.format.now()))
            context.model.updateQuietly { $0.note?.journalledVersion = session.version }
            return true
        } catch {
            context.logger.error("cannot write the draft: \(error)")
            context.say(.error("Could not write the draft: \(error.localizedDescription)"))
            return false
        }
    }

    /// `Esc` in the editor: closes it, first asking about unsaved changes.
    func closeEditor() {
        guard let session = state.note else { return }
        guard session.isModified, !session.isReadOnly else {
            discardEditor()
            return
        }
        let name = session.editor.title.text.isEmpty ? "this new note" : "\"\(session.fileName)\""
        let modal = Modal(title: "Unsaved changes", body: ["Save \(TerminalSafe.escape(name)) before closing?"], buttons: ["Save", "Discard", "Cancel"])
        context.ask { DialogLayer(modal, selected: 0) { [weak self] choice in
            guard let self else { return }
            switch choice {
            case 0:
                self.context.model.updateQuietly { $0.note?.closeAfterSave = true }
                self.save()
            case 1:
                self.discardEditor()
            default:
                break
            }
        } }
    }

    /// Closes the editor and drops its draft.
    func discardEditor() {
        guard let session = state.note else { return }
        // Only Discard drops a draft. A note closed without changes may still have one: its text
        // waits in the outbox, or came back from it to be merged; it stays until the server has it.
        let queued = !session.isModified
        if !queued { configuration.drafts?.remove(session.draftID) }
        let name = session.entry?.name ?? (session.editor.title.text.isEmpty ? "the new note" : session.fileName)
        context.update {
            $0.note = nil
            if !queued { $0.drafts.removeAll { $0.id == session.draftID } }
            $0.message = StatusMessage(session.isModified && !session.isReadOnly ? "Discarded the changes to \(TerminalSafe.escape(name))" : "Closed \(TerminalSafe.escape(name))")
        }
        showInList(session)
    }

    /// After the editor closed: the list stays on the note it held (at its new name after a
    /// rename or a first save), or on its draft's row, never on whatever row the list had.
    func showInList(_ session: NoteSession) {
        let listing = context.model.noteListing
        context.update { $0.reselectNote(path: session.entry?.pathLower, draftID: session.draftID, notes: listing) }
    }

    // MARK: Helpers

    func timeOfDay(_ date: Date) -> String {
        let format = configuration.format
        let sameDay = format.day(date) == format.day(format.now())
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = format.timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        return sameDay ? time : format.day(date) + " " + time
    }
}

/// The role it plays for other controllers (AppRoles.swift).
extension NotesController: NoteOpening {}
