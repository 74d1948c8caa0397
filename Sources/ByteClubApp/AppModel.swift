import Logging
import Remote
import TerminalUI

/// Holds the one ``AppState`` value. Every change goes through ``update(_:)``, which asks for a
/// frame and says when the spinner should start or stop turning.
@MainActor
public final class AppModel {
    public private(set) var state: AppState
    /// Asks for a frame (the compositor's redraw).
    var onRedraw: () -> Void = {}
    /// Called when ``AppState/isAnimating`` flips.
    var onAnimatingChanged: (Bool) -> Void = { _ in }
    /// Told of every request's outcome that says something about the server: nil when it
    /// answered (even with an error), the error when it could not be reached (OutboxRunner).
    var onReachability: (RemoteError?) -> Void = { _ in }
    let format: DisplayFormat
    private var idCounter = 0
    private var listingCache: (signature: NoteListing.Signature, listing: NoteListing)?

    init(state: AppState, format: DisplayFormat) {
        self.state = state
        self.format = format
    }

    /// Changes the state and asks for a frame.
    public func update(_ change: (inout AppState) -> Void) {
        let wasAnimating = state.isAnimating
        change(&state)
        if state.isAnimating != wasAnimating { onAnimatingChanged(state.isAnimating) }
        onRedraw()
    }

    /// Changes the state during a frame (what drawing learned: a list's page size, an editor's
    /// scroll position), without asking for another frame. The open note is changed in place.
    func updateQuietly(_ change: (inout AppState) -> Void) {
        change(&state)
    }

    /// A number no earlier load, save or transfer of this app used.
    func nextID() -> Int {
        idCounter += 1
        return idCounter
    }

    /// The notes list of the current state, kept until the list or the drafts change, or a
    /// relative time in it would read otherwise.
    var noteListing: NoteListing {
        let signature = NoteListing.Signature(state)
        if let cached = listingCache, cached.signature == signature, !RelativeTimes.due(cached.listing.nextChange, now: format.now()) {
            return cached.listing
        }
        let listing = NoteListing.make(state, format: format)
        listingCache = (signature, listing)
        return listing
    }
}

/// What every controller is given: the store, the configuration, the state, a way to present
/// layers (dialogs, the modal) and the UI effects. Nothing else is shared between them.
@MainActor
struct AppContext {
    let store: any RemoteStore
    let configuration: AppConfiguration
    let model: AppModel
    let effects: any UIEffects
    let compositor: Compositor
    let logger: Logger

    var state: AppState { model.state }

    func update(_ change: (inout AppState) -> Void) { model.update(change) }

    /// Shows a dialog or a modal above everything else.
    ///
    /// A question (a dialog, a prompt) clears the status bar's message: what was said before it
    /// ("Saved …", an error of an earlier key) would read as news about the question. What the
    /// question leads to is said after it.
    func present(_ layer: any Layer) {
        if layer is DialogLayer || layer is PromptLayer, state.message != nil { update { $0.message = nil } }
        compositor.push(layer)
    }

    func dismiss(_ layer: any Layer) { compositor.remove(layer) }

    /// Says `message` in the status bar.
    func say(_ message: StatusMessage) { update { $0.message = message } }

    @discardableResult
    func perform<T: Sendable>(_ work: @escaping @Sendable () async throws(RemoteError) -> T,
                              then deliver: @escaping @MainActor (Result<T, RemoteError>) -> Void) -> Task<Void, Never> {
        effects.perform(work) { [model] result in
            // Before the result is handled: a save that failed to reach the server finds the app
            // offline already, and queues itself.
            switch result {
            case .success: model.onReachability(nil)
            case .failure(let error) where error.isUnreachable: model.onReachability(error)
            case .failure(.cancelled), .failure(.local), .failure(.notSupported): break
            case .failure: model.onReachability(nil)
            }
            deliver(result)
        }
    }
}
