import Dispatch
import Remote
import TerminalUI

/// The bottom layer: the tab bar, the active tab (the notes list and the editor pane, or the
/// photos with their thumbnails) and the status bar.
///
/// It draws ``AppState`` (through the ``AppModel``) and turns keys into actions for its
/// ``MainScreenDelegate``; it never calls a controller or the network.
///
/// Keys go to the open editor first, then to the list (so that while the filter is typed,
/// letters are text), then to the tab's and the shell's ``bindings``; what none takes falls to
/// the compositor's global keys (help, redraw, Ctrl-C). Help lists these same tables.
@MainActor
public final class MainScreen: Layer {
    /// What the shell's own keys do.
    public enum Action: Hashable, Sendable {
        case nextTab, previousTab, notes, photos, refresh, quit, transfers
    }

    /// What the Notes tab's keys do.
    public enum NotesAction: Hashable, Sendable {
        case open, new, delete, rename, history, search, openInEditor, render
        /// The selected file (or note) handed to `$BYTECLUB_OPEN`, else `xdg-open`.
        case openWithSystem
        case share
        case tags, pin
        case newFolder, moveToFolder, upFolder
        /// The notes kept open with their edits (OpenNotes.swift), to choose one.
        case switchNote
        /// The mouse dragged the row `from` (an item of the list) onto the row `onto`.
        case drop(from: Int, onto: Int)
    }

    /// What the PanoPhotos tab's keys do.
    public enum PhotosAction: Hashable, Sendable {
        case download, upload, delete, preview, transfers, view
        case share
        case upAlbum
    }

    /// A key's action, as the screen hands it to its delegate.
    public enum Intent: Hashable, Sendable {
        /// Refresh or quit.
        case shell(Action)
        case notes(NotesAction)
        case photos(PhotosAction)
        /// Switch to a tab (1, 2, Tab, Shift-Tab, a click on the tab bar).
        case select(Tab)
    }

    /// The shell's keys. The compositor adds `?`/F1, Ctrl-L and Ctrl-C to the same group.
    public static let bindings = KeyBindings<Action>(group: "General", [
        .init([.tab], .nextTab, "Next tab"),
        .init([.backTab], .previousTab, "Previous tab"),
        .init([.char("1")], .notes, "Notes tab"),
        .init([.char("2")], .photos, "PanoPhotos tab"),
        .init([.char("r")], .refresh, "Refresh"),
        .init([.char("T")], .transfers, "Transfers panel (T closes)"),
        .init([.char("q"), .ctrl("c")], .quit, "Quit (asks first about unsaved edits)"),
    ])

    public static let notesBindings = KeyBindings<NotesAction>(group: "Notes", [
        .init([.enter], .open, "Open the note in the editor (a folder or a file: open it)"),
        .init([.backspace, .left], .upFolder, "Up a folder"),
        .init([.char("n")], .new, "New note"),
        .init([.char("N")], .newFolder, "New folder"),
        .init([.char("m")], .moveToFolder, "Move to folder (the note, or the folder, selected)"),
        .init([.char("d"), .delete], .delete, "Delete the note (asks first)"),
        .init([.char("R")], .rename, "Rename the note (on a folder: Rename folder)"),
        .init([.char("H")], .history, "History of the note"),
        .init([.char("s")], .share, "Share link (shown, copied)"),
        .init([.char("#")], .tags, "Edit the note's tags"),
        .init([.char("*")], .pin, "Pin or unpin the note"),
        .init([.ctrl("f")], .search, "Search every note (titles and bodies)"),
        .init([.char("e")], .openInEditor, "Open in $EDITOR"),
        .init([.char("o")], .openWithSystem, "Open with the system ($BYTECLUB_OPEN or xdg-open)"),
        .init([.char("v")], .render, "Rendered view of the note"),
        .init([.alt("o")], .switchNote, "Switch note: the notes kept open with their edits"),
    ])

    public static let photosBindings = KeyBindings<PhotosAction>(group: "PanoPhotos", [
        .init([.enter], .download, "Download the photo (resumes a paused one; on an album: open it)"),
        .init([.backspace, .left], .upAlbum, "Up a folder (from an album to all albums)"),
        .init([.char("u")], .upload, "Upload a photo"),
        .init([.char("d"), .delete], .delete, "Delete the photo (asks first)"),
        .init([.char("p")], .preview, "Show or hide the preview pane"),
        .init([.char("v")], .view, "View the photo full screen (pan, zoom)"),
        .init([.char("t")], .transfers, "Show the running transfer"),
        .init([.char("s")], .share, "Share link (shown, copied)"),
    ])

    /// The list movement keys; Enter belongs to each tab's own table.
    static func listBindings(group: String) -> KeyBindings<ListState.Action> {
        KeyBindings(group: group, ListState.bindings.bindings.filter { $0.action != .activate })
    }

    /// The notes list's columns; in a folder, the first one's title says which ("Trips/2026").
    static func notesColumns(in folder: NotesFolder) -> [ListColumn] {
        guard !folder.isRoot else { return notesColumns }
        return [ListColumn(FolderItem.upMark + " " + TerminalSafe.escape(folder.relative) + "/")] + notesColumns.dropFirst()
    }

    static let notesColumns = [
        ListColumn("Title"),
        ListColumn("Size", width: .fixed(10), alignment: .right, isSecondary: true),
        ListColumn("Modified", width: .fixed(12), isSecondary: true),
    ]

    /// Text lines per photo row; the thumbnail is as tall.
    static let photoRowHeight = 4
    /// The thumbnail's width in cells (a panorama of 4:1 fills it at 4 rows of half blocks).
    static let thumbnailColumns = 24

    let model: AppModel
    let configuration: AppConfiguration
    let thumbnails: Thumbnails
    let previews: Thumbnails
    /// Where the keys' actions go; the screen itself changes nothing but what drawing learns.
    weak var delegate: (any MainScreenDelegate)?
    /// The spinner's frame.
    var tick: () -> Int = { 0 }
    var lastArea = Rect.zero
    /// Tells double clicks on list rows from single ones (MainScreen+Mouse.swift).
    var clicks = ClickTracker()
    /// The notes row a press landed on: a release on a folder's row moves it there (a drag).
    var dragFrom: Int?
    /// Seconds on a monotonic clock, for ``clicks``; the app hands in its effects' clock, which
    /// tests turn by hand.
    var clock: @MainActor () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    /// Thumbnails already turned into cells, by thumbnail key, size and color depth.
    var cellCache: [String: CellImage] = [:]
    /// The open note's Markdown styles, parsed off the UI queue when the note is big.
    let markdown = MarkdownHighlighter()

    init(model: AppModel, configuration: AppConfiguration, thumbnails: Thumbnails, previews: Thumbnails) {
        self.model = model
        self.configuration = configuration
        self.thumbnails = thumbnails
        self.previews = previews
    }

    var tabBar: TabBar {
        TabBar(titles: Tab.allCases.map(\.title), active: model.state.tab.rawValue, trailing: "byteclub")
    }

    /// The rows `tab`'s list keys work on.
    func rows(_ tab: Tab) -> any ListRows {
        tab == .notes ? model.noteListing.rows : model.state.photoRows
    }

    // MARK: Drawing

    public func render(into canvas: any Canvas, area: Rect) {
        lastArea = area
        // Not the whole state: a copy held here would make the editor copy a big note when it
        // is drawn in place below.
        let tab = model.state.tab
        // The relative times this frame draws, noted as they are drawn (the layers above add
        // theirs): the clock tick redraws when the first of them would read otherwise.
        var times = RelativeTimes()
        let (top, rest) = area.splitTop(1)
        var (pane, bottom) = rest.splitBottom(1)
        tabBar.render(into: canvas, area: top)

        if let error = model.state[tab].error {
            let line: Rect
            (line, pane) = pane.splitTop(1)
            canvas.fill(line, style: canvas.theme.text)
            canvas.put("✗ " + TerminalSafe.escape(error) + " · r to retry", in: line.inset(left: 1, right: 1), alignment: .left, style: canvas.theme.error)
        } else if let cachedAt = model.state[tab].cachedAt {
            // An offline start: the list is the disk cache's, as the server gave it then.
            let line: Rect
            (line, pane) = pane.splitTop(1)
            canvas.fill(line, style: canvas.theme.text)
            let state = model.state.offline.isOffline ? "offline, not up to date · r to retry" : "updating…"
            canvas.put("◷ Cached \(configuration.format.relative(cachedAt)) · " + state, in: line.inset(left: 1, right: 1),
                       alignment: .left, style: canvas.theme.muted)
            times.drew(cachedAt, format: configuration.format)
        }
        switch tab {
        case .notes: if renderNotes(into: canvas, pane: pane) { times.noteChange(at: model.noteListing.rows.takeNextChange()) }
        case .photos: renderPhotos(into: canvas, pane: pane)
        }
        if times != model.state.relativeTimes { model.updateQuietly { $0.relativeTimes = times } }

        let state = model.state
        // One transfer by name, several summed ("↑2 ↓1 43%").
        let live = tab == .notes ? state.note?.live?.statusText.map(TerminalSafe.escape) : nil
        let progress = [live, state.offline.figure, state.transferFigure, state.indexing?.figure].compactMap { $0 }.joined(separator: "  ")
        // Messages escape what the server named where they are made; escaping again here (it
        // changes nothing twice) keeps a message that forgot from driving the terminal.
        let message = state.shownMessage.map { StatusMessage(TerminalSafe.escape($0.text), kind: $0.kind) }
        // The rendered view covers the editor (its layer draws between the bars): the status bar
        // says where the user is, and `?` is help there (the view takes it before the editor).
        let place = tab == .notes && state.noteView != nil ? state.note.map(Self.renderedViewPlace) : nil
        // In the editor `?` is typed: F1 is the help key there.
        let inEditor = place == nil && tab == .notes && state.note.map { $0.stage != .loading && $0.merge == nil } == true
        StatusBar(backend: state.backend, place: place, isBusy: state.isAnimating, tick: tick(), message: message,
                  progress: progress, hint: inEditor ? "F1 help" : "? help").render(into: canvas, area: bottom)
    }

    /// "Rendered view · Trip plan": the status bar's place while the rendered view is shown.
    static func renderedViewPlace(_ note: NoteSession) -> String {
        let title = note.editor.title.text.isEmpty ? ClubLayout.title(of: note.entry?.name ?? "") : note.editor.title.text
        return "Rendered view · " + TerminalSafe.escape(title.isEmpty ? "untitled" : title)
    }

    // MARK: Keys

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
        guard let delegate else { return .ignored }
        if key.isMouse { return handleMouse(key, delegate: delegate) }
        let tab = model.state.tab
        // The editor (EditorLayer, above) had the key first.
        if tab == .notes, let stage = model.state.note?.stage, stage != .loading {
            // The editor has the keys; what it leaves goes to the shell (Tab, Ctrl keys), not the list.
            return handleShellKey(key, tab: tab)
        }
        // The list's own keys move its selection and edit its filter: view state, kept here.
        var list = model.state[tab].list
        let outcome = list.handle(key, rows: rows(tab), bindings: Self.listBindings(group: tab.title))
        if outcome != .ignored {
            model.update { $0[tab].list = list }
            return .consumed
        }
        switch tab {
        case .notes:
            if let action = Self.notesBindings.action(for: key) {
                delegate.screen(perform: .notes(action))
                return .consumed
            }
        case .photos:
            if let action = Self.photosBindings.action(for: key) {
                delegate.screen(perform: .photos(action))
                return .consumed
            }
        }
        return handleShellKey(key, tab: tab)
    }

    private func handleShellKey(_ key: Key, tab: Tab) -> EventResult {
        guard let action = Self.bindings.action(for: key), let delegate else { return .ignored }
        // While the editor is open, only Tab and Shift-Tab of the shell keys apply: letters are text.
        // (While a note only loads, the list and the shell keep their keys.)
        // Ctrl-C reaches here only where the editor did not take it (a merge): it asks as q does.
        if let stage = model.state.note?.stage, stage != .loading, tab == .notes, action != .nextTab, action != .previousTab,
           key != .ctrl("c") {
            return .ignored
        }
        switch action {
        case .nextTab, .previousTab:
            // Two tabs: forward and back are the same move.
            delegate.screen(perform: .select(tab == .notes ? .photos : .notes))
        case .notes: delegate.screen(perform: .select(.notes))
        case .photos: delegate.screen(perform: .select(.photos))
        case .refresh, .quit, .transfers: delegate.screen(perform: .shell(action))
        }
        return .consumed
    }

    /// In the editor and while the filter is typed, letters are text.
    public func claimsTyping() -> Bool {
        let tab = model.state.tab
        // The merge view in the editor's place has letter keys of its own, and `?` for help.
        if tab == .notes, let note = model.state.note, note.stage != .loading, note.merge == nil { return true }
        return model.state[tab].list.isEditingFilter
    }

    public func commands() -> [Command] {
        let tab = model.state.tab
        if tab == .notes, let note = model.state.note, note.stage != .loading {
            return Self.editorCommands(merging: note.merge != nil, searchHits: note.searchMatches != nil, findBar: note.editor.bar != nil,
                                       editor: note.editor.commandsHere)
        }
        return Self.listCommands(tab, filtering: model.state[tab].list.isEditingFilter)
    }

    /// Help's rows for `tab`'s list, with the filter's keys while it is typed.
    ///
    /// Static, as ``editorCommands(merging:searchHits:findBar:editor:)`` is, so ``KeyReference``
    /// lists the same rows without an app.
    static func listCommands(_ tab: Tab, filtering: Bool) -> [Command] {
        // The filter being typed has the keys first (its Enter and Esc), as in `handle`.
        var commands = filtering ? ListState.filterBindings.commands : []
        commands += bindings.commands
        commands.append(Command(keys: [], description: "Switch to that tab", group: "General", keyLabel: "Click a tab"))
        commands += tab == .notes ? notesBindings.commands : photosBindings.commands
        return commands + listBindings(group: tab.title).commands + mouseCommands(tab)
    }

    /// Help's rows while a note is open: the editor's (`editor`: those of where the cursor is,
    /// else all of them), with the find bar's and the search hits' while they show, or the merge
    /// view's in the editor's place.
    static func editorCommands(merging: Bool, searchHits: Bool, findBar: Bool, editor: [Command]? = nil) -> [Command] {
        // In the editor Tab indents; Shift-Tab goes to the other tab where the editor does not
        // outdent (help lists the editor's row first, and the compositor keeps the nearest).
        let tabKeys = KeyBindings(group: "General", bindings.bindings.filter { $0.action == .previousTab })
        // A merge with conflicts shows in place of the editor, with keys of its own. Ctrl-C is
        // not one of them: it reaches handleShellKey, which asks before quitting, as q does in the
        // lists; listed here, it keeps help from offering the global "Quit at once" instead.
        if merging {
            let quit = bindings.bindings.filter { $0.action == .quit }.map {
                Command(keys: [.ctrl("c")], description: $0.description, group: bindings.group)
            }
            return MergeView.bindings.commands + tabKeys.commands + quit
        }
        let hits = searchHits ? SearchMatches.bindings.commands : []
        let bar = findBar ? NoteEditorState.barBindings.commands : []
        return bar + hits + (editor ?? NoteEditorState.commands) + NoteEditorState.mouseCommands + MergeView.editorBindings.commands
            + ExternalEditController.externalEditorBindings.commands + NoteViewController.editorBindings.commands
            + LinksController.bindings.commands + LinksController.mouseCommands + OpenNotesController.bindings.commands + tabKeys.commands
            + LiveNotes.helpCommands
    }
}

/// Where the main screen's keys go: the composition root, which hands them to the controllers.
@MainActor
public protocol MainScreenDelegate: AnyObject {
    /// Carries out a key's action.
    func screen(perform intent: MainScreen.Intent)
}
