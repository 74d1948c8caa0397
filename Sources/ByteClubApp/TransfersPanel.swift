import Remote
import TerminalUI

/// The Transfers panel (`T`), as a layer above the lists: one row per upload or download, with
/// its direction, name, bar, percentage, rate, time left and state.
///
/// ```
/// ╭─ Transfers ↑2 ↓1 43% ──────────────────────────────────────────────────────╮
/// │    Name                    Progress              Rate     Left  State      │
/// │  ↑ trip-1.jpg              ██████████░░░░░░  62%  1.0 MB/s  0:04  running  │
/// │  ↑ trip-2.jpg              ████░░░░░░░░░░░░  25%  1.0 MB/s  0:09  running  │
/// │  ↓ alps-sunrise.jpg        ░░░░░░░░░░░░░░░░   0%                 queued   │
/// │                                                                            │
/// │  Esc/c cancel · p pause/resume · r retry · x clear · T close               │
/// ╰────────────────────────────────────────────────────────────────────────────╯
/// ```
/// It draws ``AppState/transfers`` and hands its keys, with the selected transfer, to its
/// owner (PhotosController+Transfers.swift). Esc cancels here, so `T` (or `q`) closes it.
@MainActor
public final class TransfersPanel: Layer {
    /// What the panel's keys do.
    public enum Action: Hashable, Sendable { case cancel, pause, retry, clear, close }

    public static let bindings = KeyBindings<Action>(group: "Transfers", [
        .init([.escape, .char("c")], .cancel, "Cancel the selected transfer"),
        .init([.char("p")], .pause, "Pause or resume the selected download"),
        .init([.char("r")], .retry, "Retry the selected failed transfer"),
        .init([.char("x")], .clear, "Clear the finished rows"),
        .init([.char("T"), .char("q")], .close, "Close the Transfers panel"),
    ])

    /// The hint line (end-to-end tests look for its start).
    static let hint = "Esc/c cancel · p pause/resume · r retry · x clear · T close"

    private static let moveBindings = KeyBindings<ListState.Action>(group: "Transfers",
        ListState.bindings.bindings.filter { [.up, .down, .pageUp, .pageDown, .first, .last].contains($0.action) })

    let model: AppModel
    /// Called with a key's action and the selected transfer's id.
    var onAction: (@MainActor (Action, Int?) -> Void)?
    /// The selected transfer, by id, so the selection stays on it while rows come and go.
    private(set) var selectedID: Int?
    /// The first row shown.
    private var offset = 0
    /// Where the last frame drew the rows, for clicks and the wheel (the panel's own state,
    /// like ``offset``: it is a layer of its own).
    private var rowsFrame = Rect.zero

    init(model: AppModel) {
        self.model = model
    }

    /// The selected row's index in `rows`: the selected transfer's, or the nearest one left.
    private func selectedIndex(in rows: [PhotoTransfer]) -> Int? {
        guard !rows.isEmpty else { return nil }
        if let selectedID, let index = rows.firstIndex(where: { $0.id == selectedID }) { return index }
        if let selectedID, let next = rows.firstIndex(where: { $0.id > selectedID }) { return next }
        return selectedID == nil ? 0 : rows.count - 1
    }

    // MARK: Drawing

    /// Column widths for a row `width` cells wide: the rate and time left go first when room
    /// is short, then the bar.
    struct Columns: Equatable {
        var name: Int
        var bar: Int
        var rate: Bool
        var eta: Bool

        /// The widest rate: "1023.9 KiB/s" (``ByteFormat/rate(_:)``).
        static let rateWidth = 12

        init(width: Int) {
            // "↑ " · name · " " bar · " " NNN% · "  " rate(12) · "  " eta(7) · "  " state(9)
            rate = true
            eta = true
            func fixed(_ rate: Bool, _ eta: Bool) -> Int { 2 + 5 + (rate ? 2 + Self.rateWidth : 0) + (eta ? 9 : 0) + 11 }
            while fixed(rate, eta) + 12 + 9 > width, rate || eta {
                if eta { eta = false } else { rate = false }
            }
            let room = max(0, width - fixed(rate, eta))
            if room >= 21 {
                name = min(32, max(12, room * 45 / 100))
                bar = room - name - 1
            } else {
                name = room
                bar = 0
            }
        }
    }

    public func render(into canvas: any Canvas, area: Rect) {
        let theme = canvas.theme
        // Below the tab bar and above the status bar, which sums the transfers.
        let frame = Rect(x: area.x, y: area.y + 1, width: area.width, height: max(0, area.height - 2)).intersection(canvas.bounds)
        guard frame.width >= 20, frame.height >= 5 else { return }
        canvas.fill(frame, style: theme.panel)
        let summary = model.state.transferFigure.map { " " + $0 } ?? ""
        canvas.drawBox(frame, style: theme.border, title: "Transfers" + summary, titleStyle: theme.title)
        let inner = frame.inset(top: 1, left: 2, bottom: 1, right: 2)
        let (body, hintLine) = inner.splitBottom(1)
        canvas.put(TextWidth.truncate(Self.hint, to: hintLine.width), in: hintLine, alignment: .left, style: theme.muted)

        let rows = model.state.transferRows
        let columns = Columns(width: body.width)
        let (header, list) = body.splitTop(1)
        rowsFrame = rows.isEmpty ? .zero : list
        var headerText = "  " + TextWidth.pad("Name", to: columns.name)
        if columns.bar > 0 { headerText += " " + TextWidth.pad("Progress", to: columns.bar) }
        headerText += "     " + (columns.rate ? "  " + TextWidth.pad("Rate", to: Columns.rateWidth, alignment: .right) : "")
            + (columns.eta ? "  " + TextWidth.pad("Left", to: 7, alignment: .right) : "") + "  State"
        canvas.put(headerText, in: header, alignment: .left, style: theme.header)
        guard !rows.isEmpty else {
            let empty = "No transfers. u uploads photos, Enter downloads one."
            canvas.put(empty, in: list.row(list.height / 2), alignment: .center, style: theme.muted)
            return
        }
        let selected = selectedIndex(in: rows) ?? 0
        if selectedID == nil || rows[selected].id != selectedID { selectedID = rows[selected].id }
        let height = max(1, list.height)
        offset = min(max(offset, selected - height + 1), selected)
        offset = max(0, min(offset, rows.count - height))
        for (line, index) in (offset..<min(rows.count, offset + height)).enumerated() {
            let row = Rect(x: list.x, y: list.y + line, width: list.width, height: 1)
            draw(rows[index], in: row, columns: columns, isSelected: index == selected, canvas: canvas)
        }
    }

    private func draw(_ transfer: PhotoTransfer, in row: Rect, columns: Columns, isSelected: Bool, canvas: any Canvas) {
        let theme = canvas.theme
        let base = isSelected ? theme.selection : theme.panel
        canvas.fill(row, style: base)
        let p = transfer.progress
        var x = row.x
        func put(_ text: String, width: Int, alignment: TextWidth.Alignment = .left, style: Style) {
            guard width > 0, x < row.maxX else { return }
            let cell = Rect(x: x, y: row.y, width: min(width, row.maxX - x), height: 1)
            canvas.put(TextWidth.truncate(text, to: cell.width), in: cell, alignment: alignment, style: style)
            x += width
        }
        put(p.direction == .upload ? "↑" : "↓", width: 2, style: base.bold)
        // The name came from the server or the disk: shown with its control characters escaped.
        put(TerminalSafe.escape(p.name), width: columns.name, style: base)
        if columns.bar > 0 {
            x += 1
            drawBar(p.fraction ?? 0, at: Point(x: x, y: row.y), width: min(columns.bar, row.maxX - x), canvas: canvas)
            x += columns.bar
        }
        let state = transfer.rowState
        put(state == .queued ? "" : p.percentText, width: 5, alignment: .right, style: base.bold)
        let moving = state == .running
        if columns.rate {
            x += 2
            let rate = moving ? p.rateText : (state == .done ? p.averageRate.map(ByteFormat.rate) ?? "" : "")
            put(rate, width: Columns.rateWidth, alignment: .right, style: base)
        }
        if columns.eta {
            x += 2
            put(moving ? p.etaText : "", width: 7, alignment: .right, style: base)
        }
        x += 2
        let stateStyle: Style
        switch state {
        case .failed: stateStyle = isSelected ? base : theme.error
        case .done: stateStyle = isSelected ? base : theme.success
        case .queued, .paused, .cancelled: stateStyle = isSelected ? base : theme.muted
        case .running: stateStyle = base
        }
        put(state.rawValue, width: 9, style: stateStyle)
    }

    private func drawBar(_ fraction: Double, at origin: Point, width: Int, canvas: any Canvas) {
        guard width > 0 else { return }
        let filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded(.down))
        let clip = Rect(x: origin.x, y: origin.y, width: width, height: 1)
        let x = canvas.put(String(repeating: "█", count: filled), at: origin, style: canvas.theme.progressFilled, clip: clip)
        canvas.put(String(repeating: "░", count: width - filled), at: Point(x: x, y: origin.y), style: canvas.theme.progressEmpty, clip: clip)
    }

    // MARK: Keys

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
        let rows = model.state.transferRows
        if key.isMouse {
            handleMouse(key, rows: rows)
            context.setNeedsRedraw()
            return .consumed  // the panel is modal: a click beside it does not reach the list below
        }
        if let action = Self.bindings.action(for: key) {
            let id = selectedIndex(in: rows).map { rows[$0].id }
            onAction?(action, id)
            return .consumed
        }
        if let move = Self.moveBindings.action(for: key), let current = selectedIndex(in: rows) {
            let page = 5
            let target: Int
            switch move {
            case .up: target = current - 1
            case .down: target = current + 1
            case .pageUp: target = current - page
            case .pageDown: target = current + page
            case .first: target = 0
            default: target = rows.count - 1
            }
            selectedID = rows[min(max(0, target), rows.count - 1)].id
            context.setNeedsRedraw()
            return .consumed
        }
        // Control and function keys (Ctrl-C, Ctrl-L, F1) and help still reach the global keys;
        // nothing else reaches the lists below.
        switch key {
        case .ctrl, .f, .char("?"), .resize: return .ignored
        default: return .consumed
        }
    }

    public func commands() -> [Command] {
        Self.bindings.commands + Self.moveBindings.commands + [
            Command(keys: [], description: "Select the transfer", group: "Transfers", keyLabel: "Click a row"),
            Command(keys: [], description: "Scroll the transfers", group: "Transfers", keyLabel: "Wheel"),
        ]
    }

    /// A click selects the row under it; the wheel scrolls the rows, taking the selection
    /// along only when it would leave the view.
    private func handleMouse(_ key: Key, rows: [PhotoTransfer]) {
        guard let point = key.mousePoint, rowsFrame.contains(point), !rows.isEmpty else { return }
        let height = max(1, rowsFrame.height)
        if let delta = key.wheelRows {
            offset = max(0, min(offset + delta, rows.count - height))
            let current = selectedIndex(in: rows) ?? 0
            let kept = min(max(current, offset), min(rows.count, offset + height) - 1)
            selectedID = rows[kept].id
        } else if case .mouse = key {
            let index = offset + point.y - rowsFrame.y
            if rows.indices.contains(index) { selectedID = rows[index].id }
        }
    }
}
