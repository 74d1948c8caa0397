import Remote
import TerminalUI

/// The bottom layer: the tab bar, the active tab (the notes list and the editor pane, or the
/// photos with their thumbnails) and the status bar.
///
/// Keys go to the open editor first, then to the list (so that while the filter is typed,
/// letters are text), then to the tab's and the shell's ``bindings``; what none takes falls to
/// the compositor's global keys (help, redraw, Ctrl-C). Help lists these same tables.
@MainActor
public final class MainScreen: Layer {
    /// What the shell's own keys do.
    public enum Action: Hashable, Sendable {
        case nextTab, previousTab, notes, photos, refresh, quit
    }

    /// What the Notes tab's keys do.
    public enum NotesAction: Hashable, Sendable {
        case open, new, delete, rename
    }

    /// What the PanoPhotos tab's keys do.
    public enum PhotosAction: Hashable, Sendable {
        case download, upload, delete, preview, transfers
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

    public static let notesBindings = KeyBindings<NotesAction>(group: "Notes", [
        .init([.enter], .open, "Open the note in the editor"),
        .init([.char("n")], .new, "New note"),
        .init([.char("d"), .delete], .delete, "Delete the note (asks first)"),
        .init([.char("R")], .rename, "Rename the note"),
    ])

    public static let photosBindings = KeyBindings<PhotosAction>(group: "PanoPhotos", [
        .init([.enter], .download, "Download the photo (resumes a paused one)"),
        .init([.char("u")], .upload, "Upload a photo"),
        .init([.char("d"), .delete], .delete, "Delete the photo (asks first)"),
        .init([.char("p")], .preview, "Show or hide the preview pane"),
        .init([.char("t")], .transfers, "Show the running transfer"),
    ])

    /// The list movement keys; Enter belongs to each tab's own table.
    static func listBindings(group: String) -> KeyBindings<ListState.Action> {
        KeyBindings(group: group, ListState.bindings.bindings.filter { $0.action != .activate })
    }

    static let notesColumns = [
        ListColumn("Title"),
        ListColumn("Size", width: .fixed(8), alignment: .right, isSecondary: true),
        ListColumn("Modified", width: .fixed(12), isSecondary: true),
    ]

    /// Text lines per photo row; the thumbnail is as tall.
    static let photoRowHeight = 4
    /// The thumbnail's width in cells (a panorama of 4:1 fills it at 4 rows of half blocks).
    static let thumbnailColumns = 24

    private unowned let app: ClubApp
    private var lastArea = Rect.zero
    /// Thumbnails already turned into cells, by thumbnail key, size and color depth.
    private var cellCache: [String: CellImage] = [:]
    /// Whether the preview pane shows the selected photo larger.
    public var showsPreview = false

    init(app: ClubApp) {
        self.app = app
    }

    private var tabBar: TabBar {
        TabBar(titles: Tab.allCases.map(\.title), active: app.state.tab.rawValue, trailing: "byteclub")
    }

    // MARK: Rows

    /// The notes list's rows: a draft of a note the server lacks reads "✎ title (draft)"; a note
    /// with a draft is marked "✎".
    static func noteRows(_ items: [NoteItem], format: DisplayFormat) -> [ListRow] {
        items.map { item in
            switch item {
            case .draft(let draft):
                let title = draft.title.isEmpty ? "untitled" : draft.title
                return ListRow(["✎ " + title + " (draft)", DisplayFormat.size(Int64(draft.body.utf8.count)), format.relative(draft.updated)],
                               searchText: title)
            case .note(let entry, let hasDraft):
                let title = ClubLayout.title(of: entry.name)
                return ListRow([(hasDraft ? "✎ " : "") + title, DisplayFormat.size(entry.size), format.relative(entry.modified)],
                               searchText: title)
            }
        }
    }

    func photoRows() -> [ListRow] {
        app.state.photos.entries.map { ListRow([$0.name], searchText: $0.name) }
    }

    /// The rows `tab`'s list keys work on.
    func rows(_ tab: Tab) -> [ListRow] {
        tab == .notes ? app.noteListing.rows : photoRows()
    }

    // MARK: Drawing

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
        switch state.tab {
        case .notes: renderNotes(into: canvas, pane: pane)
        case .photos: renderPhotos(into: canvas, pane: pane)
        }

        var progress: String?
        let active = app.activeTransfers
        if let first = active.first {
            progress = first.progress.statusText(nameWidth: 18) + (active.count > 1 ? " +\(active.count - 1)" : "")
        } else if state.runningTransfers > 0 {
            progress = state.runningTransfers == 1 ? "1 transfer" : "\(state.runningTransfers) transfers"
        }
        StatusBar(backend: state.backend, isBusy: state.isBusy || !active.isEmpty, tick: app.compositor.tick, message: state.message,
                  progress: progress, hint: "? help").render(into: canvas, area: bottom)
    }

    private func emptyHint(_ tab: Tab) -> String {
        let listing = app.state[tab]
        switch (tab, listing.hasLoaded) {
        case (_, false) where listing.error == nil: return "Loading \(tab.noun)…"
        case (_, false): return "Nothing loaded yet. Press r to try again."
        case (.notes, true): return "No notes yet. Press n to write one."
        case (.photos, true): return "No photos in \(app.configuration.layout.photosFolder) yet. Press u to upload one."
        }
    }

    private func renderNotes(into canvas: any Canvas, pane: Rect) {
        let session = app.noteSession
        var listArea = pane, editorArea = Rect.zero
        if session != nil {
            if pane.width >= 90 {
                let listWidth = max(30, pane.width * 36 / 100)
                listArea = Rect(x: pane.x, y: pane.y, width: listWidth, height: pane.height)
                editorArea = Rect(x: pane.x + listWidth + 1, y: pane.y, width: pane.width - listWidth - 1, height: pane.height)
                for y in pane.y..<pane.maxY { canvas.put("│", at: Point(x: pane.x + listWidth, y: y), style: canvas.theme.border) }
            } else {
                // Too narrow for both: the editor takes the pane (the list while loading).
                if session?.phase != .loading { listArea = .zero }
                editorArea = session?.phase == .loading ? listArea.splitBottom(1).bottom : pane
                if session?.phase == .loading { listArea = listArea.splitBottom(1).rest }
            }
        }
        if !listArea.isEmpty {
            var list = app.state.notes.list
            ListView(columns: Self.notesColumns, rows: app.noteListing.rows, emptyHint: emptyHint(.notes),
                     isFocused: session == nil || session?.phase == .loading)
                .render(into: canvas, area: listArea, state: &list)
            // Drawing clamps the selection and learns the page size; keep that without a redraw.
            if list != app.state.notes.list { app.silentlyUpdate(.notes, list: list) }
        }
        guard let session, !editorArea.isEmpty else { return }
        if session.phase == .loading {
            canvas.fill(editorArea, style: canvas.theme.text)
            let spinner = StatusBar.spinnerFrames[app.compositor.tick % StatusBar.spinnerFrames.count]
            let name = session.entry?.name ?? ""
            canvas.put("\(spinner) Opening \"\(name)\"… Esc stops", in: editorArea.row(editorArea.height / 2).inset(left: 1, right: 1),
                       alignment: .center, style: canvas.theme.muted)
            return
        }
        var banner = session.banner
        if session.phase == .saving { banner = "Saving…" + (banner.map { " · " + $0 } ?? "") }
        // Drawn in place (it learns its scroll position), without a copy of the note or a new frame.
        app.withEditorQuietly { editor in
            NoteEditor(isModified: session.isModified, banner: banner).render(into: canvas, area: editorArea, state: &editor)
        }
    }

    private func renderPhotos(into canvas: any Canvas, pane: Rect) {
        var listArea = pane
        var previewArea = Rect.zero
        if showsPreview, pane.width >= 60 {
            let listWidth = max(40, pane.width / 2)
            listArea = Rect(x: pane.x, y: pane.y, width: listWidth, height: pane.height)
            previewArea = Rect(x: pane.x + listWidth + 1, y: pane.y, width: pane.width - listWidth - 1, height: pane.height)
            for y in pane.y..<pane.maxY { canvas.put("│", at: Point(x: pane.x + listWidth, y: y), style: canvas.theme.border) }
        }
        var list = app.state.photos.list
        let entries = app.state.photos.entries
        let rows = photoRows()
        let theme = canvas.theme
        canvas.fill(listArea, style: theme.text)
        var body = listArea
        if list.isFiltering { body = body.splitBottom(1).rest }
        let visible = list.visibleIndices(in: rows)
        let perPage = max(1, body.height / (Self.photoRowHeight + 1))
        list.pageSize = perPage
        list.clamp(count: visible.count, height: perPage)
        if visible.isEmpty {
            let hint = rows.isEmpty ? emptyHint(.photos) : "No matches for “\(list.filter)”"
            canvas.put(hint, in: body.row(body.height / 2), alignment: .center, style: theme.muted)
        }
        var shown: [RemoteEntry] = []
        let depth = canvas.colorDepth
        for position in list.offset..<min(visible.count, list.offset + perPage) {
            let entry = entries[visible[position]]
            shown.append(entry)
            let rowTop = body.y + (position - list.offset) * (Self.photoRowHeight + 1)
            let row = Rect(x: body.x, y: rowTop, width: body.width, height: Self.photoRowHeight)
            let selected = position == list.selected
            let textStyle = selected ? theme.selection : theme.text
            let thumbArea = Rect(x: row.x + 1, y: row.y, width: min(Self.thumbnailColumns, max(0, row.width - 2)), height: row.height)
            let textArea = Rect(x: thumbArea.maxX + 2, y: row.y, width: max(0, row.maxX - thumbArea.maxX - 3), height: row.height)
            if selected { canvas.fill(Rect(x: textArea.x - 1, y: row.y, width: textArea.width + 2, height: row.height), style: textStyle) }
            drawThumbnail(entry, in: thumbArea, canvas: canvas, depth: depth)
            canvas.put(entry.name, in: textArea.row(0), alignment: .left, style: textStyle.bold)
            let format = app.configuration.format
            canvas.put("\(DisplayFormat.size(entry.size)) · \(format.day(entry.modified))", in: textArea.row(1), alignment: .left,
                       style: selected ? textStyle : theme.muted)
            if let status = transferLine(for: entry) {
                canvas.put(status, in: textArea.row(2), alignment: .left, style: selected ? textStyle : theme.accent)
            }
        }
        app.thumbnails.keepOnly(shown)
        if list.isFiltering {
            ListView(columns: [ListColumn("Name")], rows: rows).drawFilterLine(canvas, listArea.splitBottom(1).bottom, state: list,
                                                                                matches: visible.count)
        }
        if list != app.state.photos.list { app.silentlyUpdate(.photos, list: list) }
        if !previewArea.isEmpty { renderPreview(into: canvas, area: previewArea, entry: list.selectedRow(in: rows).map { entries[$0] }) }
    }

    /// "paused 42%", "↓ 37%", "↑ 12%" under a photo's name.
    private func transferLine(for entry: RemoteEntry) -> String? {
        if let running = app.activeTransfers.first(where: { $0.remotePath.lowercased() == entry.pathLower }) {
            return (running.progress.direction == .upload ? "↑ " : "↓ ") + running.progress.percentText
        }
        if let paused = app.state.paused[entry.pathLower] {
            return "paused \(paused.percent)% · Enter resumes"
        }
        return nil
    }

    private func drawThumbnail(_ entry: RemoteEntry, in area: Rect, canvas: any Canvas, depth: ColorDepth) {
        guard !area.isEmpty else { return }
        switch app.thumbnails.image(for: entry) {
        case .loading:
            canvas.fill(area, style: canvas.theme.muted)
            canvas.put("…", in: area.row(area.height / 2), alignment: .center, style: canvas.theme.muted)
        case .failed:
            canvas.put("✗ no preview", in: area.row(area.height / 2), alignment: .center, style: canvas.theme.error)
        case .ready(let image):
            let key = Thumbnails.key(entry, size: app.thumbnails.size) + "\(area.width)x\(area.height)\(depth)"
            let cells: CellImage
            if let cached = cellCache[key] {
                cells = cached
            } else {
                if cellCache.count > 600 { cellCache.removeAll(keepingCapacity: true) }
                cells = CellImage.render(PixelImage(width: image.width, height: image.height, bytes: image.pixels),
                                         columns: area.width, rows: area.height, depth: depth)
                cellCache[key] = cells
            }
            cells.draw(into: canvas, centeredIn: area)
        }
    }

    private func renderPreview(into canvas: any Canvas, area: Rect, entry: RemoteEntry?) {
        canvas.fill(area, style: canvas.theme.text)
        // Only the selected photo's preview is worth fetching; scrolled-past ones are dropped.
        app.previews.keepOnly(entry.map { [$0] } ?? [])
        guard let entry else { return }
        let (picture, caption) = area.inset(left: 1, right: 1).splitBottom(1)
        canvas.put(entry.name, in: caption, alignment: .center, style: canvas.theme.muted)
        switch app.previews.image(for: entry) {
        case .loading:
            canvas.put("Loading the preview…", in: picture.row(picture.height / 2), alignment: .center, style: canvas.theme.muted)
        case .failed(let why):
            canvas.put("✗ " + why, in: picture.row(picture.height / 2), alignment: .center, style: canvas.theme.error)
        case .ready(let image):
            let depth = canvas.colorDepth
            let key = "preview\n" + Thumbnails.key(entry, size: app.previews.size) + "\(picture.width)x\(picture.height)\(depth)"
            let cells = cellCache[key] ?? CellImage.render(PixelImage(width: image.width, height: image.height, bytes: image.pixels),
                                                           columns: picture.width, rows: picture.height, depth: depth)
            cellCache[key] = cells
            cells.draw(into: canvas, centeredIn: picture)
        }
    }

    // MARK: Keys

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
        if case .mouse(let x, let y) = key {
            if let index = tabBar.hitTest(Point(x: x, y: y), in: lastArea.row(0)), let tab = Tab(rawValue: index) {
                app.select(tab)
                return .consumed
            }
            return .ignored
        }
        let tab = app.state.tab
        // While a note loads, a filter being typed keeps its Esc; otherwise Esc abandons the load.
        let filterTyping = app.state.notes.list.isEditingFilter && app.noteSession?.phase == .loading
        if tab == .notes, !filterTyping, app.handleEditorKey(key) { return .consumed }
        if tab == .notes, let session = app.noteSession, session.phase != .loading {
            // The editor has the keys; what it leaves goes to the shell (Tab, Ctrl keys), not the list.
            return handleShellKey(key, tab: tab)
        }
        let rows = rows(tab)
        var list = app.state[tab].list
        let outcome = list.handle(key, rows: rows, bindings: Self.listBindings(group: tab.title))
        if outcome != .ignored {
            app.update { $0[tab].list = list }
            return .consumed
        }
        switch tab {
        case .notes:
            if let action = Self.notesBindings.action(for: key) {
                switch action {
                case .open: app.openSelectedNote()
                case .new: app.newNote()
                case .delete: app.deleteSelectedNote()
                case .rename: app.renameSelectedNote()
                }
                return .consumed
            }
        case .photos:
            if let action = Self.photosBindings.action(for: key) {
                switch action {
                case .download: app.downloadSelectedPhoto()
                case .upload: app.chooseUpload()
                case .delete: app.deleteSelectedPhoto()
                case .preview:
                    showsPreview.toggle()
                    app.compositor.setNeedsRedraw()
                case .transfers: app.showBackgroundTransfer()
                }
                return .consumed
            }
        }
        return handleShellKey(key, tab: tab)
    }

    private func handleShellKey(_ key: Key, tab: Tab) -> EventResult {
        guard let action = Self.bindings.action(for: key) else { return .ignored }
        // While the editor is open, only Tab and Shift-Tab of the shell keys apply: letters are text.
        // (While a note only loads, the list and the shell keep their keys.)
        if let session = app.noteSession, session.phase != .loading, tab == .notes, action != .nextTab, action != .previousTab {
            return .ignored
        }
        switch action {
        case .nextTab, .previousTab:
            // Two tabs: forward and back are the same move.
            app.select(tab == .notes ? .photos : .notes)
        case .notes: app.select(.notes)
        case .photos: app.select(.photos)
        case .refresh:
            if tab == .photos {
                app.thumbnails.retryFailures()
                app.previews.retryFailures()
            }
            app.refresh(tab)
        case .quit: app.requestQuit()
        }
        return .consumed
    }

    public func commands() -> [Command] {
        let tab = app.state.tab
        if tab == .notes, let session = app.noteSession, session.phase != .loading {
            // In the editor Tab indents; Shift-Tab still goes to the other tab.
            let tabKeys = KeyBindings(group: "General", Self.bindings.bindings.filter { $0.action == .previousTab })
            return NoteEditorState.commands + tabKeys.commands
        }
        var commands = Self.bindings.commands
        commands.append(Command(keys: [], description: "Switch to that tab", group: "General", keyLabel: "Click a tab"))
        if app.state[tab].list.isEditingFilter { commands += ListState.filterBindings.commands }
        commands += tab == .notes ? Self.notesBindings.commands : Self.photosBindings.commands
        return commands + Self.listBindings(group: tab.title).commands
    }
}

extension ClubApp {
    /// Stores list state learned while drawing, without asking for another frame.
    func silentlyUpdate(_ tab: Tab, list: ListState) {
        updateWithoutRedraw { $0[tab].list = list }
    }



    /// The photo under the selection.
    public var selectedPhoto: RemoteEntry? {
        let rows = screen.photoRows()
        guard let index = state.photos.list.selectedRow(in: rows), state.photos.entries.indices.contains(index) else { return nil }
        return state.photos.entries[index]
    }

    /// The selected item's path in `tab`, to keep the selection across a refresh.
    func selectedPath(_ tab: Tab) -> String? {
        switch tab {
        case .notes:
            if case .note(let entry, _)? = selectedNoteItem { return entry.pathLower }
            return nil
        case .photos:
            return selectedPhoto?.pathLower
        }
    }

    /// Selects the row of `path` (lowercased) in `tab`, if it is listed.
    func reselect(_ tab: Tab, path: String) {
        let rows = screen.rows(tab)
        let index: Int?
        switch tab {
        case .notes:
            index = noteItems.firstIndex { if case .note(let entry, _) = $0 { return entry.pathLower == path } else { return false } }
        case .photos:
            index = state.photos.entries.firstIndex { $0.pathLower == path }
        }
        guard let index else { return }
        var list = state[tab].list
        list.select(row: index, in: rows)
        update { $0[tab].list = list }
    }
}
