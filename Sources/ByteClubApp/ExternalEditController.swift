import Foundation
import Durable
import TerminalUI

/// Runs the user's own editor over the open note; the executable wires it to the ``Terminal``
/// (`Terminal.runEditor`), which leaves the screen while the program runs.
public struct ExternalEditorHook: Sendable {
    /// `$VISUAL`, else `$EDITOR`, else `vi` (``ExternalEditor/command(environment:)``).
    public var command: String
    public var run: @MainActor @Sendable (_ command: String, _ file: String) -> ExternalProgramExit

    public init(command: String, run: @escaping @MainActor @Sendable (_ command: String, _ file: String) -> ExternalProgramExit) {
        self.command = command
        self.run = run
    }
}

/// `e` in the Notes list and `Alt-E` in the editor: the note in `$VISUAL`/`$EDITOR`/`vi`.
///
/// The text goes through the same paths as typing. Before the editor starts, the draft is
/// written and the text goes to a file beside it in the drafts folder (0600), so a `kill -9` of
/// byteclub while the editor is open loses nothing: the next start takes that file into the
/// draft (``DraftStore/adoptEditorFiles()``). What the editor wrote comes back as one edit
/// (`[+]`, one Ctrl-Z), saved, merged and conflicted like any other; an editor that writes
/// nothing changes nothing.
@MainActor
final class ExternalEditController {
    let context: AppContext
    let navigator: Navigator
    let edits: NoteEdits
    /// The draft of the note `e` asked to open in the user's editor once its text is in.
    var pending: String?

    init(context: AppContext, navigator: Navigator, edits: NoteEdits) {
        self.context = context
        self.navigator = navigator
        self.edits = edits
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    /// After every change of the state: a note `e` asked for goes to the editor once its text is in.
    func stateChanged() {
        if pending != nil { runPending() }
    }

    /// `Alt-E` in the open editor; returns whether it was taken (not while a note loads, a
    /// merge has the keys, or the screen is too small to show what it would change).
    func handleEditorKey(_ key: Key) -> Bool {
        guard Self.externalEditorBindings.action(for: key) == .open, let note = state.note, note.stage != .loading, note.merge == nil,
              !context.compositor.isTooSmall else { return false }
        openInExternalEditor()
        return true
    }

    /// The editor's key for it (the Notes list's `e` is in ``MainScreen/notesBindings``).
    enum ExternalEditorAction: Hashable, Sendable { case open }

    static let externalEditorBindings = KeyBindings<ExternalEditorAction>(group: "Editor", [
        .init([.alt("e")], .open, "Open in $EDITOR"),
    ])

    /// `e` in the list: opens the selected note, then hands it to the editor once its text is in.
    func openSelectedInExternalEditor() {
        guard let item = state.selectedNoteItem(in: context.model.noteListing) else { return }
        if let note = state.note, note.stage != .loading {
            openInExternalEditor()
            return
        }
        let draftID: String
        switch item {
        case .draft(let draft): draftID = draft.id
        case .note(let entry, _): draftID = Draft.id(forPath: entry.path)
        case .folder, .file: return
        }
        pending = draftID
        navigator.openSelected()
        runPending()
    }

    /// After a note's text came in: the editor, if `e` asked for this note.
    private func runPending() {
        guard let pending, let session = state.note else { return }
        guard session.draftID == pending else {
            if session.stage != .loading { self.pending = nil }
            return
        }
        guard session.stage != .loading else { return }
        self.pending = nil
        openInExternalEditor()
    }

    /// `Alt-E` in the editor: the open note in the user's editor, and its text back as an edit.
    func openInExternalEditor() {
        guard let hook = configuration.externalEditor else {
            context.say(.error("No terminal to run an editor in"))
            return
        }
        guard var session = state.note, session.stage != .loading, session.merge == nil else { return }
        if session.isReadOnly {
            context.say(.error("This note is read-only: it is not valid UTF-8 text"))
            return
        }
        guard let drafts = configuration.drafts else {
            context.say(.error("No drafts folder to hand the note to an editor through"))
            return
        }
        let name = ExternalEditor.name(of: hook.command)
        // The draft first: with the text and the note's rev on disk before the editor starts,
        // a kill -9 of byteclub now loses nothing.
        let hadDraft = drafts.has(session.draftID)
        let before = session.editor.body.text
        // Editors end a file with a newline; one they add is not a change.
        let written = before.hasSuffix("\n") || before.isEmpty ? before : before + "\n"
        let file: URL
        do {
            // Under a draft id of its own when another process's text is in the note's draft.
            session = try edits.writeDraft(of: session)
            file = drafts.editorFile(for: session.draftID, fileName: session.fileName)
            try drafts.writeEditorFile(Data(written.utf8), to: file)
        } catch {
            context.say(.error("Could not hand the note to \(name): \(error.localizedDescription)"))
            return
        }

        let exit = hook.run(hook.command, file.path)

        let ending: String
        switch exit {
        case .exited(0): ending = ""
        case .exited(let status): ending = " (\(name) exited with status \(status))"
        case .killed(let signal): ending = " (\(name) was ended by signal \(signal))"
        case .notStarted(let why):
            try? DurableFile.remove(file)
            if !hadDraft, !session.isModified { drafts.remove(session.draftID) }
            context.say(.error("Could not start \(name): \(why)"))
            return
        }
        guard let data = try? Data(contentsOf: file) else {
            if !hadDraft, !session.isModified { drafts.remove(session.draftID) }
            context.say(StatusMessage("\(name) left no file: the note is unchanged" + ending))
            return
        }
        guard var text = String(validating: data, as: UTF8.self) else {
            // Kept where it is: the user's words, even in a form the note cannot take.
            context.say(.error("\(name) wrote text that is not UTF-8: the note is unchanged; the file is kept as \(file.path)"))
            return
        }
        if text == written { text = before }
        if text == before {
            try? DurableFile.remove(file)
            if !hadDraft, !session.isModified { drafts.remove(session.draftID) }
            context.say(StatusMessage("No changes from \(name)" + ending))
            return
        }
        if !before.hasSuffix("\n"), text.hasSuffix("\n") { text.removeLast() }
        edits.endSearchHits()
        context.model.updateQuietly { $0.note?.editor.body.replaceText(with: text) }
        context.update {
            $0.note?.version += 1
            $0.note?.editor.focus = .body
        }
        // The draft holds the editor's text before its file goes.
        if edits.journal() { try? DurableFile.remove(file) }
        context.say(StatusMessage("Took the text from \(name)" + ending + " · Ctrl-S saves · Ctrl-Z undoes"))
    }
}
