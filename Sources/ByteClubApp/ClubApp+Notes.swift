import Dispatch
import Foundation
import Remote
import TerminalUI

/// The Notes tab's actions: open, edit, drafts, delete and rename (saving is in
/// ClubApp+Saving.swift).
///
/// Every edit is journalled to a ``Draft`` (at most ``journalDelay`` later, and always before a
/// save is sent); a draft is removed only once the server has confirmed the save.
extension ClubApp {
    /// How long an edit may wait before it is written to its draft.
    static let journalDelay: DispatchTimeInterval = .milliseconds(300)

    // MARK: The list

    /// The notes list's items: drafts of notes the server does not have, then the notes.
    public var noteItems: [NoteItem] { noteListing.items }

    /// The items and their rows, built once per change of the list, the drafts or the minute
    /// (relative times): a 10,000-note list formats 10,000 sizes and dates, which is too much
    /// for every key and frame.
    var noteListing: (items: [NoteItem], rows: [ListRow]) {
        let signature = NoteListingSignature(
            entries: state.notes.version, loaded: state.notes.hasLoaded,
            drafts: state.drafts.map { "\($0.id) \($0.updated.timeIntervalSince1970) \($0.title) \($0.body.utf8.count)" },
            minute: Int(configuration.format.now().timeIntervalSince1970 / 60))
        if let cached = noteListingCache, cached.signature == signature { return (cached.items, cached.rows) }
        let draftsByPath = Dictionary(state.drafts.compactMap { d in d.path.map { ($0.lowercased(), d) } }, uniquingKeysWith: { a, _ in a })
        let known = Set(state.notes.entries.map(\.pathLower))
        let orphans = state.drafts.filter { draft in
            guard let path = draft.path else { return true }
            // Until the list has loaded, a draft's note may well be there: show it once we know.
            return state.notes.hasLoaded && !known.contains(path.lowercased())
        }
        let items = orphans.map { NoteItem.draft($0) }
            + state.notes.entries.map { NoteItem.note($0, hasDraft: draftsByPath[$0.pathLower] != nil) }
        let rows = MainScreen.noteRows(items, format: configuration.format)
        noteListingCache = NoteListingCache(signature: signature, items: items, rows: rows)
        return (items, rows)
    }

    /// The item under the notes list's selection.
    var selectedNoteItem: NoteItem? {
        let (items, rows) = noteListing
        guard let index = state.notes.list.selectedRow(in: rows), items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// Reads the drafts folder (at start, and after a draft is set aside).
    func reloadDrafts() {
        guard let drafts = configuration.drafts else { return }
        let all = drafts.all()
        update { $0.drafts = all }
    }

    // MARK: Opening

    /// `Enter` on the notes list.
    public func openSelectedNote() {
        guard let item = selectedNoteItem else { return }
        if let session = noteSession, session.phase != .loading { return }
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
    public func newNote() {
        if let session = noteSession, session.phase != .loading { return }
        noteSession = NoteSession(newNote: Draft.newID())
        update {
            $0.hasUnsavedEdits = false
            $0.message = StatusMessage("New note · Enter goes to the text · Ctrl-S saves · Esc closes")
        }
    }

    private func open(draft: Draft, entry: RemoteEntry?) {
        noteSession = NoteSession(draft: draft, entry: entry, savedAt: timeOfDay(draft.updated))
        update {
            $0.hasUnsavedEdits = true
            $0.message = StatusMessage("Restored the draft of \"\(draft.title.isEmpty ? "untitled" : draft.title)\"")
        }
    }

    /// Downloads `entry`'s text into a new session; the list keeps the keys meanwhile.
    func load(_ entry: RemoteEntry) {
        loadTask?.cancel()
        var session = NoteSession(loading: entry)
        session.generation = nextGeneration()
        let generation = session.generation
        noteSession = session
        update {
            $0.beginRequest()
            $0.message = StatusMessage("Opening \"\(entry.name)\"…")
        }
        let store = self.store
        loadTask = perform({ () async throws(RemoteError) in try await store.read(entry.path) }) { [weak self] result in
            self?.finishLoad(generation: generation, result: result)
        }
    }

    private func finishLoad(generation: Int, result: Result<(data: Data, entry: RemoteEntry), RemoteError>) {
        // Every load ends here exactly once, abandoned or not: the spinner's count goes down.
        update { $0.endRequest() }
        guard var session = noteSession, session.generation == generation, session.phase == .loading else { return }
        loadTask = nil
        switch result {
        case .success(let (data, entry)):
            session.entry = entry
            session.baseRev = entry.rev
            if let text = String(validating: data, as: UTF8.self) {
                session.editor = NoteEditorState(title: ClubLayout.title(of: entry.name), body: text, isNew: false)
                update {
                    // Keep what an action said (reloading theirs); replace only "Opening …".
                    if $0.message?.text.hasPrefix("Opening") ?? true {
                        $0.message = StatusMessage("Editing \"\(entry.name)\" · Ctrl-S saves · Esc closes")
                    }
                }
            } else {
                // Never re-save a damaged form: show what decodes, and refuse edits.
                let shown = String(decoding: data, as: UTF8.self)
                session.editor = NoteEditorState(title: ClubLayout.title(of: entry.name), body: shown, isNew: false, isReadOnly: true)
                session.isReadOnly = true
                session.banner = "Not valid UTF-8: opened read-only; byteclub will not save it back"
                update { $0.message = .error("\"\(entry.name)\" is not valid UTF-8 text; opened read-only") }
            }
            session.phase = .editing
            noteSession = session
        case .failure(.cancelled):
            break
        case .failure(let error):
            noteSession = nil
            update { $0.message = .error("Could not open \"\(session.entry?.name ?? "")\": \(error.message)") }
        }
        compositor.setNeedsRedraw()
    }

    // MARK: Editing

    /// A key for the open editor; returns whether it was taken.
    func handleEditorKey(_ key: Key) -> Bool {
        guard let session = noteSession else { return false }
        if session.phase == .loading {
            // The list has the keys; Esc abandons the download.
            if key == .escape {
                loadTask?.cancel()
                loadTask = nil
                noteSession = nil
                update { $0.message = StatusMessage("Stopped opening \"\(session.entry?.name ?? "")\"") }
                return true
            }
            return false
        }
        // In place: a copy of the session would copy a big note's lines on every key.
        guard let outcome = noteSession?.editor.handle(key) else { return false }
        switch outcome {
        case .edited:
            noteSession?.version += 1
            noteEdited()
        case .moved:
            compositor.setNeedsRedraw()
        case .save:
            save()
        case .close:
            closeEditor()
        case .readOnly:
            update { $0.message = .error("This note is read-only: it is not valid UTF-8 text") }
        case .ignored:
            return false
        }
        return true
    }

    /// After every edit: the `[+]` marker, the quit check, and a journal write soon.
    func noteEdited() {
        update { $0.hasUnsavedEdits = noteSession?.isModified ?? false }
        guard !journalScheduled else { return }
        journalScheduled = true
        DispatchQueue.main.asyncAfter(deadline: .now() + Self.journalDelay) { [weak self] in
            MainActor.assumeIsolated {
                self?.journalScheduled = false
                self?.journal()
            }
        }
    }

    /// Writes the open note's text to its draft if it changed since the last write. The app
    /// calls it after every edit (debounced) and before every save; call it on the way out too.
    @discardableResult
    public func journal() -> Bool {
        guard var session = noteSession, session.phase != .loading, !session.isReadOnly,
              session.version != session.journalledVersion, let drafts = configuration.drafts else { return true }
        do {
            try drafts.save(session.draft(at: configuration.format.now()))
            session.journalledVersion = session.version
            noteSession = session
            return true
        } catch {
            logger.error("cannot write the draft: \(error)")
            update { $0.message = .error("Could not write the draft: \(error.localizedDescription)") }
            return false
        }
    }

    /// `Esc` in the editor: closes it, first asking about unsaved changes.
    public func closeEditor() {
        guard let session = noteSession else { return }
        guard session.isModified, !session.isReadOnly else {
            discardEditor()
            return
        }
        let name = session.editor.title.text.isEmpty ? "this new note" : "\"\(session.fileName)\""
        let modal = Modal(title: "Unsaved changes", body: ["Save \(name) before closing?"], buttons: ["Save", "Discard", "Cancel"])
        compositor.push(DialogLayer(modal, selected: 0) { [weak self] choice in
            guard let self else { return }
            switch choice {
            case 0:
                self.noteSession?.closeAfterSave = true
                self.save()
            case 1:
                self.discardEditor()
            default:
                break
            }
        })
    }

    /// Closes the editor and drops its draft.
    private func discardEditor() {
        guard let session = noteSession else { return }
        configuration.drafts?.remove(session.draftID)
        noteSession = nil
        let name = session.entry?.name ?? (session.editor.title.text.isEmpty ? "the new note" : session.fileName)
        update {
            $0.hasUnsavedEdits = false
            $0.drafts.removeAll { $0.id == session.draftID }
            $0.message = StatusMessage(session.isModified && !session.isReadOnly ? "Discarded the changes to \(name)" : "Closed \(name)")
        }
    }

    // MARK: Delete and rename

    /// `d` / `Delete`: asks, then deletes the selected note (or drops the selected draft).
    public func deleteSelectedNote() {
        guard let item = selectedNoteItem else { return }
        switch item {
        case .draft(let draft):
            let modal = Modal(title: "Delete draft", body: ["Drop the draft \"\(draft.title.isEmpty ? "untitled" : draft.title)\"? Its text is lost."],
                              buttons: ["Delete", "Cancel"])
            compositor.push(DialogLayer(modal, selected: 1) { [weak self] choice in
                guard choice == 0, let self else { return }
                self.configuration.drafts?.remove(draft.id)
                self.update {
                    $0.drafts.removeAll { $0.id == draft.id }
                    $0.message = StatusMessage("Draft dropped")
                }
            })
        case .note(let entry, _):
            confirmDelete(entry, kind: "note", tab: .notes) { [weak self] in
                // A note deleted while open, without changes, closes; one with changes stays open
                // (its text can still be saved as a new note).
                if self?.noteSession?.entry?.pathLower == entry.pathLower, self?.noteSession?.isModified == false {
                    self?.noteSession = nil
                }
            }
        }
    }

    /// `R`: renames the selected note with `move_v2`; the prompt starts with its title.
    public func renameSelectedNote() {
        guard case .note(let entry, _)? = selectedNoteItem else { return }
        let folder = configuration.layout.folder
        let prompt = PromptLayer(
            title: "Rename note", body: ["New title for \"\(entry.name)\":"], text: ClubLayout.title(of: entry.name),
            validate: { NoteSession.titleProblem($0) }
        ) { [weak self] text in
            guard let self, let text else { return }
            let name = NoteSession.fileName(forTitle: text, replacing: entry.name)
            guard name != entry.name else { return }
            self.update {
                $0.beginRequest()
                $0.message = StatusMessage("Renaming \"\(entry.name)\"…")
            }
            let store = self.store
            self.perform({ () async throws(RemoteError) in
                try await store.move(from: entry.path, to: folder + "/" + name, autorename: false)
            }) { [weak self] result in
                guard let self else { return }
                self.update { $0.endRequest() }
                switch result {
                case .success(let moved):
                    if var session = self.noteSession, session.entry?.pathLower == entry.pathLower {
                        session.entry = moved
                        session.baseRev = moved.rev
                        if !session.isModified { session.editor.title.text = ClubLayout.title(of: moved.name) }
                        self.noteSession = session
                    }
                    self.update { $0.message = StatusMessage("Renamed to \"\(moved.name)\"") }
                    self.refresh(.notes, select: moved.pathLower)
                case .failure(.conflict):
                    self.update { $0.message = .error("A note named \"\(name)\" already exists") }
                case .failure(let error):
                    self.update { $0.message = .error("Could not rename \"\(entry.name)\": \(error.message)") }
                }
            }
        }
        compositor.push(prompt)
    }

    // MARK: Helpers

    private func timeOfDay(_ date: Date) -> String {
        let format = configuration.format
        let sameDay = format.day(date) == format.day(format.now())
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = format.timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        return sameDay ? time : format.day(date) + " " + time
    }
}

/// What the notes list's rows depend on.
struct NoteListingSignature: Equatable {
    var entries: Int
    var loaded: Bool
    var drafts: [String]
    var minute: Int
}

struct NoteListingCache {
    var signature: NoteListingSignature
    var items: [NoteItem]
    var rows: [ListRow]
}
