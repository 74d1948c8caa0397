import Remote
import TerminalUI

/// The history view, as a layer above the main screen: a note's revisions (who, when, size),
/// newest first, and beside them the diff of the selected revision against the current text.
///
/// ```
/// ╭─ History of "Trip plan" ──────────────────────────────────────────────────╮
/// │ Who            When                   Size │ Since this revision:       │
/// │ ann (current)  2026-11-22 10:42:07    48 B │   Day 1: Lyon             │
/// │ ray            2026-11-22 10:40:51    31 B │ - Day 2: rest             │
/// │                                            │ + Day 2: Annecy           │
/// │ ↑↓ revision · Enter restore it · Esc close                               │
/// ╰───────────────────────────────────────────────────────────────────────────╯
/// ```
/// It draws ``AppState/history`` and turns keys into calls on its delegate; it changes only
/// the list's view state (the selection), as the main screen does.
@MainActor
final class HistoryLayer: Layer {
    /// What the history's keys do.
    enum Action: Hashable, Sendable { case restore, close }

    static let bindings = KeyBindings<Action>(group: "History", [
        .init([.enter], .restore, "Restore the selected revision (asks first)"),
        .init([.escape, .char("q")], .close, "Close the history"),
    ])

    static let columns = [
        ListColumn("Who", width: .flexible(minimum: 8)),
        ListColumn("When", width: .fixed(19), isSecondary: true),
        ListColumn("Size", width: .fixed(10), alignment: .right, isSecondary: true),
    ]

    let model: AppModel
    /// Called with the key's action; the controller carries it out.
    var onAction: (@MainActor (Action) -> Void)?
    /// Called when the selection moved (the controller fetches that revision's text).
    var onSelectionChanged: (@MainActor () -> Void)?

    init(model: AppModel) {
        self.model = model
    }

    private var listBindings: KeyBindings<ListState.Action> {
        KeyBindings(group: "History", ListState.bindings.bindings.filter { [.up, .down, .pageUp, .pageDown, .first, .last].contains($0.action) })
    }

    func render(into canvas: any Canvas, area: Rect) {
        guard let history = model.state.history else { return }
        let theme = canvas.theme
        // Below the tab bar and above the status bar, so both still say what goes on.
        let frame = Rect(x: area.x, y: area.y + 1, width: area.width, height: max(0, area.height - 2))
        guard frame.width >= 20, frame.height >= 6 else { return }
        canvas.fill(frame, style: theme.panel)
        let title = "History of \"" + TerminalSafe.escape(ClubLayout.title(of: history.entry.name)) + "\""
        canvas.drawBox(frame, style: theme.border, title: title, titleStyle: theme.title)
        var inner = frame.inset(left: 1, right: 1)
        inner = Rect(x: inner.x, y: inner.y + 1, width: inner.width, height: inner.height - 2)
        let (body, hintLine) = inner.splitBottom(1)
        let hint = history.isRestoring ? "Restoring…" : "↑↓ revision · Enter restore it · Esc close"
        canvas.put(hint, in: hintLine.inset(left: 1, right: 1), alignment: .left, style: theme.muted)

        // Side by side when there is room; the list above the diff otherwise.
        var listArea = body, diffArea = Rect.zero
        if body.width >= 90 {
            let listWidth = min(52, body.width * 45 / 100)
            listArea = Rect(x: body.x, y: body.y, width: listWidth, height: body.height)
            diffArea = Rect(x: body.x + listWidth + 1, y: body.y, width: body.width - listWidth - 1, height: body.height)
            for y in body.y..<body.maxY { canvas.put("│", at: Point(x: body.x + listWidth, y: y), style: theme.border) }
        } else {
            let listHeight = min(body.height / 2, history.revisions.count + 2)
            listArea = Rect(x: body.x, y: body.y, width: body.width, height: max(3, listHeight))
            diffArea = Rect(x: body.x, y: listArea.maxY, width: body.width, height: max(0, body.maxY - listArea.maxY))
        }

        var list = history.list
        let hintText = history.error ?? (history.isLoading ? "Loading the revisions…" : "No revisions")
        ListView(columns: Self.columns, rows: history.rows(format: model.format), emptyHint: hintText)
            .render(into: canvas, area: listArea, state: &list)
        if list != history.list { model.updateQuietly { $0.history?.list = list } }
        renderDiff(history, into: canvas, area: diffArea)
    }

    private func renderDiff(_ history: NoteHistory, into canvas: any Canvas, area: Rect) {
        guard !area.isEmpty else { return }
        let theme = canvas.theme
        let (header, rest) = area.splitTop(1)
        let text = area.inset(left: 1, right: 1)
        guard let selected = history.selected else { return }
        if selected.rev == history.revisions.first?.rev {
            canvas.put("This is the current text", in: header.inset(left: 1, right: 1), alignment: .left, style: theme.muted)
            return
        }
        guard let diff = history.diff else {
            let what = history.error == nil ? "Fetching this revision…" : ""
            canvas.put(what, in: header.inset(left: 1, right: 1), alignment: .left, style: theme.muted)
            return
        }
        let added = diff.filter { $0.kind == .added }.count, removed = diff.filter { $0.kind == .removed }.count
        canvas.put("Since this revision: +\(added) −\(removed) lines", in: header.inset(left: 1, right: 1), alignment: .left, style: theme.header)
        // From a little before the first change, so what changed is in sight.
        let first = diff.firstIndex { $0.kind != .same } ?? 0
        let start = max(0, min(first - 2, diff.count - rest.height))
        for (row, line) in diff[start...].prefix(rest.height).enumerated() {
            let (mark, style): (String, Style)
            switch line.kind {
            case .same: (mark, style) = ("  ", theme.text)
            case .added: (mark, style) = ("+ ", theme.success)
            case .removed: (mark, style) = ("- ", theme.error)
            }
            let y = rest.y + row
            canvas.put(mark + line.text, in: Rect(x: text.x, y: y, width: text.width, height: 1), alignment: .left, style: style)
        }
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        guard let history = model.state.history else { return .ignored }
        if let action = Self.bindings.action(for: key) {
            onAction?(action)
            return .consumed
        }
        var list = history.list
        if key.isMouse {
            // The wheel scrolls the revisions, a click selects one; the diff follows either way.
            let rows = history.rows(format: model.format)
            if let delta = key.wheelRows {
                _ = list.scroll(by: delta, count: list.visibleIndices(in: rows).count)
            } else if case .mouse(let x, let y) = key {
                _ = list.click(at: Point(x: x, y: y), rows: rows)
            }
            if list != history.list {
                model.update { $0.history?.list = list }
                onSelectionChanged?()
            }
            return .consumed
        }
        let outcome = list.handle(key, rows: history.rows(format: model.format), bindings: listBindings)
        if outcome != .ignored {
            model.update { $0.history?.list = list }
            onSelectionChanged?()
            return .consumed
        }
        // Control and function keys (Ctrl-C, Ctrl-L, F1) and help still reach the global keys;
        // nothing else reaches the list below.
        switch key {
        case .ctrl, .f, .char("?"): return .ignored
        default: return .consumed
        }
    }

    func commands() -> [Command] {
        Self.bindings.commands + listBindings.commands
    }
}
