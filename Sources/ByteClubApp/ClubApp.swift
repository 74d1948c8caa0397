import Dispatch
import Foundation
import Logging
import Remote
import TerminalUI

/// What the app is given from outside: where the club keeps things, where downloads go, and
/// the clock lists are shown against.
public struct AppConfiguration: Sendable {
    public var layout = ClubLayout()
    /// Where downloaded photos go.
    public var downloadDirectory: URL?
    /// Where every edit is journalled; nil keeps drafts in memory only (some tests).
    public var drafts: DraftStore?
    /// Where paused downloads keep their resume data; nil keeps none.
    public var pausedDownloads: PausedDownloads?
    /// Where thumbnails are cached between runs; nil keeps them in memory only.
    public var thumbnailsDirectory: URL?
    /// Where the upload file chooser starts.
    public var uploadStartDirectory = URL(fileURLWithPath: ProcessInfo.processInfo.environment["HOME"] ?? "/")
    /// Names conflicted copies: "Title (conflicted copy of ray 2026-11-22 10.42.07).txt".
    public var userName = ProcessInfo.processInfo.environment["USER"] ?? "me"
    public var format = DisplayFormat()

    public init() {}
}

/// The app shell: owns the ``AppState``, loads the lists from a ``RemoteStore`` and puts the
/// ``MainScreen`` on a ``Compositor``.
///
/// It never touches a terminal: the executable connects ``onBusyChanged`` (to animate the
/// spinner) and ``onQuit`` (to restore the terminal and exit) to a ``Terminal``; tests use a
/// bare ``Compositor`` and a ``GridCanvas``.
///
/// Remote calls run in tasks off the main queue; every result comes back through
/// `DispatchQueue.main`, the UI queue, before it touches the state.
@MainActor
public final class ClubApp {
    public private(set) var state: AppState
    public let store: any RemoteStore
    public let compositor: Compositor
    public let configuration: AppConfiguration
    public private(set) lazy var screen = MainScreen(app: self)

    /// Called when the app starts or stops having requests in flight.
    public var onBusyChanged: (@MainActor (Bool) -> Void)?
    /// Called to leave the app, with the exit status.
    public var onQuit: (@MainActor (Int32) -> Void)?
    /// Called on the UI queue after a load's result is applied (tests wait on it).
    public var onLoadFinished: (@MainActor (Tab) -> Void)?

    let logger = Logger(label: "byteclub.app")

    /// The note open in the editor pane, if any.
    public internal(set) var noteSession: NoteSession? {
        didSet { if !changingQuietly { compositor.setNeedsRedraw() } }
    }
    private var changingQuietly = false

    /// Changes the open note's editor in place during a frame (what drawing learned), without
    /// asking for another frame and without copying the note.
    func withEditorQuietly(_ change: (inout NoteEditorState) -> Void) {
        guard noteSession != nil else { return }
        changingQuietly = true
        defer { changingQuietly = false }
        change(&noteSession!.editor)
    }
    /// The download of the note being opened, which Esc abandons.
    var loadTask: Task<Void, Never>?
    /// Whether a journal write is scheduled.
    var journalScheduled = false
    private var generationCounter = 0
    /// The notes list's items and rows, until what they depend on changes.
    var noteListingCache: NoteListingCache?
    /// Uploads and downloads by id, while they run (and a failed one while its modal shows it).
    var transfers: [Int: PhotoTransfer] = [:]
    var transferTasks: [Int: Task<Void, Never>] = [:]
    /// Progress reports that reached the UI queue (for the benchmark: they arrive at 10–60 Hz).
    public internal(set) var transferProgressEvents = 0
    /// Downloads whose tasks have not ended yet; quitting waits for their resume data.
    let downloadsRunning = DispatchGroup()
    /// Feeds running transfers' figures while they run (see `startTicker`).
    var transferTicker: DispatchSourceTimer?
    /// The transfer modal on screen and the transfer it shows.
    var transferModal: TransferModal?
    var transferModalID: Int?
    /// Larger pictures for the preview pane (`p`).
    public private(set) lazy var previews: Thumbnails = {
        let previews = Thumbnails(store: store, directory: configuration.thumbnailsDirectory, size: .w1024h768)
        previews.capacity = 24
        previews.maxConcurrentFetches = 2
        previews.onChange = { [weak self] in self?.compositor.setNeedsRedraw() }
        return previews
    }()
    public private(set) lazy var thumbnails: Thumbnails = {
        let thumbnails = Thumbnails(store: store, directory: configuration.thumbnailsDirectory)
        thumbnails.onChange = { [weak self] in self?.compositor.setNeedsRedraw() }
        return thumbnails
    }()

    public init(store: any RemoteStore, compositor: Compositor, configuration: AppConfiguration = AppConfiguration()) {
        self.store = store
        self.compositor = compositor
        self.configuration = configuration
        self.state = AppState(backend: store.displayName)
    }

    /// Shows the main screen and loads both tabs.
    public func start() {
        if !compositor.contains(screen) { compositor.push(screen) }
        state.message = StatusMessage("Loading…")
        reloadDrafts()
        reloadPausedDownloads()
        if !state.drafts.isEmpty {
            let count = state.drafts.count
            state.message = StatusMessage("\(count) unsaved draft\(count == 1 ? "" : "s") kept from last time, marked ✎ in Notes")
        }
        for tab in Tab.allCases { refresh(tab) }
    }

    /// A number no earlier load or save of this app used.
    func nextGeneration() -> Int {
        generationCounter += 1
        return generationCounter
    }

    /// Runs `work` off the main queue and delivers its result on the UI queue: the design's
    /// main-thread rule for everything that comes back from the network.
    @discardableResult
    func perform<T: Sendable>(_ work: @escaping @Sendable () async throws(RemoteError) -> T,
                              then deliver: @escaping @MainActor (Result<T, RemoteError>) -> Void) -> Task<Void, Never> {
        Task.detached {
            let result: Result<T, RemoteError>
            do throws(RemoteError) {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    dispatchPrecondition(condition: .onQueue(.main))
                    deliver(result)
                }
            }
        }
    }

    /// Whether the spinner turns: requests in flight, or transfers running.
    var isAnimating: Bool { state.isBusy || transferTicker != nil }

    /// Changes the state and asks for a frame; the one way the screen changes the state.
    public func update(_ change: (inout AppState) -> Void) {
        let wasBusy = isAnimating
        change(&state)
        if isAnimating != wasBusy { onBusyChanged?(isAnimating) }
        compositor.setNeedsRedraw()
    }

    /// Changes the state during a frame (what drawing learned), without asking for another.
    func updateWithoutRedraw(_ change: (inout AppState) -> Void) {
        change(&state)
    }

    /// Loads `tab`'s list again; the current entries stay on screen until the result is in.
    /// The selection stays on the same file, or moves to `select` (a lowercased path).
    public func refresh(_ tab: Tab, select: String? = nil) {
        var started = 0
        update { started = $0.beginLoad(tab) }
        let generation = started
        let store = self.store, layout = configuration.layout
        perform({ () async throws(RemoteError) in try await layout.fetch(tab, from: store) }) { [weak self] result in
            self?.deliver(tab, generation: generation, result: result, select: select)
        }
    }

    private func deliver(_ tab: Tab, generation: Int, result: Result<[RemoteEntry], RemoteError>, select: String?) {
        let keep = select ?? selectedPath(tab)
        switch result {
        case .success(let entries): logger.info("loaded \(tab.noun)", metadata: ["count": "\(entries.count)"])
        case .failure(let error): logger.error("could not load \(tab.noun): \(error.message)")
        }
        update { $0.finishLoad(tab, generation: generation, result: result) }
        if let keep { reselect(tab, path: keep) }
        onLoadFinished?(tab)
    }

    /// Switches to `tab`, loading it if it never loaded.
    public func select(_ tab: Tab) {
        update {
            $0.tab = tab
            if $0[tab].hasLoaded, $0.message?.kind != .error {
                $0.message = StatusMessage(AppState.summary(count: $0[tab].entries.count, tab: tab))
            }
        }
        if !state[tab].hasLoaded, !state[tab].isLoading { refresh(tab) }
    }

    /// `q`: quits, or first asks when edits are unsaved or transfers are running.
    public func requestQuit() {
        guard state.needsQuitConfirmation else {
            onQuit?(0)
            return
        }
        var reasons: [String] = []
        if state.hasUnsavedEdits { reasons.append("A note has unsaved changes (its draft is kept for next time).") }
        if state.runningTransfers == 1 { reasons.append("A transfer is still running: a download pauses (Enter resumes it next time), an upload stops.") }
        if state.runningTransfers > 1 {
            reasons.append("\(state.runningTransfers) transfers are still running: downloads pause (Enter resumes them next time), uploads stop.")
        }
        let modal = Modal(title: "Quit byteclub?", body: reasons + ["Quit anyway?"], buttons: ["Quit", "Cancel"])
        // Cancel is the default: Enter on a reflex must not lose work.
        compositor.push(DialogLayer(modal, selected: 1) { [weak self] choice in
            if choice == 0 { self?.onQuit?(0) }
        })
    }
}
