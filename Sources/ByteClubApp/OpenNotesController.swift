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
        guard let action = Self.bindings.action(for: key), let note = state.note, note.phase != .loading else { return false }
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
        let rows = notes.map { OpenNotesChooser.Row(name: $0.displayName, isModified: $0.hasUnsavedEdits) }
        let shown = state.shownNoteIndex ?? 0
        context.choose { OpenNotesChooser(rows: rows, selected: shown) { [weak self] index in
            guard let self, let index else { return }
            self.navigator.showOpenNote(number: index)
        } }
    }
}

/// The open notes as a list to choose from ("Switch note"): Enter or the note's digit shows
/// it, Esc closes.
@MainActor
final class OpenNotesChooser: Layer {
    struct Row: Sendable {
        var name: String
        var isModified: Bool
    }

    private let rows: [Row]
    private var list = ListState()
    private let onChoice: @MainActor (Int?) -> Void

    static let bindings = KeyBindings<ListState.Action>(group: "Switch note", [
        .init([.enter], .activate, "Show the note chosen"),
        .init([.escape], .clearFilter, "Close"),
    ])

    init(rows: [Row], selected: Int, onChoice: @escaping @MainActor (Int?) -> Void) {
        self.rows = rows
        self.onChoice = onChoice
        list.selected = selected
    }

    private var listRows: [ListRow] {
        rows.enumerated().map { ListRow(["\($0.offset + 1)", TerminalSafe.escape($0.element.name), $0.element.isModified ? "[+]" : ""]) }
    }

    func render(into canvas: any Canvas, area: Rect) {
        let box = area.centered(width: min(area.width - 4, 60), height: min(area.height - 4, max(8, rows.count + 5)))
        guard box.width >= 10, box.height >= 5 else { return }
        canvas.fill(box, style: canvas.theme.panel)
        canvas.drawBox(box, style: canvas.theme.border, title: "Switch note", titleStyle: canvas.theme.title)
        let inner = box.inset(top: 1, left: 1, bottom: 1, right: 1)
        let (listArea, hint) = inner.splitBottom(1)
        ListView(columns: [ListColumn("#", width: .fixed(2)), ListColumn("Open note"), ListColumn("", width: .fixed(3))],
                 rows: listRows).render(into: canvas, area: listArea, state: &list)
        canvas.put("Enter or 1…9 show · Esc close", in: hint, alignment: .left, style: canvas.theme.muted)
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        switch key {
        case .f(1), .ctrl("l"), .resize: return .ignored
        case .char(let c) where c.wholeNumberValue.map { (1...rows.count).contains($0) } == true:
            context.dismiss()
            onChoice((c.wholeNumberValue ?? 1) - 1)
            return .consumed
        default: break
        }
        switch list.handle(key, rows: listRows) {
        case .activated(let row):
            context.dismiss()
            onChoice(rows.indices.contains(row) ? row : nil)
        case .ignored where key == .escape, .ignored where key == .char("q"):
            context.dismiss()
            onChoice(nil)
        default:
            break
        }
        context.setNeedsRedraw()
        return .consumed
    }

    func commands() -> [Command] { Self.bindings.commands + MainScreen.listBindings(group: "Switch note").commands }
}
