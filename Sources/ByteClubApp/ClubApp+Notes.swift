import Dispatch
import Foundation
import Remote
import TerminalUI

/// The Notes tab's actions: open, edit, save with conflict safety, drafts, delete and rename.
///
/// Every edit is journalled to a ``Draft`` (at most ``journalDelay`` later, and always before a
/// save is sent); a draft is removed only once the server has confirmed the save.
extension ClubApp {
    /// How long an edit may wait before it is written to its draft.
    static let journalDelay: DispatchTimeInterval = .milliseconds(300)

    // MARK: The list

    /// The notes list's rows: drafts of notes the server does not have, then the notes.
    public var noteItems: [NoteItem] {
        let draftsByPath = Dictionary(state.drafts.compactMap { d in d.path.map { ($0.lowercased(), d) } }, uniquingKeysWith: { a, _ in a })
        let known = Set(state.notes.entries.map(\.pathLower))
        let orphans = state.drafts.filter { draft in
            guard let path = draft.path else { return true }
            // Until the list has loaded, a draft's note may well be there: show it once we know.
            return state.notes.hasLoaded && !known.contains(path.lowercased())
        }
        return orphans.map { NoteItem.draft($0) }
            + state.notes.entries.map { NoteItem.note($0, hasDraft: draftsByPath[$0.pathLower] != nil) }
    }

    /// The item under the notes list's selection.
    var selectedNoteItem: NoteItem? {
        let items = noteItems
        let rows = screen.noteRows(items)
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
    private func load(_ entry: RemoteEntry) {
        loadTask?.cancel()
        var session = NoteSession(loading: entry)
        session.generation = nextGeneration()
        let generation = session.generation
        noteSession = session
        update { $0.message = StatusMessage("Opening \"\(entry.name)\"…") }
        let store = self.store
        loadTask = perform({ () async throws(RemoteError) in try await store.read(entry.path) }) { [weak self] result in
            self?.finishLoad(generation: generation, result: result)
        }
    }

    private func finishLoad(generation: Int, result: Result<(data: Data, entry: RemoteEntry), RemoteError>) {
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
        guard var session = noteSession else { return false }
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
        let outcome = session.editor.handle(key)
        switch outcome {
        case .edited:
            session.version += 1
            noteSession = session
            noteEdited()
        case .moved:
            noteSession = session
            compositor.setNeedsRedraw()
        case .save:
            noteSession = session
            save()
        case .close:
            noteSession = session
            closeEditor()
        case .readOnly:
            noteSession = session
            update { $0.message = .error("This note is read-only: it is not valid UTF-8 text") }
        case .ignored:
            return false
        }
        return true
    }

    /// After every edit: the `[+]` marker, the quit check, and a journal write soon.
    private func noteEdited() {
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

    // MARK: Saving

    /// `Ctrl-S`: uploads the text, `add` for a new note and `update` at the opened rev otherwise;
    /// a changed title moves the file first.
    public func save(confirmedEmpty: Bool = false) {
        guard var session = noteSession, session.phase == .editing else { return }
        if session.isReadOnly {
            update { $0.message = .error("This note is read-only: it is not valid UTF-8 text") }
            return
        }
        if let problem = NoteSession.titleProblem(session.editor.title.text) {
            session.closeAfterSave = false
            noteSession = session
            update { $0.message = .error(problem) }
            return
        }
        let body = session.editor.body.text
        if body.isEmpty, !confirmedEmpty {
            let modal = Modal(title: "Empty note", body: ["The note has no text. Save it empty?"], buttons: ["Save", "Cancel"])
            compositor.push(DialogLayer(modal, selected: 1) { [weak self] choice in
                if choice == 0 { self?.save(confirmedEmpty: true) } else { self?.noteSession?.closeAfterSave = false }
            })
            return
        }
        // The journal first: whatever happens to the request, the text is on disk.
        journal()
        let name = session.fileName
        let target = configuration.layout.folder + "/" + name
        let savedVersion = session.version
        session.phase = .saving
        session.generation = nextGeneration()
        let generation = session.generation
        noteSession = session
        update {
            $0.beginRequest()
            $0.message = StatusMessage("Saving \"\(name)\"…")
        }
        let store = self.store, data = Data(body.utf8)
        let entry = session.entry, baseRev = session.baseRev
        perform({ () async throws(RemoteError) -> RemoteEntry in
            guard let entry, let baseRev else {
                return try await store.upload(data: data, to: target, mode: .add, autorename: false)
            }
            var path = entry.path
            if entry.pathLower != target.lowercased() || entry.name != name {
                path = try await store.move(from: entry.path, to: target, autorename: false).path
            }
            return try await store.upload(data: data, to: path, mode: .update(rev: baseRev), autorename: false)
        }) { [weak self] result in
            self?.finishSave(generation: generation, version: savedVersion, name: name, result: result)
        }
    }

    private func finishSave(generation: Int, version: Int, name: String, result: Result<RemoteEntry, RemoteError>) {
        update { $0.endRequest() }
        guard var session = noteSession, session.generation == generation, session.phase == .saving else { return }
        session.phase = .editing
        switch result {
        case .success(let entry):
            saved(session: &session, entry: entry, version: version)
        case .failure(.conflict):
            session.closeAfterSave = false
            noteSession = session
            update { $0.message = .error("\"\(name)\" was changed on the server since you opened it") }
            showConflict(name: name)
        case .failure(let error):
            session.closeAfterSave = false
            noteSession = session
            update {
                $0.message = .error("Could not save \"\(name)\": \(error.message). Your text is kept as a draft; Ctrl-S retries")
            }
        }
    }

    /// After the server confirmed a save: the baseline moves, the draft goes, the list follows.
    private func saved(session: inout NoteSession, entry: RemoteEntry, version: Int) {
        session.entry = entry
        session.baseRev = entry.rev
        session.savedVersion = version
        session.banner = nil
        if session.isModified {
            // Typed during the save: that text is newer than the server's and stays journalled.
            session.journalledVersion = -1
        } else {
            configuration.drafts?.remove(session.draftID)
        }
        // From now on the draft of this text belongs to the saved note's path.
        let oldDraft = session.draftID
        session.draftID = Draft.id(forPath: entry.path)
        if oldDraft != session.draftID { configuration.drafts?.remove(oldDraft) }
        let close = session.closeAfterSave
        noteSession = close ? nil : session
        let stillModified = session.isModified
        update {
            $0.hasUnsavedEdits = close ? false : stillModified
            $0.drafts.removeAll { $0.id == oldDraft || (!stillModified && $0.id == session.draftID) }
            $0.message = StatusMessage("Saved \"\(entry.name)\"")
        }
        if stillModified { noteEdited() }
        refresh(.notes, select: entry.pathLower)
    }

    /// The conflict dialog: the server's note changed since it was opened.
    private func showConflict(name: String) {
        let modal = Modal(
            title: "Conflict",
            body: ["\"\(name)\" was changed on the server since you opened it.",
                   "Overwrite replaces their version with yours. Save as copy keeps both.",
                   "Reload theirs opens their version; yours stays as a draft."],
            buttons: ["Overwrite", "Save as copy", "Reload theirs", "Cancel"]
        )
        compositor.push(DialogLayer(modal, selected: 3) { [weak self] choice in
            switch choice {
            case 0: self?.overwrite()
            case 1: self?.saveAsCopy()
            case 2: self?.reloadTheirs()
            default: self?.update { $0.message = StatusMessage("Not saved; your text is kept as a draft") }
            }
        })
    }

    /// Overwrite: saves over the server's current rev, whatever it is.
    private func overwrite() {
        guard var session = noteSession, session.phase == .editing else { return }
        journal()
        let name = session.fileName
        let target = configuration.layout.folder + "/" + name
        let data = Data(session.editor.body.text.utf8), version = session.version
        let from = session.entry?.path
        session.phase = .saving
        session.generation = nextGeneration()
        let generation = session.generation
        noteSession = session
        update {
            $0.beginRequest()
            $0.message = StatusMessage("Overwriting \"\(name)\"…")
        }
        let store = self.store
        perform({ () async throws(RemoteError) -> RemoteEntry in
            var path = target
            if let from, from.lowercased() != target.lowercased() {
                path = try await store.move(from: from, to: target, autorename: false).path
            }
            // The rev the server has now: another change after this still conflicts.
            let current: RemoteEntry?
            do throws(RemoteError) {
                current = try await store.metadata(path)
            } catch .notFound {
                current = nil
            }
            let mode: WriteMode = current?.rev.map { .update(rev: $0) } ?? .add
            return try await store.upload(data: data, to: path, mode: mode, autorename: false)
        }) { [weak self] result in
            self?.finishSave(generation: generation, version: version, name: name, result: result)
        }
    }

    /// Save as copy: a new file beside theirs, named with the user and the time.
    private func saveAsCopy() {
        guard var session = noteSession, session.phase == .editing else { return }
        journal()
        let title = ClubLayout.title(of: session.fileName)
        let ext = session.fileName.dropFirst(title.count)
        let stamp = copyStamp(configuration.format.now())
        let name = "\(title) (conflicted copy of \(configuration.userName) \(stamp))\(ext)"
        let target = configuration.layout.folder + "/" + name
        let data = Data(session.editor.body.text.utf8), version = session.version
        session.phase = .saving
        session.generation = nextGeneration()
        let generation = session.generation
        noteSession = session
        update {
            $0.beginRequest()
            $0.message = StatusMessage("Saving a copy as \"\(name)\"…")
        }
        let store = self.store
        perform({ () async throws(RemoteError) -> RemoteEntry in
            try await store.upload(data: data, to: target, mode: .add, autorename: true)
        }) { [weak self] result in
            guard let self else { return }
            if case .success(let entry) = result, var session = self.noteSession, session.generation == generation {
                // The editor now edits the copy.
                session.editor.title.text = ClubLayout.title(of: entry.name)
                self.noteSession = session
            }
            self.finishSave(generation: generation, version: version, name: name, result: result)
        }
    }

    /// Reload theirs: the editor shows the server's text; yours becomes a draft of a new note.
    private func reloadTheirs() {
        guard let session = noteSession, let entry = session.entry else { return }
        let title = session.editor.title.text.trimmingCharacters(in: .whitespaces)
        var mine = session.draft(at: configuration.format.now())
        mine.id = Draft.newID()
        mine.path = nil
        mine.baseRev = nil
        mine.title = (title.isEmpty ? ClubLayout.title(of: entry.name) : ClubLayout.title(of: NoteSession.fileName(forTitle: title)))
            + " (my version)"
        do {
            try configuration.drafts?.save(mine)
        } catch {
            // Keep the text in the editor rather than lose it.
            update { $0.message = .error("Could not keep your text as a draft (\(error.localizedDescription)); nothing reloaded") }
            return
        }
        configuration.drafts?.remove(session.draftID)
        reloadDrafts()
        load(entry)
        update {
            $0.hasUnsavedEdits = false
            $0.message = StatusMessage("Reloading theirs; your text is the draft \"\(mine.title)\"")
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
            let modal = Modal(title: "Delete note", body: ["Delete \"\(entry.name)\" from the club folder?"], buttons: ["Delete", "Cancel"])
            compositor.push(DialogLayer(modal, selected: 1) { [weak self] choice in
                guard choice == 0, let self else { return }
                self.update {
                    $0.beginRequest()
                    $0.message = StatusMessage("Deleting \"\(entry.name)\"…")
                }
                let store = self.store
                self.perform({ () async throws(RemoteError) in try await store.delete(entry.path) }) { [weak self] result in
                    guard let self else { return }
                    self.update { $0.endRequest() }
                    switch result {
                    case .success:
                        if self.noteSession?.entry?.pathLower == entry.pathLower, self.noteSession?.isModified == false {
                            self.noteSession = nil
                        }
                        self.update { $0.message = StatusMessage("Deleted \"\(entry.name)\"") }
                        self.refresh(.notes)
                    case .failure(let error):
                        self.update { $0.message = .error("Could not delete \"\(entry.name)\": \(error.message)") }
                    }
                }
            })
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
            let keepExtension = entry.name.dropFirst(ClubLayout.title(of: entry.name).count)
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let name = trimmed.contains(".") ? trimmed : trimmed + (keepExtension.isEmpty ? ".txt" : String(keepExtension))
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

    private func copyStamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = configuration.format.timeZone
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d.%02d.%02d", p.year ?? 0, p.month ?? 0, p.day ?? 0, p.hour ?? 0, p.minute ?? 0, p.second ?? 0)
    }
}
