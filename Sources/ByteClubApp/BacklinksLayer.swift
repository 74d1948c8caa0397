import Remote
import TerminalUI

/// The "Backlinks" panel, a layer over the lower part of the editor: the notes that link to the
/// open one, each with the line that links, newest first.
///
/// ```
/// ╭─ Backlinks of "Trip plan" (2) ─────────────────────────────────────────────╮
/// │ Note          Line                                               Modified  │
/// │ Packing       1: Before the [[Trip plan|trip]] we pack.          2 min ago │
/// │ ↑↓ note · Enter open it · Esc close                                        │
/// ╰────────────────────────────────────────────────────────────────────────────╯
/// ```
/// It draws ``LinksState/panel`` and hands keys to its controller, changing only the list's
/// view state (the selection), as the history layer does.
@MainActor
final class BacklinksLayer: Layer {
    enum Action: Hashable, Sendable { case open, close }

    static let bindings = KeyBindings<Action>(group: "Backlinks", [
        .init([.enter], .open, "Open the linking note (Back returns)"),
        .init([.escape, .char("q"), .alt("l")], .close, "Close the backlinks", keyLabel: "Esc q Alt-L"),
    ])

    static let columns = [
        ListColumn("Note", width: .fixed(24)),
        ListColumn("Line", width: .flexible(minimum: 20)),
        ListColumn("Modified", width: .fixed(12), isSecondary: true),
    ]

    let model: AppModel
    var onAction: (@MainActor (Action) -> Void)?

    init(model: AppModel) {
        self.model = model
    }

    private var listBindings: KeyBindings<ListState.Action> {
        KeyBindings(group: "Backlinks", ListState.bindings.bindings.filter { [.up, .down, .pageUp, .pageDown, .first, .last].contains($0.action) })
    }

    func render(into canvas: any Canvas, area: Rect) {
        guard let panel = model.state.links.panel else { return }
        let theme = canvas.theme
        // The lower part of the screen, above the status bar: the note stays in sight above.
        let height = min(max(6, panel.notes.count + 5), max(6, (area.height - 2) / 2))
        let frame = Rect(x: area.x, y: max(area.y + 1, area.maxY - 1 - height), width: area.width, height: min(height, max(0, area.height - 2)))
        guard frame.width >= 20, frame.height >= 5 else { return }
        canvas.fill(frame, style: theme.panel)
        let count = panel.isLoading ? "" : " (\(panel.notes.count))"
        canvas.drawBox(frame, style: theme.border, title: "Backlinks of \"" + TerminalSafe.escape(panel.title) + "\"" + count, titleStyle: theme.title)
        let inner = Rect(x: frame.x + 1, y: frame.y + 1, width: frame.width - 2, height: frame.height - 2)
        let (body, hintLine) = inner.splitBottom(1)
        canvas.put("↑↓ note · Enter open it · Esc close", in: hintLine.inset(left: 1, right: 1), alignment: .left, style: theme.muted)
        let empty = panel.error ?? (panel.isLoading ? "Asking the index…" : "No notes link here")
        var list = panel.list
        // What another member wrote is shown, never obeyed.
        let rows = panel.rows(format: model.format).map { ListRow($0.cells.map { TerminalSafe.escape($0) }, searchText: $0.searchKey) }
        ListView(columns: Self.columns, rows: rows, emptyHint: empty).render(into: canvas, area: body, state: &list)
        if list != panel.list { model.updateQuietly { $0.links.panel?.list = list } }
        // Over the frame's own (the screen below was drawn first): the clock tick redraws these too.
        var times = model.state.relativeTimes
        for note in panel.notes { times.drew(note.modified, format: model.format) }
        if times != model.state.relativeTimes { model.updateQuietly { $0.relativeTimes = times } }
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        guard let panel = model.state.links.panel else { return .ignored }
        if let action = Self.bindings.action(for: key) {
            onAction?(action)
            return .consumed
        }
        var list = panel.list
        let rows = panel.rows(format: model.format)
        if key.isMouse {
            if let delta = key.wheelRows {
                _ = list.scroll(by: delta, count: rows.count)
            } else if case .mouse(let x, let y) = key {
                _ = list.click(at: Point(x: x, y: y), rows: rows)
            }
            if list != panel.list { model.update { $0.links.panel?.list = list } }
            return .consumed
        }
        if list.handle(key, rows: rows, bindings: listBindings) != .ignored {
            model.update { $0.links.panel?.list = list }
            return .consumed
        }
        // Ctrl-C, Ctrl-L, F1 still reach the global keys, and Ctrl-O the editor's Back; nothing
        // else reaches the editor below, which would take a letter as text or a Ctrl-X as a cut.
        switch key {
        case .ctrl("c"), .ctrl("l"), .ctrl("o"), .f: return .ignored
        default: return .consumed
        }
    }

    func commands() -> [Command] {
        Self.bindings.commands + listBindings.commands
    }
}
