import ClubKit
import Foundation
import Logging
import Markdown
import Remote
import TerminalUI

/// What the app is given from outside: where the club keeps things, where downloads go, and
/// the clock lists are shown against.
public struct AppConfiguration: Sendable {
    public var layout = ClubLayout()
    /// Where downloaded photos go.
    public var downloadDirectory: URL?
    /// What the status bar calls the club (`embedded`, `club`, `dropbox`, `webdav`, or a named
    /// remote's name: ClubKit's `Backend.label`); nil: the store's `displayName`.
    public var backendLabel: String?
    /// The club is this machine's user's alone (the embedded club): a change the server names no
    /// one for, and this app did not make, was made by you (a command, another window, an editor
    /// on the folder), and is said so ("You changed …"), never "Someone …".
    public var changesWithoutAuthorAreYours = false
    /// Where every edit is journalled: this club's drafts alone (ClubKit's `Backend.drafts`);
    /// nil keeps drafts in memory only (some tests).
    public var drafts: DraftStore?
    /// How many drafts an older byteclub left in the folder every club shared, that are known to
    /// be no club's (not this one's either): never shown, but said at start, since the user may
    /// be looking for one (`byteclub outbox` lists them).
    public var draftsKeptAside = 0
    /// Where paused downloads keep their resume data; nil keeps none.
    public var pausedDownloads: PausedDownloads?
    /// Where thumbnails are cached between runs; nil keeps them in memory only.
    public var thumbnailsDirectory: URL?
    /// Where the upload file chooser starts.
    public var uploadStartDirectory = URL(fileURLWithPath: ProcessInfo.processInfo.environment["HOME"] ?? "/")
    /// Names conflicted copies: "Title (conflicted copy of ray 2026-11-22 10.42.07).txt".
    public var userName = ProcessInfo.processInfo.environment["USER"] ?? "me"
    public var format = DisplayFormat()
    /// Whether the lists follow the server's changes with longpolls (LiveUpdates).
    public var liveUpdates = true
    /// Real pixels for the viewer (kitty, iTerm2, sixel), as the terminal answered; nil draws symbols.
    public var graphics: TerminalGraphics?
    /// How many uploads and downloads run at once (`--transfers`); the others wait, queued.
    public var transfers = 3
    /// Where changes wait while the server cannot be reached; nil: no outbox (failures are errors).
    public var outbox: Outbox?
    /// The lists and opened notes kept on disk for a start without the server; nil: none.
    public var cache: ClubCache?
    /// Puts text on the user's clipboard (the terminal's OSC 52); nil: no clipboard, share
    /// links are only shown.
    public var clipboard: (@MainActor @Sendable (String) -> Void)?
    /// Opens the notes' full-text index (called off the UI queue); nil: no search.
    /// ``AppConfiguration/searchIndex(in:)`` gives the app's, in the club's cache folder.
    public var searchIndex: (@Sendable () throws(RemoteError) -> any NoteSearchIndex)?
    /// The background agent that keeps transfers going after a quit; nil: transfers end with the app.
    public var agent: (any BackgroundAgent)?
    /// Runs the user's own editor over a note (`e`, `Alt-E`); nil: no terminal to run one in.
    public var externalEditor: ExternalEditorHook?
    /// Line numbers and soft wrap as config.toml has them (`line_numbers`, `soft_wrap`).
    public var editorSettings = EditorSettings()
    /// Keeps toggled editor settings in config.toml (the executable's; nil: not kept).
    public var saveEditorSettings: (@MainActor @Sendable (EditorSettings) throws -> Void)?
    /// An encrypted club's door: the app asks whether to admit each member waiting (nil: none).
    public var door: (any ClubDoor)?
    /// Opens a note's live channel (a club server's `/2/byteclub/live`): given the note's id and
    /// where events go. Nil on a backend without one (WebDAV, Dropbox), where a note opens as
    /// ever and one line says live editing needs a club server.
    public var liveChannel: (@Sendable (_ fileID: String, _ deliver: @escaping @Sendable (LiveSocketEvent) -> Void) -> LiveSocket)?
    /// What a note opened without a live channel says once (the executable sets it on WebDAV and
    /// Dropbox; nil: nothing, as with live editing turned off).
    public var liveUnavailable: String?
    /// Where live notes keep their journals (the club's cache folder's `live/`); nil: in memory only.
    public var liveFolder: URL?
    /// Where the app logs (nil: `byteclub.app`, as the process's logging is set up); the
    /// simulation's apps log only what is critical, their histories' logs saying what happened.
    public var logger: Logger?

    public init() {}

    /// What every app over `backend` takes from it: its name and folder, and this machine's
    /// drafts, outbox and cache of that club. `byteclub` adds the terminal's part; the
    /// simulation's apps take this alone (issue 70), so both open a club the same way.
    /// - Parameter process: which process's drafts these are (``DraftStore/process``): empty
    ///   for byteclub's own.
    public init(club backend: Backend, newNoteExtension: String, process: String = "") {
        backendLabel = backend.label
        changesWithoutAuthorAreYours = backend.embeddedRoot != nil
        layout = ClubLayout(folder: backend.folder, newNoteExtension: newNoteExtension)
        drafts = DraftStore(directory: backend.drafts.directory, process: process)
        draftsKeptAside = Backend.draftsKeptAside.all().count
        outbox = backend.outbox
        cache = backend.cache
    }
}

/// The composition root: builds the ``AppModel`` (the one ``AppState``), the helpers the
/// controllers share (the refresher, the live updates, the outbox run) and the controllers
/// (tabs, notes, photos and the rest) over one ``AppContext``, and the ``MainScreen``, and wires them to the
/// compositor.
///
/// It never touches a terminal: the executable connects ``onBusyChanged`` (to animate the
/// spinner) and ``onQuit`` (to restore the terminal and exit) to a ``Terminal``; tests use a
/// bare ``Compositor`` and a ``GridCanvas``. What runs off the UI queue comes back through the
/// ``UIEffects`` it is given.
@MainActor
public final class ClubApp {
    public let store: any RemoteStore
    public let compositor: Compositor
    public let configuration: AppConfiguration
    public let model: AppModel
    public let screen: MainScreen
    let refresher: Refresher
    let exit = AppExit()
    let noteIndex: NoteIndex
    let navigator: Navigator
    let edits: NoteEdits
    let linkRenames: LinkRenames
    let transfers: PhotoTransfers
    let tabs: TabsController
    let notes: NotesController
    let files: NoteFilesController
    let externalEdit: ExternalEditController
    let photos: PhotosController
    let viewer: ViewerController
    let noteView: NoteViewController
    let live: LiveUpdates
    /// The open note on the live channel (typing together).
    let liveNotes: LiveNotes
    let history: HistoryController
    let tags: TagsController
    let tagsSync: TagsSync
    let background: BackgroundController
    let joinQuestions: JoinQuestions
    let offline: OutboxRunner
    let share: ShareController
    let search: SearchController
    let links: LinksController
    let openNotes: OpenNotesController
    let effects: any UIEffects
    /// The layers the state shows now (ClubApp+Layers.swift).
    var shown = ShownLayers()
    /// What the screen showed at the last change of the state: its transitions are events.
    var screenShown = AppEvent.Screen()
    /// The clock's tick: relative times on screen change with no key pressed.
    var clockTick: (any UIRepeating)?
    /// How often the tick looks at the clock. A relative time is at most this late ("just now"
    /// says "1 min ago" by 65 s); a look is one comparison, and a frame follows only when a
    /// time on screen reads otherwise (``RelativeTimes``).
    static let clockTickInterval: Duration = .seconds(5)

    /// Called when the spinner should start or stop turning.
    public var onBusyChanged: (@MainActor (Bool) -> Void)? {
        didSet { model.onAnimatingChanged = { [weak self] busy in self?.onBusyChanged?(busy) } }
    }
    /// Called to leave the app, with the exit status.
    public var onQuit: (@MainActor (Int32) -> Void)? {
        get { exit.onQuit }
        set { exit.onQuit = newValue }
    }
    /// Called on the UI queue after the live updates applied a change page to a tab.
    public var onLiveChanges: (@MainActor (Tab, [LiveEvent]) -> Void)? {
        get { live.onChangesApplied }
        set { live.onChangesApplied = newValue }
    }
    /// Called on the UI queue after a tab's list was written to the disk cache (true) or refused.
    public var onCacheWritten: (@MainActor (Tab, Bool) -> Void)? {
        get { refresher.onCacheWritten }
        set { refresher.onCacheWritten = newValue }
    }
    /// Called on the UI queue after the search index took in notes, with how many (benches count).
    public var onIndexed: (@MainActor (Int) -> Void)? {
        get { noteIndex.onIndexed }
        set { noteIndex.onIndexed = newValue }
    }
    /// Called on the UI queue after a load's result is applied (tests wait on it).
    public var onLoadFinished: (@MainActor (Tab) -> Void)? {
        get { refresher.onLoadFinished }
        set { refresher.onLoadFinished = newValue }
    }

    public init(store: any RemoteStore, compositor: Compositor, configuration: AppConfiguration = AppConfiguration(),
                effects: any UIEffects = MainQueueEffects()) {
        self.store = store
        self.compositor = compositor
        self.configuration = configuration
        self.effects = effects
        var initial = AppState(backend: configuration.backendLabel ?? store.displayName, clubFolder: configuration.layout.folder)
        initial.editorSettings = configuration.editorSettings
        model = AppModel(state: initial, format: configuration.format)
        let context = AppContext(store: store, configuration: configuration, model: model, effects: effects,
                                 compositor: compositor, logger: configuration.logger ?? Logger(label: "byteclub.app"))
        refresher = Refresher(context: context)
        // The helpers the controllers share; none of them calls a controller.
        noteIndex = NoteIndex(context: context, openIndex: configuration.searchIndex)
        navigator = Navigator(context: context, noteIndex: noteIndex)
        edits = NoteEdits(context: context)
        linkRenames = LinkRenames(context: context, noteIndex: noteIndex, refresher: refresher)
        transfers = PhotoTransfers(context: context, refresher: refresher)
        live = LiveUpdates(context: context, refresher: refresher)
        let tagsSync = TagsSync(context: context)
        self.tagsSync = tagsSync
        refresher.afterLoad = { [weak live, weak tagsSync] tab in
            live?.loadFinished(tab)
            tagsSync?.loadFinished(tab)
        }
        live.onChangesReceived = { [weak tagsSync] tab, changes in tagsSync?.changesArrived(tab, changes) }
        live.onBurst = { [weak noteIndex, weak tagsSync] tab, backoff in
            guard tab == .notes else { return }
            noteIndex?.burst(backoff: backoff)
            tagsSync?.burst(backoff: backoff)
        }
        offline = OutboxRunner(context: context, refresher: refresher)
        offline.live = live
        let (thumbnails, previews) = Thumbnails.forPhotos(context)
        // Back online: the pictures that failed meanwhile are asked for again.
        offline.onBack = { [weak thumbnails, weak previews] in
            thumbnails?.retryFailures()
            previews?.retryFailures()
        }
        model.onReachability = { [weak offline] error in offline?.reachability(error) }
        liveNotes = LiveNotes(context: context)
        live.liveNotes = liveNotes
        exit.willQuit = { [weak live, weak offline, weak liveNotes] in
            live?.stop()
            offline?.stop()
            liveNotes?.stop()
        }
        transfers.outboxRunner = offline
        navigator.outboxRunner = offline
        navigator.edits = edits
        // The controllers: each handles its own keys and calls the helpers.
        tabs = TabsController(context: context, refresher: refresher, exit: exit)
        let saves = NoteSaves(context: context, refresher: refresher, navigator: navigator, edits: edits)
        let conflicts = NoteConflicts(context: context, refresher: refresher, saves: saves)
        (saves.outboxRunner, saves.live, saves.conflicts) = (offline, live, conflicts)
        (liveNotes.saves, liveNotes.edits, edits.live) = (saves, edits, liveNotes)
        notes = NotesController(context: context, refresher: refresher, navigator: navigator, edits: edits, linkRenames: linkRenames,
                                saves: saves, conflicts: conflicts)
        files = NoteFilesController(context: context, refresher: refresher, linkRenames: linkRenames)
        files.outboxRunner = offline
        externalEdit = ExternalEditController(context: context, navigator: navigator, edits: edits)
        photos = PhotosController(context: context, refresher: refresher, transfers: transfers, thumbnails: thumbnails, previews: previews)
        photos.outboxRunner = offline
        viewer = ViewerController(context: context)
        noteView = NoteViewController(context: context, navigator: navigator, noteIndex: noteIndex, edits: edits, transfers: transfers)
        tags = TagsController(context: context, sync: tagsSync)
        history = HistoryController(context: context, refresher: refresher, live: live)
        share = ShareController(context: context)
        search = SearchController(context: context, navigator: navigator, noteIndex: noteIndex, live: live)
        links = LinksController(context: context, navigator: navigator, noteIndex: noteIndex)
        openNotes = OpenNotesController(context: context, navigator: navigator)
        background = BackgroundController(context: context, transfers: transfers, exit: exit)
        joinQuestions = JoinQuestions(context: context)
        screen = MainScreen(model: model, configuration: configuration, thumbnails: thumbnails, previews: previews)
        model.onRedraw = { [weak self] in self?.stateChanged() }
        model.onEvent = { [weak self] in self?.route($0) }
        screen.tick = { [weak compositor] in compositor?.tick ?? 0 }
        screen.delegate = self
        screen.clock = { [effects] in effects.now() }
        screen.markdown.onReady = { [weak compositor] in compositor?.setNeedsRedraw() }
        screen.markdown.source = { [weak model] in
            model?.state.note.map { (key: MarkdownHighlighter.key(of: $0), lines: $0.editor.body.lineClusters) }
        }
        compositor.source = self
    }

    /// The state the screen is drawn from.
    public var state: AppState { model.state }

    /// Changes the state and asks for a frame.
    public func update(_ change: (inout AppState) -> Void) { model.update(change) }
}
