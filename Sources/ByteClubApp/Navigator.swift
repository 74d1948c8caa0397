import Foundation
import Markdown
import Remote
import TerminalUI

/// Opening notes, as the notes list, the search results, the links between notes and the
/// rendered view all do: a note loads into the editor (or its draft comes back, or the copy this
/// machine keeps when the server cannot be reached), a link is followed (remembering the note it
/// left, for "Back"), and a note with nothing unsaved is closed for another (one with unsaved
/// edits stays open behind it: Navigator+OpenNotes.swift).
///
/// A helper: it writes ``AppState/note`` and the links' history, and calls no controller. What
/// the open note's editor does with its text is the notes controller's.
@MainActor
final class Navigator {
    let context: AppContext
    /// The search index: a note never opened here opens from its copy when the server cannot be
    /// reached.
    let noteIndex: NoteIndex
    /// The download of the note being opened, which Esc abandons.
    private var loadTask: Task<Void, Never>?
    /// What waits in the outbox: a draft whose text waits there opens as saved.
    weak var outboxRunner: OutboxRunner?
    /// Journals the note on screen before it gives way to another (Navigator+OpenNotes.swift).
    weak var edits: NoteEdits?
    /// ``resolver`` as last made, with the notes list's version and size it was made from.
    private var resolverCache: (version: Int, count: Int, resolver: NoteResolver)?

    init(context: AppContext, noteIndex: NoteIndex) {
        self.context = context
        self.noteIndex = noteIndex
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    // MARK: Opening

    /// `Enter` on the notes list (and `v`, for the rendered view).
    func openSelected() {
        guard let item = state.selectedNoteItem(in: context.model.noteListing) else { return }
        if case .folder(let folder) = item {
            return context.update { folder.isParent ? $0.upFolder() : $0.openFolder(folder.path) }
        }
        if let note = state.note, note.stage != .loading { return }
        if showOpen(item) { return }
        switch item {
        case .folder, .file: break
        case .draft(let draft):
            open(draft: draft, entry: nil)
        case .note(let entry, let hasDraft):
            // A draft of this note on disk is opened, never journalled over: one another process
            // left (`byteclub edit` keeping its text after a conflict) may not be in the list yet.
            if let draft = configuration.drafts?.load(Draft.id(forPath: entry.path))
                ?? (hasDraft ? state.drafts.first(where: { $0.path?.lowercased() == entry.pathLower }) : nil) {
                open(draft: draft, entry: entry)
            } else {
                load(entry)
            }
        }
    }

    /// `n`: a new, empty note with the cursor in the title.
    func newNote() {
        if state.readsOnly { return context.say(.error(AppState.readerRefusal)) }
        // A note on screen with unsaved edits stays open behind the new one.
        if let note = state.note, note.stage != .loading {
            guard editorCanLeave() else { return }
            leaveOpenNote()
        }
        context.update {
            var session = NoteSession(newNote: Draft.newID())
            session.newNoteExtension = configuration.layout.newNoteExtension
            if !$0.notesFolder.isRoot { session.folder = $0.notesFolder.path }
            $0.note = session
            $0.message = StatusMessage("New note · Enter goes to the text · Ctrl-S saves · Esc closes")
        }
    }

    func open(draft: Draft, entry: RemoteEntry?) {
        // The file is this session's to write over while it holds the text shown; one another
        // process writes meanwhile is kept apart (NoteEdits.writeDraft).
        configuration.drafts?.adopt(draft)
        if openQueued(draft, entry: entry) { return }
        var session = NoteSession(draft: draft, entry: entry, savedAt: timeOfDay(draft.updated))
        session.newNoteExtension = configuration.layout.newNoteExtension
        // Typed before the note went live: its own document's journal, taken up again (NoteEdits).
        if draft.inLiveJournal != true, let journal = configuration.drafts?.journal(of: draft.id) {
            session.restoredOwnJournal = NoteSession.RestoredJournal(path: journal, lineage: session.editor.body.lineage, text: draft.body)
        }
        let title = TerminalSafe.escape(draft.title.isEmpty ? "untitled" : draft.title)
        if entry?.readOnly == true || state.readsOnly {
            // A draft typed before this member became a reader: shown as it is, read-only, and
            // kept (Esc never drops it), never offered to a save the club would refuse.
            session.editor = NoteEditorState(title: draft.title, body: draft.body, isNew: false, isReadOnly: true)
            session.isReadOnly = true
            session.banner = "Read-only: you are a reader in this club. Your draft from \(timeOfDay(draft.updated)) stays on this machine"
                + " and can be saved once an admin gives you the editor role"
            context.update {
                $0.note = session
                $0.message = StatusMessage("Reading your draft of \"\(title)\" (read-only: you are a reader) · Esc closes and keeps it")
            }
            return
        }
        context.update {
            $0.note = session
            $0.message = StatusMessage("Restored the draft of \"\(title)\"")
        }
    }

    /// Downloads `entry`'s text into a new session (placed at `hit` once in); the list keeps
    /// the keys meanwhile. Offline, the copy kept on this machine opens at once, as it would once
    /// the request failed: a server that stalls would hold the note back for the whole idle limit.
    func load(_ entry: RemoteEntry, from hit: SearchResult? = nil) {
        loadTask?.cancel()
        var session = NoteSession(loading: entry)
        // A fresh editor: no text an earlier editor of this note handed to the shell is its base.
        configuration.drafts?.forgetHandOver(session.draftID)
        session.generation = context.model.nextID()
        session.openedFrom = hit
        if state.offline.isOffline, openCached(session) { return }
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
        guard var session = state.note, session.generation == generation, session.stage == .loading else { return }
        loadTask = nil
        switch result {
        case .success(let (data, entry)):
            session.entry = entry
            session.setBase(entry.rev, text: String(validating: data, as: UTF8.self))
            context.cacheNoteText(data, of: entry)
            var message = state.message
            if let text = String(validating: data, as: UTF8.self), entry.readOnly == true || state.readsOnly {
                // A reader's note: shown, never saved (the server would refuse it anyway).
                session.editor = NoteEditorState(title: ClubLayout.title(of: entry.name), body: text, isNew: false, isReadOnly: true)
                session.isReadOnly = true
                session.banner = "Read-only: you are a reader in this club"
                message = StatusMessage("Reading \"\(TerminalSafe.escape(entry.name))\" (read-only: you are a reader) · Esc closes")
            } else if let text = String(validating: data, as: UTF8.self) {
                session.editor = NoteEditorState(title: ClubLayout.title(of: entry.name), body: text, isNew: false)
                if let error = NoteFrontMatter(text)?.error {
                    session.banner = "Front matter does not parse (kept as written): " + error
                }
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
            // The store showed an older version than the newest (an encrypted club refused
            // the newest's writer): the note says so, and what is shown is what a save builds on.
            if let notice = (context.store as? any NoticingStore)?.takeNotices().last {
                session.banner = notice
                message = .error(notice)
            }
            session.stage = .open
            placeAtSearchHit(&session)
            context.update {
                $0.note = session
                $0.message = message
                $0.arriveAtPlace()
            }
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

    /// `Esc` while a note's text is on its way: the download is abandoned.
    func abandonLoad() {
        let name = state.note?.entry?.name ?? ""
        loadTask?.cancel()
        loadTask = nil
        context.update {
            $0.note = nil
            $0.message = StatusMessage("Stopped opening \"\(TerminalSafe.escape(name))\"")
        }
    }

    /// Opens a draft whose text waits in the outbox as what it is: saved as far as the user is
    /// concerned (Esc and q do not ask), following the queued item. False when it does not wait.
    func openQueued(_ draft: Draft, entry: RemoteEntry?) -> Bool {
        guard configuration.outbox != nil, let item = outboxRunner?.pending.last(where: { $0.draftID == draft.id && $0.text != nil }),
              item.text == draft.body else { return false }
        var session = NoteSession(draft: draft, entry: entry, savedAt: timeOfDay(draft.updated))
        session.newNoteExtension = configuration.layout.newNoteExtension
        session.savedVersion = session.version
        session.save.follows(item.id)
        session.banner = "Waiting in the outbox since \(timeOfDay(item.queued)): it is sent when the server answers"
        context.update {
            $0.note = session
            $0.message = StatusMessage("\"\(TerminalSafe.escape(item.title))\" waits in the outbox · Ctrl-S queues more · Esc closes")
        }
        return true
    }

    /// `Enter` on a search hit: opens `entry` (its draft if it has one) with the cursor on the match.
    func open(_ entry: RemoteEntry, at hit: SearchResult) {
        if let note = state.note, note.stage != .loading { return }
        if let draft = state.drafts.first(where: { $0.path?.lowercased() == entry.pathLower }) {
            // The draft is the text the user last saw: the matches are looked for in it.
            open(draft: draft, entry: entry)
            context.model.updateQuietly { $0.note?.openedFrom = hit }
            if var session = state.note, session.stage != .loading {
                placeAtSearchHit(&session)
                context.update { $0.note = session }
            }
            return
        }
        load(entry, from: hit)
    }

    /// Puts a session just loaded from a search hit on its match, in search hits mode.
    func placeAtSearchHit(_ session: inout NoteSession) {
        guard let hit = session.openedFrom else { return }
        session.openedFrom = nil
        var matches = SearchMatches(texts: hit.matchedTexts, in: session.editor.body.text)
        let column = hit.ranges.first?.lowerBound ?? 0
        if let match = matches.start(atLine: hit.lineNumber, column: column) {
            session.editor.focus = .body
            session.editor.body.moveCursor(to: match.position)
        }
        session.searchMatches = matches
        session.banner = Self.searchBanner(matches)
    }

    /// "Search: match 2 of 5, line 12 · n next · N previous · Esc back to the results".
    static func searchBanner(_ matches: SearchMatches) -> String {
        let line = matches.matches.isEmpty ? "" : ", line \(matches.matches[matches.current].position.line + 1)"
        return "Search: \(matches.summary)\(line) · n next · N previous · Esc back to the results"
    }

    /// Closes the editor and drops its draft.
    func discard() {
        guard let session = state.note else { return }
        // Only Discard drops a draft. A note closed without changes may still have one: its text
        // waits in the outbox, or came back from it to be merged; it stays until the server has it.
        let queued = !session.isModified
        // A draft another process wrote over since (`byteclub edit` keeping its text) stays, and
        // so does a reader's, shown read-only: closing it is not discarding it.
        let dropped = !queued && !session.isReadOnly && configuration.drafts?.removeIfOurs(session.draftID) != false
        let name = session.entry?.name ?? (session.editor.title.text.isEmpty ? "the new note" : session.fileName)
        context.update {
            $0.note = nil
            if dropped { $0.drafts.removeAll { $0.id == session.draftID } }
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

    /// Closes the open note when nothing in it is unsaved (it loads, is unchanged, or is
    /// read-only), as `Esc` does; one with unsaved edits stays open (the notes ask about it).
    func closeUnmodified() {
        guard let session = state.note, !session.isModified || session.isReadOnly else { return }
        discard()
    }

    // MARK: Following links

    /// Follows a link: a note opens (remembering the one it left, and where in it); a missing
    /// note is offered to be created; a photo, a web address or anything else is said, not
    /// followed here. A link followed from the rendered view opens its note in the view.
    func follow(_ target: NoteLinkTarget, fragment: String? = nil) {
        let arrival = NotePlace(view: state.noteView.map { NoteViewState(openedFromList: $0.openedFromList) }, fragment: fragment)
        switch target {
        case .here:
            if let fragment { goToPlace(fragment) }
        case .note(let title):
            switch resolver.resolve(title, from: state.note?.entry?.path) {
            case .one(let entry) where fragment != nil && entry.pathLower == state.note?.entry?.pathLower:
                goToPlace(fragment ?? "")
            case .one(let entry): openFound(entry, arrival: arrival)
            case .none: offerToCreate(title: title)
            case .several(let entries): chooseAmong(entries, title: title, arrival: arrival)
            }
        case .path(let path):
            // Where it says, else as Obsidian finds a Markdown link (from the club folder, by the
            // end of its path): the same answer `byteclub links` gives.
            switch resolver.resolve(target, from: state.note?.entry?.path) {
            case .one(let entry) where fragment != nil && entry.pathLower == state.note?.entry?.pathLower:
                goToPlace(fragment ?? "")
            case .one(let entry): openFound(entry, arrival: arrival)
            case .none: offerToCreate(title: NoteLinks.title(ofPath: path))
            case .several(let entries): chooseAmong(entries, title: NoteLinks.title(ofPath: path), arrival: arrival)
            }
        case .photo(let path):
            context.say(StatusMessage("\"\(TerminalSafe.escape((path as NSString).lastPathComponent))\" is a photo: the PanoPhotos tab has it"))
        case .web(let address):
            context.say(StatusMessage("A web address: \(TerminalSafe.escape(address))"))
        case .elsewhere(let text):
            context.say(.error("Not a note of the club: \(TerminalSafe.escape(text))"))
        }
    }

    /// The note whose title (name without `.md`/`.txt`) or alias is `title`, in any case,
    /// nearest the open note (the first of several as near).
    func entry(titled title: String) -> RemoteEntry? {
        resolver.note(titled: title, from: state.note?.entry?.path)
    }

    /// Titles and paths resolved over the notes at any depth, by the rules the command line
    /// uses too (the core's `NoteResolver`). Made again only when the list or the aliases
    /// changed: the rendered view asks for every link it draws.
    var resolver: NoteResolver {
        let notes = state.notes, aliases = noteIndex.aliases
        if let cached = resolverCache, cached.version == notes.version, cached.count == notes.entries.count,
           cached.resolver.aliases == aliases {
            return cached.resolver
        }
        // The notes, and the other files a link may name ([[paper.pdf]]).
        let resolver = NoteResolver(entries: Array(notes.entries) + notes.files, root: configuration.layout.folder, aliases: aliases)
        resolverCache = (notes.version, notes.entries.count, resolver)
        return resolver
    }

    /// Where a link led: a note opens; another file (a vault's PDF) opens with the system.
    private func openFound(_ entry: RemoteEntry, arrival: NotePlace) {
        guard ClubLayout.hasExtension(entry.name, in: ClubLayout.noteExtensions) else { return context.openWithSystem(entry) }
        open(entry, remember: true, arrival: arrival)
    }

    /// Two notes as near as each other have the title: the user picks one, nothing is guessed.
    private func chooseAmong(_ entries: [RemoteEntry], title: String, arrival: NotePlace) {
        let root = configuration.layout.folder
        context.choose { ChoiceListLayer(
            title: "Which \"\(TerminalSafe.escape(title))\"?", items: entries, columns: [ListColumn("Note")],
            row: { ListRow([TerminalSafe.escape(String($0.path.dropFirst(root.count + 1)))]) }, enterDoes: "Open this note",
            hint: "\(entries.count) notes have this title · Enter open · Esc close", emptyHint: ""
        ) { [weak self] entry in
            guard let self, let entry else { return }
            self.open(entry, remember: true, arrival: arrival)
        } }
    }

    /// The note at `path` (any case), or with `.md`/`.txt` added when the link left it off.
    func entry(at path: String) -> RemoteEntry? {
        resolver.entry(at: path)
    }

    /// Whether a link leads to a note of the club (what the rendered view draws a missing link by).
    func noteExists(_ target: NoteLinkTarget) -> Bool {
        switch target {
        case .note(let title): return entry(titled: title) != nil
        case .path: return resolver.resolve(target, from: state.note?.entry?.path) != .none
        case .photo, .web, .elsewhere, .here: return true
        }
    }

    /// Opens `entry` in place of the open note, at `arrival` once its text is in (the editor
    /// at its start by default); `remember` puts the open note, and where in it the user was,
    /// in "Back"'s history.
    func open(_ entry: RemoteEntry, remember: Bool, arrival: NotePlace = NotePlace()) {
        if let open = state.note?.entry, open.pathLower == entry.pathLower, state.note?.stage != .loading {
            if remember {
                context.say(StatusMessage("That link leads to this note"))
            } else {
                // Back to the note that is open: only the place changes.
                context.update {
                    $0.note?.arrival = arrival
                    $0.arriveAtPlace()
                }
            }
            return
        }
        guard editorCanLeave() else { return }
        if remember, let left = state.note?.entry?.path {
            context.update { $0.links.push(LinkStop(path: left, place: NotePlace.current(in: $0))) }
        }
        // Kept open with its edits: it comes back as it was, at the place Back remembers.
        if showOpen(entry, arrival: arrival) { return }
        leaveOpenNote()
        if let draft = state.drafts.first(where: { $0.path?.lowercased() == entry.pathLower }) {
            open(draft: draft, entry: entry)
        } else {
            load(entry)
        }
        context.update { state in
            guard state.note?.entry?.pathLower == entry.pathLower else { return }
            state.note?.arrival = arrival
            // A draft is open at once; a download arrives when its text is in (finishLoad).
            state.arriveAtPlace()
        }
    }

    /// "Back": the note the last followed link left, at the line and column it was left at,
    /// in the editor or the rendered view as it was.
    func back() {
        guard let stop = state.links.history.last else {
            context.say(StatusMessage("No note to go back to: Back follows the links you followed"))
            return
        }
        guard editorCanLeave() else { return }
        context.update { _ = $0.links.history.popLast() }
        guard let entry = entry(at: stop.path) else {
            context.say(.error("\"\(TerminalSafe.escape((stop.path as NSString).lastPathComponent))\" is no longer in the club"))
            return
        }
        open(entry, remember: false, arrival: stop.place)
    }

    /// A link to a note that does not exist: asks, then opens a new note with that title.
    /// Declined, nothing moves: the same note, cursor and view. Created, the note left stays
    /// open behind it with its edits (Back returns to it).
    func offerToCreate(title: String) {
        let shown = TerminalSafe.escape(title)
        if let problem = NoteSession.titleProblem(title) {
            context.say(.error("No note \"\(shown)\", and it cannot be made: \(problem)"))
            return
        }
        guard editorCanLeave() else { return }
        let modal = Modal(title: "No such note", body: ["No note is titled \"\(shown)\".", "Create it?"], buttons: ["Create", "Cancel"])
        context.ask { DialogLayer(modal, selected: 0) { [weak self] choice in
            guard choice == 0, let self, self.editorCanLeave() else { return }
            if let left = self.state.note?.entry?.path {
                self.context.update { $0.links.push(LinkStop(path: left, place: NotePlace.current(in: $0))) }
            }
            self.leaveOpenNote()
            self.newNote()
            self.context.update {
                $0.note?.editor.title = TextInputState(text: title)
                $0.note?.editor.focus = .body
                $0.message = StatusMessage("New note \"\(shown)\" · Ctrl-S saves · Ctrl-O goes back")
            }
        } }
    }
    // MARK: The texts kept on disk

    /// "10:42" today, "2026-11-22 10:42" another day.
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
