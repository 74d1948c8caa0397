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
    private func load(_ entry: RemoteEntry) {
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

    /// What a save sent: the result of the upload, and the note's new place if it was moved
    /// first (a move that succeeded stays done even when the upload after it fails).
    struct SaveReply: Sendable {
        var moved: RemoteEntry?
        var result: Result<RemoteEntry, RemoteError>
        /// The new title's file name belongs to another note.
        var nameTaken = false
    }

    /// `Ctrl-S`: uploads the text, `add` for a new note and `update` at the opened rev otherwise;
    /// a changed title moves the file first (after checking the rev, so a rename never hides
    /// someone else's change).
    public func save(confirmedEmpty: Bool = false) {
        guard let session = noteSession, session.phase == .editing else { return }
        if session.isReadOnly {
            update { $0.message = .error("This note is read-only: it is not valid UTF-8 text") }
            return
        }
        if let problem = NoteSession.titleProblem(session.editor.title.text) {
            noteSession?.closeAfterSave = false
            update { $0.message = .error(problem) }
            return
        }
        if session.editor.body.isEmpty, !confirmedEmpty {
            let modal = Modal(title: "Empty note", body: ["The note has no text. Save it empty?"], buttons: ["Save", "Cancel"])
            compositor.push(DialogLayer(modal, selected: 1) { [weak self] choice in
                if choice == 0 { self?.save(confirmedEmpty: true) } else { self?.noteSession?.closeAfterSave = false }
            })
            return
        }
        let name = session.fileName
        let target = configuration.layout.folder + "/" + name
        let store = self.store, entry = session.entry, baseRev = session.baseRev
        sendSave(name: name, status: "Saving \"\(name)\"…") { data in
            guard let entry, let baseRev else {
                return SaveReply(result: await attempt { () async throws(RemoteError) in
                    try await store.upload(data: data, to: target, mode: .add, autorename: false)
                })
            }
            var path = entry.path, rev = baseRev
            var moved: RemoteEntry?
            // A new title (or only its case changed): move first.
            if entry.pathLower != target.lowercased() || entry.name != name {
                // Another note has that name: say so, never move over it.
                if entry.pathLower != target.lowercased(), case .success = await attempt({ () async throws(RemoteError) in try await store.metadata(target) }) {
                    return SaveReply(result: .failure(.conflict(target)), nameTaken: true)
                }
                let move = await attempt { () async throws(RemoteError) -> RemoteEntry in
                    let current: RemoteEntry
                    do throws(RemoteError) {
                        current = try await store.metadata(entry.path)
                    } catch .notFound {
                        // Deleted on the server since it was opened: a conflict, as an update would be.
                        throw RemoteError.conflict(entry.path)
                    }
                    guard current.rev == baseRev else { throw RemoteError.conflict(entry.path) }
                    return try await store.move(from: entry.path, to: target, autorename: false)
                }
                switch move {
                case .success(let entry):
                    moved = entry
                    path = entry.path
                    rev = entry.rev ?? baseRev
                case .failure(let error):
                    return SaveReply(result: .failure(error))
                }
            }
            let upload = await attempt { () async throws(RemoteError) in
                try await store.upload(data: data, to: path, mode: .update(rev: rev), autorename: false)
            }
            return SaveReply(moved: moved, result: upload)
        }
    }

    /// Journals the text, marks the session as saving and sends `work` the text's bytes; the
    /// reply comes back to ``finishSave``. `adoptName` makes the editor take the saved file's name
    /// (a conflicted copy).
    private func sendSave(name: String, status: String, adoptName: Bool = false,
                          _ work: @escaping @Sendable (Data) async -> SaveReply) {
        // The journal first: whatever happens to the request, the text is on disk.
        let journalled = journal()
        guard var session = noteSession, session.phase == .editing else { return }
        let data = Data(session.editor.body.text.utf8), version = session.version
        session.phase = .saving
        session.generation = nextGeneration()
        let generation = session.generation
        noteSession = session
        let draftProblem = journalled ? nil : state.message?.text
        update {
            $0.beginRequest()
            // Sending is now the best way to keep the text; the draft's failure stays on screen.
            $0.message = draftProblem.map { .error(status + " " + $0) } ?? StatusMessage(status)
        }
        perform({ () async throws(RemoteError) in await work(data) }) { [weak self] reply in
            // `work` never throws; a failure is inside the reply.
            guard case .success(let reply) = reply else { return }
            self?.finishSave(generation: generation, version: version, name: name, adoptName: adoptName, reply: reply)
        }
    }

    private func finishSave(generation: Int, version: Int, name: String, adoptName: Bool, reply: SaveReply) {
        update { $0.endRequest() }
        guard var session = noteSession, session.generation == generation, session.phase == .saving else { return }
        session.phase = .editing
        if let moved = reply.moved {
            // The note is at its new name now, whatever the upload did.
            session.entry = moved
            session.baseRev = moved.rev
        }
        switch reply.result {
        case .success(let entry):
            if adoptName { session.editor.title.text = ClubLayout.title(of: entry.name) }
            saved(session: &session, entry: entry, version: version)
        case .failure where reply.nameTaken:
            session.closeAfterSave = false
            noteSession = session
            update { $0.message = .error("A note named \"\(name)\" already exists; change the title (Ctrl-T) or rename that note first") }
        case .failure(.conflict):
            session.closeAfterSave = false
            noteSession = session
            let isNew = session.entry == nil
            update {
                $0.message = .error(isNew ? "A note named \"\(name)\" already exists" : "\"\(name)\" was changed on the server since you opened it")
            }
            showConflict(name: name, isNew: isNew)
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
        let stillModified = session.isModified
        // From now on the draft of this text belongs to the saved note's path.
        let oldDraft = session.draftID
        session.draftID = Draft.id(forPath: entry.path)
        // Esc → Save closes once saved, unless more was typed meanwhile: that text stays open.
        let close = session.closeAfterSave && !stillModified
        session.closeAfterSave = false
        if stillModified {
            // Typed during the save: that text is newer than the server's. It goes to the draft
            // under its new name now, and the old draft goes only once that write succeeded.
            session.journalledVersion = -1
            noteSession = session
            if journal(), oldDraft != session.draftID { configuration.drafts?.remove(oldDraft) }
        } else {
            configuration.drafts?.remove(session.draftID)
            if oldDraft != session.draftID { configuration.drafts?.remove(oldDraft) }
            noteSession = close ? nil : session
        }
        update {
            $0.hasUnsavedEdits = !close && stillModified
            $0.drafts.removeAll { $0.id == oldDraft || (!stillModified && $0.id == session.draftID) }
            $0.message = StatusMessage("Saved \"\(entry.name)\"" + (stillModified ? "; you typed more since, not saved yet" : ""))
        }
        refresh(.notes, select: entry.pathLower)
    }

    /// The conflict dialog: the server's note changed since it was opened (or, for a new note,
    /// one of that name exists).
    private func showConflict(name: String, isNew: Bool) {
        let body = isNew
            ? ["A note named \"\(name)\" already exists.",
               "Overwrite replaces it with yours. Save as copy keeps both."]
            : ["\"\(name)\" was changed on the server since you opened it.",
               "Overwrite replaces their version with yours. Save as copy keeps both.",
               "Reload theirs opens their version; yours stays as a draft."]
        let buttons = isNew ? ["Overwrite", "Save as copy", "Cancel"] : ["Overwrite", "Save as copy", "Reload theirs", "Cancel"]
        let modal = Modal(title: "Conflict", body: body, buttons: buttons)
        // Cancel is the default: Enter on a reflex must not overwrite anyone.
        compositor.push(DialogLayer(modal, selected: buttons.count - 1) { [weak self] choice in
            switch choice.map({ buttons[$0] }) {
            case "Overwrite": self?.overwrite()
            case "Save as copy": self?.saveAsCopy()
            case "Reload theirs": self?.reloadTheirs()
            default: self?.update { $0.message = StatusMessage("Not saved; your text is kept as a draft") }
            }
        })
    }

    /// Overwrite: saves over the server's current rev, whatever it is.
    private func overwrite() {
        guard let session = noteSession else { return }
        let name = session.fileName
        let target = configuration.layout.folder + "/" + name
        let from = session.entry, store = self.store
        sendSave(name: name, status: "Overwriting \"\(name)\"…") { data in
            var moved: RemoteEntry?
            if let from = from?.path, from.lowercased() != target.lowercased() || (from as NSString).lastPathComponent != name {
                switch await attempt({ () async throws(RemoteError) in try await store.move(from: from, to: target, autorename: false) }) {
                case .success(let entry): moved = entry
                case .failure(.notFound): break  // deleted on the server: the upload below recreates it
                case .failure(let error): return SaveReply(result: .failure(error))
                }
            }
            let upload = await attempt { () async throws(RemoteError) -> RemoteEntry in
                // The rev the server has now: a change after this one still conflicts.
                let current: RemoteEntry?
                do throws(RemoteError) {
                    current = try await store.metadata(target)
                } catch .notFound {
                    current = nil
                }
                let mode: WriteMode = current?.rev.map { .update(rev: $0) } ?? .add
                return try await store.upload(data: data, to: target, mode: mode, autorename: false)
            }
            return SaveReply(moved: moved, result: upload)
        }
    }

    /// Save as copy: a new file beside theirs, named with the user and the time; the editor then
    /// edits the copy.
    private func saveAsCopy() {
        guard let session = noteSession else { return }
        let title = ClubLayout.title(of: session.fileName)
        let ext = session.fileName.dropFirst(title.count)
        let stamp = copyStamp(configuration.format.now())
        let name = "\(title) (conflicted copy of \(configuration.userName) \(stamp))\(ext)"
        let target = configuration.layout.folder + "/" + name
        let store = self.store
        sendSave(name: name, status: "Saving a copy as \"\(name)\"…", adoptName: true) { data in
            SaveReply(result: await attempt { () async throws(RemoteError) in
                try await store.upload(data: data, to: target, mode: .add, autorename: true)
            })
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

    private func copyStamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = configuration.format.timeZone
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d.%02d.%02d", p.year ?? 0, p.month ?? 0, p.day ?? 0, p.hour ?? 0, p.minute ?? 0, p.second ?? 0)
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
