import Foundation
import Remote
import TerminalUI

/// One tab's list: what the server last returned, whether a load is running, and the
/// selection and filter that last between frames.
public struct Listing: Equatable, Sendable {
    /// The entries of the last successful load, already sorted for display: files only. A
    /// table (``EntryTable``), not 100,000 values of seven strings; read from the cache, it is
    /// the cache file mapped.
    public var entries = EntryTable() {
        didSet {
            folderIndex = FolderIndexSlot()
            pathCounts = PathCountsSlot()
        }
    }
    /// The folders the last load listed (the Notes tab's, which may hold no note yet), by path.
    public var folders: [RemoteEntry] = [] { didSet { folderIndex = FolderIndexSlot() } }
    /// The Notes tab's other files (attachments: PDFs, canvases, audio), by path; they are
    /// listed in their folders and counted in their folders' rows, never taken for notes.
    public var files: [RemoteEntry] = [] { didSet { folderIndex = FolderIndexSlot() } }
    /// The Notes list by folder (``FolderIndex``), made anew whenever the three lists above change.
    var folderIndex = FolderIndexSlot()
    /// The hashes of ``entries``' paths, counted (``PathCounts``): made by the first change page
    /// after the entries were replaced, then kept current by each page.
    var pathCounts = PathCountsSlot()
    /// Whether a load has ever succeeded (before that, an empty list means "loading").
    public var hasLoaded = false
    public var isLoading = false
    /// How many entries a first load that pages in has listed so far (0 otherwise).
    public var pagedSoFar = 0
    /// The last load's failure; the entries of the load before it stay on screen.
    public var error: String?
    public var list = ListState()
    /// Which load is the latest; an older load that finishes late is dropped.
    var generation = 0
    /// Counts the times ``entries`` was replaced (what cached rows are checked against).
    public internal(set) var version = 0
    /// What the last change pages did to ``entries``, oldest first, each at the ``version`` it
    /// made: the search index takes in only these when it was current just before them
    /// (``NoteIndex``). Any other change of the version (a load, the cache, an edit of the
    /// app's own) leaves a gap, and the index is then brought current against the whole list.
    public internal(set) var changeLog: [ListingChange] = []
    /// When the server gave the entries, while they come from the disk cache (an offline start)
    /// and the server has not answered since; nil otherwise.
    public var cachedAt: Date?

    public init() {}

    /// Takes a load's list: its entries (a table already in display order), folders and, in the
    /// Notes tab, its other files.
    mutating func take(_ listed: [RemoteEntry], tab: Tab) {
        take(TabListing(displayOrder: listed, tab: tab), tab: tab)
    }

    mutating func take(_ listed: TabListing, tab: Tab) {
        entries = listed.entries
        if tab == .notes { files = listed.files }
        folders = listed.folders
        version += 1
        changeLog = []
    }

    /// Notes that a change page took the list to ``version`` with `changed` and `removed`; the
    /// log keeps the last pages up to ``ListingChange/keptEntries`` entries.
    mutating func logChange(changed: [RemoteEntry], removed: [String]) {
        changeLog.append(ListingChange(version: version, changed: changed, removed: removed))
        var kept = changeLog.reduce(0) { $0 + $1.changed.count + $1.removed.count }
        while kept > ListingChange.keptEntries, changeLog.count > 1 {
            kept -= changeLog[0].changed.count + changeLog[0].removed.count
            changeLog.removeFirst()
        }
    }
}

/// What one change page did to a list's entries (``Listing/changeLog``).
public struct ListingChange: Equatable, Sendable {
    /// The list's version after the page.
    public var version: Int
    /// The entries now at the paths the page changed or added.
    public var changed: [RemoteEntry]
    /// The lowercased paths the page left empty.
    public var removed: [String]

    /// The most entries the log keeps; a longer run of changes since the index's last sync is
    /// taken in by a sync against the whole list.
    static let keptEntries = 20_000

    /// The changes of `log` from the one after `version` to `through`, path by path (a later
    /// page's word wins), or nil when the log does not hold every page between them.
    static func since(_ version: Int, through: Int, in log: [ListingChange]) -> (changed: [RemoteEntry], removed: [String])? {
        guard through > version, let first = log.firstIndex(where: { $0.version == version + 1 }) else { return nil }
        let pages = log[first...]
        guard pages.last?.version == through, zip(pages, pages.dropFirst()).allSatisfy({ $1.version == $0.version + 1 }) else { return nil }
        var changed: [String: RemoteEntry] = [:], removed = Set<String>()
        for page in pages {
            for path in page.removed {
                removed.insert(path)
                changed[path] = nil
            }
            for entry in page.changed {
                changed[entry.pathLower] = entry
                removed.remove(entry.pathLower)
            }
        }
        return (changed.keys.sorted().map { changed[$0]! }, removed.sorted())
    }
}

/// Everything the app shows, as one value: the screen is a function of it (and the clock, and
/// the pictures cached for it).
///
/// It holds both lists with their selections, the note open in the editor, the transfers with
/// the modal, and the preview flag. What can be derived (unsaved edits, running transfers, the
/// rows, the selected item) is derived, never counted beside it. Mutations that follow the
/// network (``beginLoad(_:)``, ``finishLoad(_:generation:result:)``, the ``Transfers`` machine)
/// are plain methods, so they are tested without a server or a terminal.
public struct AppState: Sendable, Equatable {
    public var tab: Tab = .notes
    public var notes = Listing()
    /// Which folder the Notes list shows, and the club folder above them all (NotesFolder.swift).
    public var notesFolder = NotesFolder()
    /// Which album the PanoPhotos list shows (nil: the photos folder itself, with its albums).
    public var album: String?
    public var photos = Listing()
    /// The status bar's name for the club: "embedded", "club", "dropbox", "webdav" or the named
    /// remote's name (``AppConfiguration/backendLabel``), never its URL.
    public var backend: String
    /// The last message; errors are shown in the error style.
    public var message: StatusMessage?
    /// What the editor's Ctrl-C or Ctrl-X took last, for Ctrl-V in any note (the terminal's
    /// clipboard gets it too, but cannot be read back).
    public var clipboard = ""
    /// Requests in flight; the status bar spins while this is above zero.
    public private(set) var inFlight = 0
    /// The note open in the editor pane (or loading into it), if any.
    public var note: NoteSession?
    /// The other open notes, kept with their edits while another is on screen (OpenNotes.swift).
    public var buffers = OpenNotes()
    /// Line numbers and soft wrap in the editor, as config.toml has them and the keys toggle them.
    public var editorSettings = EditorSettings()
    /// Drafts kept on disk: edits not yet confirmed by the server, offered in the notes list.
    public var drafts: [Draft] = []
    /// Paused downloads by lowercased path: the photos list shows `paused 42%`.
    public var paused: [String: PausedDownload] = [:]
    /// The last message a load put up, which the next load may replace (others it leaves).
    var loadMessage: StatusMessage?
    /// The count the status bar said last ("4 photos"). While it is still the message, the bar
    /// shows the count of the tab on screen as the list is now (``shownMessage``), never the
    /// other tab's, nor a count the live updates have since changed.
    var countMessage: StatusMessage?
    /// Uploads and downloads, and which one the transfer modal shows.
    public var transfers = Transfers()
    /// The background agent's transfers (BackgroundTransfers.swift), as it last reported them.
    public var background: [BackgroundTransfer] = []
    /// The agent's running transfers as seen moving, by id (``AppState/movedAgain(_:_:at:)``).
    public var backgroundRates: [String: TransferProgress] = [:]
    /// Whether the photos tab shows the selected photo larger beside the list (`p`).
    public var showsPreview = false
    /// The full-screen photo viewer (`v`), while it is open.
    public var viewer: PhotoViewer?
    /// The rendered view of the open note (`v`, `Alt-V`), while it is shown.
    public var noteView: NoteViewState?
    /// The history view of a note (`H`), while it is open.
    public var history: NoteHistory?
    /// Whether the server is reachable, and what waits in the outbox (OutboxRunner).
    public var offline = OfflineState()
    /// The notes' tags and pins (AppState+Tags.swift).
    public var tags = NoteTags()
    /// The search results screen (`Ctrl-F`), while it is open.
    public var search: SearchState?
    /// The search results a note was opened from, while that note is in the editor: `Esc` there
    /// (the note unchanged) brings them back.
    public var parkedSearch: SearchState?
    /// How far the search index is being built or brought current, for the status bar.
    public var indexing: IndexingProgress?
    /// Where "Back" goes after following links, and the backlinks panel (LinksState.swift).
    public var links = LinksState()
    /// The questions on screen, the newest on top (``AppDialog``): what answers one takes it
    /// away (``AppContext/ask(_:)``).
    public var dialogs: [AppDialog] = []
    /// Whether the Transfers panel (`T`) is open.
    public var showsTransfersPanel = false
    /// When the relative times the last frame drew next change (what drawing learned; the
    /// app's clock tick asks for a frame then).
    public var relativeTimes = RelativeTimes()

    public init(backend: String, clubFolder: String = "/byteclub") {
        self.backend = backend
        notesFolder = NotesFolder(root: clubFolder)
    }

    public var isBusy: Bool { inFlight > 0 }

    /// The member is a reader in this club (the server marks its files `read_only`): notes
    /// open read-only, and nothing is saved or queued in the outbox.
    public var readsOnly: Bool { notes.entries.indices.contains { notes.entries.readOnly(at: $0) == true } }

    /// What a reader is told when they try to change something.
    public static let readerRefusal = "You are a reader in this club: notes are read-only here (ask an admin for the editor role)"

    /// Whether the spinner turns: requests in flight, or transfers moving bytes.
    public var isAnimating: Bool { isBusy || transfers.hasActive }

    /// Whether an open note (on screen or kept open behind it) has changes the server does not have.
    public var hasUnsavedEdits: Bool { note?.isModified ?? false || buffers.parked.contains(where: \.hasUnsavedEdits) }

    /// Uploads and downloads whose tasks have not ended, in the foreground or background.
    public var runningTransfers: Int { transfers.running }

    /// Whether `q` must ask before quitting.
    public var needsQuitConfirmation: Bool { hasUnsavedEdits || runningTransfers > 0 }

    public subscript(tab: Tab) -> Listing {
        get { tab == .notes ? notes : photos }
        set {
            if tab == .notes { notes = newValue } else { photos = newValue }
        }
    }

    /// Counts a request (a save, a delete) as in flight, for the spinner.
    public mutating func beginRequest() { inFlight += 1 }
    public mutating func endRequest() { inFlight = max(0, inFlight - 1) }

    /// Marks a load of `tab` as started and returns its generation.
    public mutating func beginLoad(_ tab: Tab) -> Int {
        inFlight += 1
        self[tab].isLoading = true
        self[tab].generation += 1
        return self[tab].generation
    }

    /// How far a first load has got: `firstPage` (when given) shown while it goes on, and
    /// `count` said; the load's result replaces both.
    public mutating func showPartialLoad(_ tab: Tab, _ firstPage: [RemoteEntry]?, count: Int) {
        if let firstPage {
            self[tab].take(firstPage, tab: tab)
        }
        self[tab].pagedSoFar = count
        if loadMaySay(tab) {
            sayCount()
            loadMessage = message
        }
    }

    /// ``finishLoad(_:generation:listing:)`` with a list already in display order, split as a load's is.
    public mutating func finishLoad(_ tab: Tab, generation: Int, result: Result<[RemoteEntry], RemoteError>) {
        finishLoad(tab, generation: generation, listing: result.map { TabListing(displayOrder: $0, tab: tab) })
    }

    /// Applies the result of a load. A stale load (an older generation) only stops counting
    /// as in flight; the failure of the latest load keeps the old entries and shows the error.
    public mutating func finishLoad(_ tab: Tab, generation: Int, listing result: Result<TabListing, RemoteError>) {
        inFlight = max(0, inFlight - 1)
        guard generation == self[tab].generation else { return }
        self[tab].isLoading = false
        switch result {
        case .success(let entries):
            self[tab].take(entries, tab: tab)
            self[tab].hasLoaded = true
            self[tab].pagedSoFar = 0
            self[tab].error = nil
            self[tab].cachedAt = nil
            // A load's summary replaces only "Loading…" or an older load's message, never
            // what an action said ("Saved …", an error from a save).
            finishCatchingUp(tab)
        case .failure(let error) where error.isUnreachable && self[tab].cachedAt != nil:
            // An offline start: the cached list stays, marked with its time, and the status bar
            // says `offline`; no error over it.
            self[tab].error = nil
            if loadMaySay(tab) {
                message = StatusMessage("Offline: showing the \(tab.noun) kept on this machine; changes wait in the outbox")
                loadMessage = message
            }
        case .failure(let error):
            cannotLoad(tab, error)
        }
    }

    /// `tab`'s list could not be had: the error over it (a cached list stays beneath), and in the
    /// status bar. Also a cached list's catching up refused for good (a removed member, a token
    /// refused), which otherwise read "updating…" for as long as the app ran.
    public mutating func cannotLoad(_ tab: Tab, _ error: RemoteError) {
        let text = "Could not load \(tab.noun): \(error.message)"
        self[tab].error = text
        message = .error(text)
        loadMessage = message
    }

    /// `tab`'s list is the server's (a load, or a cached list caught up from its cursor with no
    /// listing): its count replaces "Loading…" or an older load's message. A cached list that
    /// caught up with nothing to apply kept "Loading…" until the first longpoll's answer, 30 s.
    public mutating func finishCatchingUp(_ tab: Tab) {
        guard loadMaySay(tab) else { return }
        sayCount()
        loadMessage = message
    }

    /// Says the count of the tab on screen ("4 photos"), or that it is loading; the bar keeps it
    /// true as the lists change (``shownMessage``) until another message replaces it.
    public mutating func sayCount() {
        message = countText(tab)
        countMessage = message
    }

    /// The status bar's message as it reads now: ``message``, except that a count said last is
    /// the count of the tab on screen, as its list is now.
    public var shownMessage: StatusMessage? {
        guard let message, message == countMessage else { return message }
        return countText(tab)
    }

    /// "4 photos", "1 note"; before the tab's list is there, that it loads (or why it did not).
    private func countText(_ tab: Tab) -> StatusMessage {
        if self[tab].hasLoaded { return StatusMessage(Self.summary(count: self[tab].entries.count, tab: tab)) }
        if let error = self[tab].error, !self[tab].isLoading { return .error(error) }
        // A first load paging in says how far it has got.
        if self[tab].pagedSoFar > 0 { return StatusMessage("Loading \(tab.noun)… \(IndexingProgress.grouped(self[tab].pagedSoFar)) so far") }
        return StatusMessage("Loading \(tab.noun)…")
    }

    /// Whether a load of `tab` may put its message up: the tab is on screen and what is there
    /// is nothing, "Loading…", a count or an older load's message (never what an action said).
    private func loadMaySay(_ tab: Tab) -> Bool {
        tab == self.tab && (message == nil || message == loadMessage || message == countMessage || message?.text == "Loading…")
    }

    /// "1 note", "4 photos".
    static func summary(count: Int, tab: Tab) -> String {
        let noun = tab == .notes ? "note" : "photo"
        return "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
