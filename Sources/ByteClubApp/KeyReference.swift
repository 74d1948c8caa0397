import Foundation
import TerminalUI

/// Every key of the app on one page, in Markdown: docs/keys.md is this text.
///
/// It is gathered as the help overlay gathers its rows, so the page cannot say what the keys
/// do not do. Each place in the app is the stack of layers F1 would see there, each layer's rows
/// from the same tables and functions its `commands()` uses; a ``Compositor`` holding that stack
/// drops what help drops (a global key a layer takes for itself, `?` where letters are typed).
/// The rows of every place are then grouped as ``HelpOverlay`` groups them, one section a group,
/// a row listed once. `KeyReferenceTests` fails when docs/keys.md differs and rewrites it with
/// `RECORD_SNAPSHOTS=1`.
@MainActor
public enum KeyReference {
    /// The page.
    public static func markdown() -> String {
        var text = """
        # Keys

        Every key of byteclub's terminal UI, one section for each group that the help overlay shows.
        `F1` shows the keys of the screen you are on (`?` too, except where letters are typed:
        the editor, a filter, a prompt).

        This page is generated from the same key tables as the help overlay (`KeyReference` in
        Sources/ByteClubApp). Do not edit it by hand: after changing a key, run
        `RECORD_SNAPSHOTS=1 .build/debug/byteclubPackageTests.xctest ByteClubAppTests.KeyReferenceTests`,
        read the diff, and run the test again.

        """
        for section in sections() {
            text += "\n## \(section.name)\n\n| Key | What it does |\n|---|---|\n"
            for command in section.commands {
                // A mouse row has no key to show in code, only the gesture.
                let key = command.keys.isEmpty ? escaped(command.keyLabel) : code(command.keyLabel)
                text += "| \(key) | \(escaped(command.description)) |\n"
            }
        }
        return text
    }

    /// The rows of every place, grouped, in the order the page lists them.
    ///
    /// A row already listed in its group is left out, and so is one that says the same with
    /// fewer keys: help in the editor lists "F1  Show this help" where the lists say "? / F1".
    public static func sections() -> [(name: String, commands: [Command])] {
        var order: [String] = []
        var rows: [String: [Command]] = [:]
        for place in places() {
            for group in HelpOverlay.grouped(place.commands()) {
                if rows[group.name] == nil { order.append(group.name) }
                for command in group.commands where !(rows[group.name] ?? []).contains(where: { covers($0, command) }) {
                    rows[group.name, default: []].append(command)
                }
            }
        }
        return order.map { ($0, rows[$0] ?? []) }
    }

    /// Whether `listed` already tells what `command` does.
    static func covers(_ listed: Command, _ command: Command) -> Bool {
        if listed == command { return true }
        guard listed.description == command.description, !command.keys.isEmpty else { return false }
        return Set(command.keys).isSubset(of: listed.keys)
    }

    /// One place in the app: the help rows of the layers stacked there, the bottom one first.
    @MainActor
    struct Place {
        var layers: [Rows]

        /// What F1 lists there.
        func commands() -> [Command] {
            let compositor = Compositor()
            for layer in layers { compositor.push(layer) }
            return compositor.commands()
        }
    }

    /// A layer as help sees it: its rows, and whether letters are typed into it.
    @MainActor
    final class Rows: Layer {
        let rows: [Command]
        let typing: Bool

        init(_ rows: [Command], typing: Bool = false) {
            self.rows = rows
            self.typing = typing
        }

        /// A real layer's rows and its answer to ``Layer/claimsTyping()``.
        convenience init(_ layer: any Layer) {
            self.init(layer.commands(), typing: layer.claimsTyping())
        }

        func render(into canvas: any Canvas, area: Rect) {}
        func handle(_ key: Key, context: LayerContext) -> EventResult { .ignored }
        func commands() -> [Command] { rows }
        func claimsTyping() -> Bool { typing }
    }

    /// Every place with keys of its own, in the order the page lists their groups. Layers that
    /// need no more than a model are made for real and asked; the main screen, the rendered view
    /// and the viewer, which need a club, give their rows through the static functions their
    /// `commands()` use.
    static func places() -> [Place] {
        let model = AppModel(state: AppState(backend: ""), format: DisplayFormat())
        let notes = Rows(MainScreen.listCommands(.notes, filtering: false))
        let photos = Rows(MainScreen.listCommands(.photos, filtering: false))
        // Letters are text in the editor (MainScreen.claimsTyping). Help lists the keys of where
        // the cursor is: the body's (on an indented list item, so Shift-Tab outdents), and the
        // title's, whose Enter, Tab and ↓ go to the body.
        var inBody = NoteEditorState(title: "", body: "  - item", isNew: false)
        inBody.focus = .body
        let inTitle = NoteEditorState(title: "", body: "", isNew: true)
        let editor = Rows(MainScreen.editorCommands(merging: false, searchHits: false, findBar: false, editor: inBody.commandsHere), typing: true)
        let title = Rows(MainScreen.editorCommands(merging: false, searchHits: false, findBar: false, editor: inTitle.commandsHere), typing: true)
        let chooser = FileChooserState(directory: URL(fileURLWithPath: "/"), lister: { _ in [] })
        return [
            Place(layers: [notes]),
            Place(layers: [Rows(MainScreen.listCommands(.notes, filtering: true), typing: true)]),
            Place(layers: [photos]),
            Place(layers: [editor]),
            Place(layers: [title]),
            Place(layers: [Rows(MainScreen.editorCommands(merging: false, searchHits: false, findBar: true), typing: true)]),
            Place(layers: [Rows(MainScreen.editorCommands(merging: false, searchHits: true, findBar: false), typing: true)]),
            Place(layers: [Rows(MainScreen.editorCommands(merging: true, searchHits: false, findBar: false))]),
            Place(layers: [notes, Rows(NoteViewLayer.helpCommands)]),
            Place(layers: [editor, Rows(NoteViewController.photoChooser([]) { _ in })]),
            Place(layers: [notes, Rows(NoteFilesController.folderChooser([], moving: "") { _ in })]),
            Place(layers: [notes, Rows(Navigator.templateChooser([]) { _ in })]),
            Place(layers: [editor, Rows(BacklinksLayer(model: model))]),
            Place(layers: [notes, Rows(SearchLayer(model: model, format: DisplayFormat()))]),
            Place(layers: [notes, Rows(HistoryLayer(model: model))]),
            Place(layers: [photos, Rows(ViewerLayer.bindings.commands)]),
            Place(layers: [notes, Rows(TransfersPanel(model: model))]),
            Place(layers: [photos, Rows(FileChooser(state: chooser) { _ in })]),
            Place(layers: [photos, Rows(TransferModal(TransferProgress(direction: .upload, name: "")) { _ in })]),
            Place(layers: [photos, Rows(TransferModal.endedBindings.commands)]),
            Place(layers: [notes, Rows(PromptLayer(title: "") { _ in })]),
            Place(layers: [notes, Rows(DialogLayer(Modal(title: "")) { _ in })]),
            Place(layers: [notes, Rows(HelpOverlay(commands: []))]),
        ]
    }

    /// `text` as a code span in a table cell (a key may be the backtick itself).
    static func code(_ text: String) -> String {
        let cell = text.replacingOccurrences(of: "|", with: "\\|")
        return cell.contains("`") ? "`` " + cell + " ``" : "`" + cell + "`"
    }

    /// `text` with Markdown's punctuation escaped, so `[x](Note.md)` in a description is shown,
    /// not linked, and `|` does not end the cell.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\`*_[]<>|#".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
