import Foundation
import Markdown
import Remote
import TerminalUI

/// Links between notes in the editor: "Follow the link" under the cursor, "Back" through the
/// notes links left, and the "Backlinks" panel (LinksController+Backlinks.swift); renames that
/// offer to update every `[[old title]]` (LinksController+Rename.swift).
///
/// ``follow(_:)`` is also the entry point for a link followed anywhere else (the rendered
/// view): it opens the note and remembers the one it left. A link to a note that does not exist
/// offers to create it. The note the editor leaves must have no unsaved edits: the link never
/// closes work away (its draft would survive, but the user would not see where it went).
@MainActor
final class LinksController {
    enum Action: Hashable, Sendable { case follow, back, backlinks }

    /// Keys free in the editor's tables: Ctrl-] is vim's "follow the tag", Ctrl-O its jump back.
    static let bindings = KeyBindings<Action>(group: "Links", [
        .init([.ctrl("]")], .follow, "Follow the link under the cursor ([[Title]], [x](Note.md))"),
        .init([.ctrl("o")], .back, "Back to the note the last followed link left"),
        .init([.alt("l")], .backlinks, "Backlinks: the notes that link to this one"),
    ])

    /// The mouse's way to follow, for help (a click has no key to match).
    static let mouseCommands = [
        Command(keys: [], description: "Follow the link clicked", group: "Links", keyLabel: "Ctrl-click a link"),
    ]

    let context: AppContext
    let notes: any NoteOpening
    let refresher: Refresher
    /// The search index backlinks come from, once it is open (nil before, or without a cache).
    var index: @MainActor () -> (any NoteSearchIndex)? = { nil }
    /// Which backlinks query is the latest; an older answer is dropped.
    var backlinksGeneration = 0
    /// Called after the index took in changes (the rendered view's backlinks, wired in ``ClubApp``).
    var onIndexChanged: (@MainActor () -> Void)?

    init(context: AppContext, notes: any NoteOpening, refresher: Refresher) {
        self.context = context
        self.notes = notes
        self.refresher = refresher
    }

    var state: AppState { context.state }
    var folder: String { context.configuration.layout.folder }

    /// A key in the open editor; returns whether it was one of the links' keys.
    func handleEditorKey(_ key: Key) -> Bool {
        if case .pointer(let event) = key, event.action == .press(.left), event.modifiers == .ctrl {
            return followClick(at: event)
        }
        guard let action = Self.bindings.action(for: key), let note = state.note,
              note.phase != .loading, note.merge == nil, note.editor.bar == nil else { return false }
        switch action {
        case .follow: followLinkUnderCursor()
        case .back: back()
        case .backlinks: toggleBacklinks()
        }
        return true
    }

    // MARK: Following

    /// The link under the editor's cursor, if there is one.
    func linkUnderCursor() -> NoteLink? {
        guard let editor = state.note?.editor, editor.focus == .body else { return nil }
        let cursor = editor.body.cursor
        let byte = String(editor.body.line(cursor.line).prefix(cursor.offset)).utf8.count
        let onLine = NoteLinks.scan(editor.body.text).filter { $0.line == cursor.line }
        // On the link, or just after its last bracket (where typing `]]` leaves the cursor).
        return onLine.first { $0.bytes.contains(byte) } ?? onLine.first { $0.bytes.upperBound == byte }
    }

    /// Ctrl-click, as in Obsidian and VS Code: the cursor goes where a plain click would put it,
    /// then the link there is followed. A click outside the editor is not the links'.
    private func followClick(at event: MouseEvent) -> Bool {
        guard let note = state.note, note.phase != .loading, note.merge == nil, note.editor.bar == nil,
              notes.handleEditorKey(.mouse(x: event.x, y: event.y)) else { return false }
        followLinkUnderCursor()
        return true
    }

    func followLinkUnderCursor() {
        guard let link = linkUnderCursor() else {
            context.say(.error("No link under the cursor: put it on a [[link]] first"))
            return
        }
        let at = state.note?.entry.map { ($0.path as NSString).deletingLastPathComponent } ?? folder
        follow(link.target(inFolder: at))
    }

    /// Follows a link: a note opens (remembering the one it left, and where in it); a missing
    /// note is offered to be created; a photo, a web address or anything else is said, not
    /// followed here. A link followed from the rendered view opens its note in the view.
    func follow(_ target: NoteLinkTarget) {
        let arrival = NotePlace(view: state.noteView.map { NoteViewState(openedFromList: $0.openedFromList) })
        switch target {
        case .note(let title):
            if let entry = entry(titled: title) { open(entry, remember: true, arrival: arrival) } else { offerToCreate(title: title) }
        case .path(let path):
            if let entry = entry(at: path) {
                open(entry, remember: true, arrival: arrival)
            } else {
                offerToCreate(title: NoteLinks.title(ofPath: path))
            }
        case .photo(let path):
            context.say(StatusMessage("\"\(TerminalSafe.escape((path as NSString).lastPathComponent))\" is a photo: the PanoPhotos tab has it"))
        case .web(let address):
            context.say(StatusMessage("A web address: \(TerminalSafe.escape(address))"))
        case .elsewhere(let text):
            context.say(.error("Not a note of the club: \(TerminalSafe.escape(text))"))
        }
    }

    /// The note whose title (name without `.md`/`.txt`) is `title`, in any case.
    func entry(titled title: String) -> RemoteEntry? {
        let wanted = title.lowercased()
        return state.notes.entries.first { NoteLinks.title(ofPath: $0.name).lowercased() == wanted }
    }

    /// The note at `path` (any case), or with `.md`/`.txt` added when the link left it off.
    func entry(at path: String) -> RemoteEntry? {
        let lower = path.lowercased()
        let entries = state.notes.entries
        return entries.first { $0.pathLower == lower }
            ?? entries.first { $0.pathLower == lower + ".md" } ?? entries.first { $0.pathLower == lower + ".txt" }
    }

    /// Whether a link leads to a note of the club (what the rendered view draws a missing link by).
    func noteExists(_ target: NoteLinkTarget) -> Bool {
        switch target {
        case .note(let title): return entry(titled: title) != nil
        case .path(let path): return entry(at: path) != nil
        case .photo, .web, .elsewhere: return true
        }
    }

    /// Whether the editor may give way: no note, or one without unsaved edits.
    private func editorCanLeave() -> Bool {
        guard let note = state.note, note.phase != .loading, note.isModified, !note.isReadOnly else { return true }
        context.say(.error("Save (Ctrl-S) or undo the changes first: following a link closes this note"))
        return false
    }

    /// Opens `entry` in place of the open note, at `arrival` once its text is in (the editor
    /// at its start by default); `remember` puts the open note, and where in it the user was,
    /// in "Back"'s history.
    func open(_ entry: RemoteEntry, remember: Bool, arrival: NotePlace = NotePlace()) {
        if let open = state.note?.entry, open.pathLower == entry.pathLower, state.note?.phase != .loading {
            if remember {
                context.say(StatusMessage("That link leads to this note"))
            } else {
                // Back to the note that is open: only the place changes.
                context.update { $0.note?.arrival = arrival }
            }
            return
        }
        guard editorCanLeave() else { return }
        if remember, let left = state.note?.entry?.path {
            context.update { $0.links.push(LinkStop(path: left, place: NotePlace.current(in: $0))) }
        }
        leaveOpenNote()
        if let draft = state.drafts.first(where: { $0.path?.lowercased() == entry.pathLower }) {
            notes.open(draft: draft, entry: entry)
        } else {
            notes.load(entry)
        }
        context.update { state in
            guard state.note?.entry?.pathLower == entry.pathLower else { return }
            state.note?.arrival = arrival
        }
    }

    /// Closes the open note for another: its rendered view goes with it (the next note's
    /// arrival opens the view again when it should), and so does the backlinks panel.
    private func leaveOpenNote() {
        if state.noteView != nil { context.update { $0.noteView = nil } }
        if state.note != nil { notes.closeEditor() }
        closeBacklinks()
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
    /// Declined, nothing moves: the same note, cursor and view. Never asked when the answer
    /// could not be carried out (the open note has unsaved edits): the status bar says why.
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
            self.notes.newNote()
            self.context.update {
                $0.note?.editor.title = TextInputState(text: title)
                $0.note?.editor.focus = .body
                $0.message = StatusMessage("New note \"\(shown)\" · Ctrl-S saves · Ctrl-O goes back")
            }
        } }
    }
}
