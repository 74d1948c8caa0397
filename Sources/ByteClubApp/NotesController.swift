import Foundation
import Remote
import TerminalUI

/// The Notes tab and the editor's keys: edit, drafts, delete and rename (saving is in
/// NoteSaves+Saving.swift). Opening a note is the ``Navigator``'s, and what follows an
/// edit (the draft it is journalled to) is ``NoteEdits``'.
@MainActor
final class NotesController {
    let context: AppContext
    let refresher: Refresher
    let navigator: Navigator
    let edits: NoteEdits
    /// Offers to update the links to a renamed note.
    let linkRenames: LinkRenames
    /// The save machine: Ctrl-S, merges, the conflict dialog, the outbox (NoteSaves).
    let saves: NoteSaves
    let conflicts: NoteConflicts

    init(context: AppContext, refresher: Refresher, navigator: Navigator, edits: NoteEdits, linkRenames: LinkRenames, saves: NoteSaves, conflicts: NoteConflicts) {
        self.context = context
        self.refresher = refresher
        self.navigator = navigator
        self.edits = edits
        self.linkRenames = linkRenames
        self.saves = saves
        self.conflicts = conflicts
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    /// The item under the notes list's selection.
    var selectedItem: NoteItem? { state.selectedNoteItem(in: context.model.noteListing) }

    // MARK: Opening (the navigator's)

    func openSelected() {
        if case .file(let entry)? = selectedItem { return context.openWithSystem(entry) }
        navigator.openSelected()
    }
    func newNote() { navigator.newNoteAskingForTemplate() }
    func load(_ entry: RemoteEntry) { navigator.load(entry) }
    func discardEditor() { navigator.discard() }
    func showInList(_ session: NoteSession) { navigator.showInList(session) }
    @discardableResult
    func journal() -> Bool { edits.journal() }

    // MARK: Editing

    /// A key for the open editor; returns whether it was taken.
    func handleEditorKey(_ key: Key) -> Bool {
        // The scalars, not the session: a copy alive while the key edits in place below would
        // make that edit copy a big note's array of lines.
        guard let stage = state.note?.stage else { return false }
        if stage == .loading {
            // The list has the keys; Esc abandons the download.
            guard key == .escape else { return false }
            navigator.abandonLoad()
            return true
        }
        // A merge with conflicts has the keys until it is done (NoteConflicts+Merge.swift).
        if state.note?.merge != nil { return handleMergeKey(key) }
        if let taken = handleSearchHitKey(key) { return taken }
        if MergeView.editorBindings.action(for: key) == .merge {
            conflicts.mergeNow()
            return true
        }
        // Keys typed while the screen is too small would change a note no one sees.
        if context.compositor.isTooSmall, !key.isMouse, key != .escape, key != .ctrl("s") { return true }
        // In place: a copy of the session would copy a big note's lines on every key.
        var outcome: NoteEditorOutcome?
        context.model.updateQuietly {
            $0.note?.editor.register = $0.clipboard
            outcome = $0.note?.editor.handle(key)
        }
        sayEditorKeysOnceTyping()
        switch outcome {
        case .edited?:
            edits.edited()
        case .copied(let text)?:
            copy(text)
        case .cut(let text)?:
            copy(text)
            edits.edited()
        case .searchEveryNote(let query)?:
            // The same text searched in every note, over the editor (SearchController).
            guard state.search == nil else { break }
            var search = SearchState()
            search.query = TextInputState(text: query)
            context.update {
                $0.search = search
                $0.parkedSearch = nil
            }
        case .moved?:
            // The cursor moved by hand: the user works somewhere else now, and a letter typed
            // there must be that letter (n and N included), not a jump to a match.
            if Self.putsTheCursor(key) { edits.endSearchHits() }
            context.compositor.setNeedsRedraw()
        case .save?:
            saves.save()
        case .close?:
            closeEditor()
        case .readOnly?:
            context.say(.error(state.readsOnly ? AppState.readerRefusal : "This note is read-only: it is not valid UTF-8 text"))
        case .ignored?, nil:
            return false
        }
        return true
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
                self.saves.save()
            case 1:
                self.discardEditor()
            default:
                break
            }
        } }
    }

}
