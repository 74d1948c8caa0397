import Foundation
import Remote
import TerminalUI

/// The editor's keys for the open notes and for how it draws: `Alt-1`…`Alt-9` and "Switch
/// note" (a chooser of the open notes, `[+]` on those with unsaved edits), "Line numbers" and
/// "Soft wrap" (remembered in config.toml through ``AppConfiguration/saveEditorSettings``).
///
/// A leaf: it changes ``AppState/editorSettings`` and asks the ``Navigator`` to show a note.
@MainActor
final class OpenNotesController {
    /// Alt with a digit or a letter: free in the editor, where plain keys are text.
    static let bindings = KeyBindings<OpenNotesAction>(group: "Open notes", [
        .init((1...9).map { .alt(Character(String($0))) }, .show(0), "Switch to open note 1…9 (the note left by a link, a search hit, a new note)",
              keyLabel: "Alt-1…Alt-9"),
        .init([.alt("o")], .switcher, "Switch note: the open notes, [+] on those with unsaved edits"),
        .init([.alt("n")], .lineNumbers, "Line numbers on or off (kept in config.toml)", group: "Editor"),
        .init([.alt("w")], .softWrap, "Soft wrap on or off: long lines wrap or scroll sideways (kept in config.toml)", group: "Editor"),
    ])

    let context: AppContext
    let navigator: Navigator

    init(context: AppContext, navigator: Navigator) {
        self.context = context
        self.navigator = navigator
    }

    var state: AppState { context.state }

    /// A key in the open editor; returns whether it was one of these.
    func handleEditorKey(_ key: Key) -> Bool {
        guard let action = Self.bindings.action(for: key), let note = state.note, note.stage != .loading else { return false }
        switch action {
        case .show:
            guard case .alt(let digit) = key, let number = digit.wholeNumberValue else { return false }
            navigator.showOpenNote(number: number - 1)
        case .switcher:
            chooseNote()
        case .lineNumbers:
            var settings = state.editorSettings
            settings.lineNumbers.toggle()
            change(settings, saying: settings.lineNumbers ? "Line numbers on" : "Line numbers off")
        case .softWrap:
            var settings = state.editorSettings
            settings.softWrap.toggle()
            change(settings, saying: settings.softWrap ? "Soft wrap on: long lines wrap" : "Soft wrap off: long lines scroll sideways")
        }
        return true
    }

    /// The new settings on screen at once, then in config.toml (said when that fails).
    private func change(_ settings: EditorSettings, saying words: String) {
        context.update {
            $0.editorSettings = settings
            $0.message = StatusMessage(words)
        }
        guard let save = context.configuration.saveEditorSettings else { return }
        do {
            try save(settings)
            context.say(StatusMessage(words + " (kept in config.toml)"))
        } catch {
            context.say(.error("\(words), but config.toml could not be written: \(error)"))
        }
    }

    /// "Switch note": the open notes to choose from, the one on screen selected (from the
    /// Notes list too, where the notes kept open are all there are).
    func chooseNote() {
        let notes = state.openNotes
        guard notes.count > (state.shownNoteIndex == nil ? 0 : 1) else {
            context.say(StatusMessage("\(notes.isEmpty ? "No note is" : "Only one note is") open: following a link, a search hit or a new note keeps an edited note open"))
            return
        }
        let rows = notes.enumerated().map { ListRow(["\($0.offset + 1)", TerminalSafe.escape($0.element.displayName), $0.element.hasUnsavedEdits ? "[+]" : ""]) }
        let shown = state.shownNoteIndex ?? 0
        context.choose { ChoiceListLayer(
            title: "Switch note", items: Array(rows.indices),
            columns: [ListColumn("#", width: .fixed(2)), ListColumn("Open note"), ListColumn("", width: .fixed(3))],
            row: { rows[$0] }, enterDoes: "Show the note chosen", hint: "Enter or 1…9 show · Esc close", emptyHint: "",
            selected: shown, digitsChoose: true
        ) { [weak self] index in
            guard let self, let index else { return }
            self.navigator.showOpenNote(number: index)
        } }
    }
}
