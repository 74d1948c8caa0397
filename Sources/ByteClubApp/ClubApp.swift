import Dispatch
import Foundation
import Logging
import Remote
import TerminalUI

/// What the app is given from outside: where the club keeps things, where downloads go, and
/// the clock lists are shown against.
public struct AppConfiguration: Sendable {
    public var layout = ClubLayout()
    /// Where downloaded photos go (used by the PanoPhotos issue).
    public var downloadDirectory: URL?
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

    private let logger = Logger(label: "byteclub.app")

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
        for tab in Tab.allCases { refresh(tab) }
    }

    /// Changes the state and asks for a frame; the one way the screen changes the state.
    public func update(_ change: (inout AppState) -> Void) {
        let wasBusy = state.isBusy
        change(&state)
        if state.isBusy != wasBusy { onBusyChanged?(state.isBusy) }
        compositor.setNeedsRedraw()
    }

    /// Changes the state during a frame (what drawing learned), without asking for another.
    func updateWithoutRedraw(_ change: (inout AppState) -> Void) {
        change(&state)
    }

    /// Loads `tab`'s list again; the current entries stay on screen until the result is in.
    public func refresh(_ tab: Tab) {
        var started = 0
        update { started = $0.beginLoad(tab) }
        let generation = started
        let store = self.store, layout = configuration.layout
        Task.detached { [weak self] in
            let result: Result<[RemoteEntry], RemoteError>
            do throws(RemoteError) {
                result = .success(try await layout.fetch(tab, from: store))
            } catch {
                result = .failure(error)
            }
            // The design's main-thread rule: results reach the app on the UI queue only.
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self?.deliver(tab, generation: generation, result: result) }
            }
        }
    }

    private func deliver(_ tab: Tab, generation: Int, result: Result<[RemoteEntry], RemoteError>) {
        dispatchPrecondition(condition: .onQueue(.main))
        switch result {
        case .success(let entries): logger.info("loaded \(tab.noun)", metadata: ["count": "\(entries.count)"])
        case .failure(let error): logger.error("could not load \(tab.noun): \(error.message)")
        }
        update { $0.finishLoad(tab, generation: generation, result: result) }
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
        if state.hasUnsavedEdits { reasons.append("A note has unsaved changes.") }
        if state.runningTransfers == 1 { reasons.append("A transfer is still running.") }
        if state.runningTransfers > 1 { reasons.append("\(state.runningTransfers) transfers are still running.") }
        let modal = Modal(title: "Quit byteclub?", body: reasons + ["Quit anyway?"], buttons: ["Quit", "Cancel"])
        // Cancel is the default: Enter on a reflex must not lose work.
        compositor.push(DialogLayer(modal, selected: 1) { [weak self] choice in
            if choice == 0 { self?.onQuit?(0) }
        })
    }
}
