import Remote
import TerminalUI

/// The bottom layer: the tab bar, the active tab's list and the status bar.
///
/// Keys go to the list first (so that while the filter is typed, letters are text), then to
/// ``bindings``; what neither takes falls to the compositor's global keys (help, redraw,
/// Ctrl-C). Help lists these same tables.
@MainActor
public final class MainScreen: Layer {
    /// What the shell's own keys do.
    public enum Action: Hashable, Sendable {
        case nextTab, previousTab, notes, photos, refresh, quit
    }

    /// The shell's keys. The compositor adds `?`/F1, Ctrl-L and Ctrl-C to the same group.
    public static let bindings = KeyBindings<Action>(group: "General", [
        .init([.tab], .nextTab, "Next tab"),
        .init([.backTab], .previousTab, "Previous tab"),
        .init([.char("1")], .notes, "Notes tab"),
        .init([.char("2")], .photos, "PanoPhotos tab"),
        .init([.char("r")], .refresh, "Refresh"),
        .init([.char("q")], .quit, "Quit"),
    ])

    /// The list keys, without Enter until the editor and the photo download exist (issues 6, 7).
    static func listBindings(group: String) -> KeyBindings<ListState.Action> {
        KeyBindings(group: group, ListState.bindings.bindings.filter { $0.action != .activate })
    }

    static let notesColumns = [
        ListColumn("Title"),
        ListColumn("Size", width: .fixed(8), alignment: .right, isSecondary: true),
        ListColumn("Modified", width: .fixed(12), isSecondary: true),
    ]
    static let photoColumns = [
        ListColumn("Name"),
        ListColumn("Size", width: .fixed(8), alignment: .right, isSecondary: true),
        ListColumn("Date", width: .fixed(10), isSecondary: true),
    ]

    private unowned let app: ClubApp
    private var lastArea = Rect.zero

    init(app: ClubApp) {
        self.app = app
    }

    private var tabBar: TabBar {
        TabBar(titles: Tab.allCases.map(\.title), active: app.state.tab.rawValue, trailing: "byteclub")
    }

    /// The rows of `tab`'s list, formatted against the injected clock.
    func rows(_ tab: Tab) -> [ListRow] {
        let format = app.configuration.format
        switch tab {
        case .notes:
            return app.state.notes.entries.map { entry in
                ListRow([ClubLayout.title(of: entry.name), DisplayFormat.size(entry.size), format.relative(entry.modified)])
            }
        case .photos:
            return app.state.photos.entries.map { entry in
                ListRow([entry.name, DisplayFormat.size(entry.size), format.day(entry.modified)])
            }
        }
    }

    public func render(into canvas: any Canvas, area: Rect) {
        lastArea = area
        let state = app.state
        let (top, rest) = area.splitTop(1)
        var (pane, bottom) = rest.splitBottom(1)
        tabBar.render(into: canvas, area: top)

        let listing = state[state.tab]
        if let error = listing.error {
            let line: Rect
            (line, pane) = pane.splitTop(1)
            canvas.fill(line, style: canvas.theme.text)
            canvas.put("✗ " + error + " · r to retry", in: line.inset(left: 1, right: 1), alignment: .left, style: canvas.theme.error)
        }
        let hint: String
        switch (state.tab, listing.hasLoaded) {
        case (_, false) where listing.error == nil: hint = "Loading \(state.tab.noun)…"
        case (_, false): hint = "Nothing loaded yet. Press r to try again."
        case (.notes, true): hint = "No notes yet. Press n to write one."
        case (.photos, true): hint = "No photos in \(app.configuration.layout.photosFolder) yet."
        }
        var list = listing.list
        ListView(columns: state.tab == .notes ? Self.notesColumns : Self.photoColumns, rows: rows(state.tab), emptyHint: hint)
            .render(into: canvas, area: pane, state: &list)
        // Drawing clamps the selection and learns the page size; keep that without a redraw.
        if list != listing.list { app.silentlyUpdate(state.tab, list: list) }

        var progress: String?
        if state.runningTransfers > 0 { progress = state.runningTransfers == 1 ? "1 transfer" : "\(state.runningTransfers) transfers" }
        StatusBar(backend: state.backend, isBusy: state.isBusy, tick: app.compositor.tick, message: state.message,
                  progress: progress, hint: "? help").render(into: canvas, area: bottom)
    }

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
        if case .mouse(let x, let y) = key {
            if let index = tabBar.hitTest(Point(x: x, y: y), in: lastArea.row(0)), let tab = Tab(rawValue: index) {
                app.select(tab)
                return .consumed
            }
            return .ignored
        }
        let tab = app.state.tab
        let rows = rows(tab)
        var list = app.state[tab].list
        let outcome = list.handle(key, rows: rows, bindings: Self.listBindings(group: tab.title))
        if outcome != .ignored {
            app.update { $0[tab].list = list }
            return .consumed
        }
        guard let action = Self.bindings.action(for: key) else { return .ignored }
        switch action {
        case .nextTab, .previousTab:
            // Two tabs: forward and back are the same move.
            app.select(tab == .notes ? .photos : .notes)
        case .notes: app.select(.notes)
        case .photos: app.select(.photos)
        case .refresh: app.refresh(tab)
        case .quit: app.requestQuit()
        }
        return .consumed
    }

    public func commands() -> [Command] {
        let tab = app.state.tab
        var commands = Self.bindings.commands
        commands.append(Command(keys: [], description: "Switch to that tab", group: "General", keyLabel: "Click a tab"))
        if app.state[tab].list.isEditingFilter { commands += ListState.filterBindings.commands }
        return commands + Self.listBindings(group: tab.title).commands
    }
}

extension ClubApp {
    /// Stores list state learned while drawing, without asking for another frame.
    func silentlyUpdate(_ tab: Tab, list: ListState) {
        updateWithoutRedraw { $0[tab].list = list }
    }
}
