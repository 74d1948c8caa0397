import Dispatch
import Foundation

/// How a ``FileChooser`` ended.
public enum FileChooserResult: Hashable, Sendable {
    case chosen(URL)
    /// Enter with files marked (Space, `*`): the marked files.
    case chosenMany([URL])
    /// Ctrl-F: a folder and the images in it, for the owner to offer (asking first).
    case folder(URL, files: [URL])
    case cancelled
}

/// The file chooser as a layer: a large dialog with the folder, its entries, a path field and
/// an error line. It takes every key while open (except Ctrl and function keys, so quit and
/// help still work) and reports the result once, after removing itself. Marked files show a
/// `✓` before their name, and the hint line counts them.
///
/// ```
/// ╭─ Upload a photo ─────────────────────────────────────────────────────╮
/// │                                                                      │
/// │  ~/Pictures                                             jpg, jpeg    │
/// │  ..                                                                  │
/// │  desk-photos/                                                        │
/// │  pano-basement-lab.jpg                                      7.9 MB   │
/// │                                                                      │
/// │  Path: ▏                                                             │
/// │  Not an image file: notes.txt (Ctrl-A shows all files)               │
/// │                                                                      │
/// │  Enter open · Backspace up · Ctrl-A all files · Esc cancel           │
/// ╰──────────────────────────────────────────────────────────────────────╯
/// ```
@MainActor
public final class FileChooser: Layer {
    public var title: String
    public var state: FileChooserState
    private let onResult: @MainActor (FileChooserResult) -> Void
    /// Double clicks on rows open them, as Enter does (FileChooserState+Mouse.swift).
    var clicks = ClickTracker()
    /// Seconds on a monotonic clock, for ``clicks``; tests put in their own.
    public var clock: @MainActor () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    public init(title: String = "Upload a photo", state: FileChooserState, onResult: @escaping @MainActor (FileChooserResult) -> Void) {
        self.title = title
        self.state = state
        self.onResult = onResult
    }

    /// The dialog's frame in `area`: nearly the whole screen, at most 76 columns wide.
    public func frame(in area: Rect) -> Rect {
        area.centered(width: min(76, area.width - 4), height: min(24, area.height - 2))
    }

    public func render(into canvas: any Canvas, area: Rect) {
        let area = area.intersection(canvas.bounds)
        let theme = canvas.theme
        let box = frame(in: area)
        guard box.width >= 12, box.height >= 8 else { return }
        canvas.fill(box, style: theme.panel)
        canvas.drawBox(box, style: theme.border, title: title, titleStyle: theme.title)
        let content = box.inset(top: 2, left: 3, bottom: 1, right: 3)

        // The folder line, its filter on the right.
        let filter = state.showsAll ? "all files" : state.extensions.joined(separator: ", ")
        let filterWidth = min(TextWidth.of(filter), content.width / 3)
        let pathRow = content.row(0)
        let pathRoom = Rect(x: pathRow.x, y: pathRow.y, width: pathRow.width - filterWidth - 2, height: 1)
        canvas.put(Self.truncateLeading(state.directoryDisplay, to: pathRoom.width), in: pathRoom, alignment: .left, style: theme.title)
        canvas.put(filter, in: Rect(x: pathRow.maxX - filterWidth, y: pathRow.y, width: filterWidth, height: 1), alignment: .right, style: theme.muted)

        // Bottom up: hint, a gap, the error line, the path field.
        let hint = content.row(content.height - 1)
        let errorRow = content.row(content.height - 3)
        let field = content.row(content.height - 4)
        let listArea = Rect(x: content.x - 1, y: content.y + 1, width: content.width + 2, height: field.y - content.y - 2)

        let rows = state.entries.map { entry -> ListRow in
            if entry == FileChooserState.parentEntry { return ListRow(["..", ""]) }
            if entry.isDirectory { return ListRow([entry.name + "/", ""]) }
            let name = state.isMarked(entry.name) ? "✓ " + entry.name : entry.name
            return ListRow([name, entry.size.map(ByteFormat.size) ?? ""])
        }
        let columns = [ListColumn("Name"), ListColumn("Size", width: .fixed(9), alignment: .right, isSecondary: true)]
        ListView(columns: columns, rows: rows, emptyHint: "Empty folder", showsHeader: false)
            .render(into: canvas, area: listArea, state: &state.list)

        TextInput(prompt: "Path: ", placeholder: "type a path, or pick from the list").render(into: canvas, area: field, state: &state.input)
        if let error = state.error {
            canvas.put(error, in: errorRow, alignment: .left, style: theme.error)
        }
        let toggle = state.showsAll ? "Ctrl-A images only" : "Ctrl-A all files"
        if state.marked.isEmpty {
            canvas.put("Enter open · Backspace up · \(toggle) · Esc cancel", in: hint, alignment: .left, style: theme.muted)
        } else {
            canvas.put("\(state.marked.count) marked · Enter upload them · Space unmark · Esc cancel", in: hint, alignment: .left,
                       style: theme.accent)
        }
    }

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
        var outcome = FileChooserOutcome.updated
        if key.isMouse {
            // A double click on a row is Enter on it; anything else the mouse does only moves.
            guard let row = state.handleMouse(key), case .double = clicks.press(on: row, at: clock()) else { return .consumed }
            outcome = state.handle(.enter)
        } else {
            outcome = state.handle(key)
        }
        switch outcome {
        case .chosen(let url):
            context.dismiss()
            onResult(.chosen(url))
        case .chosenMany(let urls):
            context.dismiss()
            onResult(.chosenMany(urls))
        case .folder(let folder, let files):
            context.dismiss()
            onResult(.folder(folder, files: files))
        case .cancelled:
            context.dismiss()
            onResult(.cancelled)
        case .updated:
            break
        case .ignored:
            switch key {
            case .ctrl, .f, .resize: return .ignored
            default: break
            }
        }
        return .consumed
    }

    public func commands() -> [Command] {
        FileChooserState.bindings.commands + FileChooserState.fieldBindings.commands + [
            Command(keys: [], description: "Select; double-click opens it as Enter does", group: "File chooser", keyLabel: "Click a row"),
            Command(keys: [], description: "Scroll the folder", group: "File chooser", keyLabel: "Wheel"),
        ]
    }

    /// `text` cut at the front with "…" so its end (the folder's own name) stays visible.
    static func truncateLeading(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard TextWidth.of(text) > width else { return text }
        var characters = Array(text)
        while !characters.isEmpty, TextWidth.of(String(characters)) + 1 > width { characters.removeFirst() }
        return "…" + String(characters)
    }
}
