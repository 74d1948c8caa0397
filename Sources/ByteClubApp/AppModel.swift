import ClubKit
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
    /// Requests numbered as they are sent (``AppContext/perform(_:then:)``).
    var requestsSent = 0
    /// The number of the last-sent request that found the server unreachable: an answer to a
    /// request sent before it says nothing of the server now (``AppContext/perform(_:then:)``).
    var unreachableSent = 0
    /// Hands an event to the composition root (``ClubApp/route(_:)``).
    var onEvent: (AppEvent) -> Void = { _ in }
    let format: DisplayFormat
    private var idCounter = 0
    /// What makes each question's layer (``AppDialog``), by the question's id: kept beside the
    /// state, as a closure is not a value the state can compare.
    private var dialogMakers: [Int: @MainActor () -> any Layer] = [:]
    private var listingCache: (signature: NoteListing.Signature, listing: NoteListing)?
    /// Note texts on their way to the disk cache (keyed by lowercased path): an offline open
    /// made before the write lands reads them here (AppContext.cacheNoteText).
    var cacheWrites: [String: ClubCache.Note] = [:]

    init(state: AppState, format: DisplayFormat) {
        self.state = state
        self.format = format
    }

    /// Changes the state and asks for a frame.
    public func update(_ change: (inout AppState) -> Void) {
        let wasAnimating = state.isAnimating
        change(&state)
        forgetAnsweredQuestions()
        if state.isAnimating != wasAnimating { onAnimatingChanged(state.isAnimating) }
        onRedraw()
    }

    /// Changes the state during a frame (what drawing learned: a list's page size, an editor's
    /// scroll position), without asking for another frame. The open note is changed in place.
    func updateQuietly(_ change: (inout AppState) -> Void) {
        change(&state)
        forgetAnsweredQuestions()
    }

    /// Lets go of the makers of questions no longer in the state: a maker holds whoever asked,
    /// which holds this model.
    private func forgetAnsweredQuestions() {
        // Few questions are ever on screen: compared whole, so one answered and another asked
        // in the same change is caught too.
        guard !dialogMakers.isEmpty else { return }
        let shown = Set(state.dialogs.map(\.id))
        if dialogMakers.keys.contains(where: { !shown.contains($0) }) { dialogMakers = dialogMakers.filter { shown.contains($0.key) } }
    }

    /// Puts a question on screen: its maker is kept, and the question becomes part of the state.
    func ask(_ kind: AppDialog.Kind, make: @escaping @MainActor () -> any Layer, _ change: (inout AppState) -> Void = { _ in }) -> Int {
        let id = nextID()
        dialogMakers[id] = make
        update {
            $0.dialogs.append(AppDialog(id: id, kind: kind))
            change(&$0)
        }
        return id
    }

    /// The layer of a question the state shows (made once by the caller, who keeps it).
    func makeLayer(for dialog: AppDialog) -> (any Layer)? { dialogMakers[dialog.id]?() }

    /// A number no earlier load, save or transfer of this app used.
    func nextID() -> Int {
        idCounter += 1
        return idCounter
    }

    /// The notes list of the current state, kept until the list or the drafts change (its rows
    /// are made when drawn, their relative times with them).
    var noteListing: NoteListing {
        let signature = NoteListing.Signature(state)
        if let cached = listingCache, cached.signature == signature {
            return cached.listing
        }
        let listing = NoteListing.make(state, format: format)
        listingCache = (signature, listing)
        return listing
    }
}

/// What every controller is given: the store, the configuration, the state, a way to ask a
/// question (a dialog in the state) and the UI effects. Nothing else is shared between them.
@MainActor
struct AppContext {
    let store: any RemoteStore
    let configuration: AppConfiguration
    let model: AppModel
    let effects: any UIEffects
    let compositor: Compositor
    let logger: Logger

    var state: AppState { model.state }

    /// Where every write the app makes at once goes (the queue's go through the outbox): in
    /// order with the queue, which follows moves (the core's ``OutboxSender/Direct``).
    var writes: OutboxSender.Direct { OutboxSender.Direct(store: store, outbox: configuration.outbox) }

    func update(_ change: (inout AppState) -> Void) { model.update(change) }

    /// Asks a question above everything else (a dialog, a prompt): it becomes part of the state,
    /// and the screen shows it until the layer `make` makes is answered.
    ///
    /// A question clears the status bar's message: what was said before it ("Saved …", an error
    /// of an earlier key) would read as news about the question. What the question leads to is
    /// said after it.
    @discardableResult
    func ask(_ make: @escaping @MainActor @Sendable () -> any Layer) -> Int {
        model.ask(.question, make: make) { $0.message = nil }
    }

    /// Shows a chooser (of files, of photos) above everything else, as ``ask(_:)`` does, with
    /// the status bar's message left as it was.
    func choose(_ make: @escaping @MainActor @Sendable () -> any Layer) {
        _ = model.ask(.chooser, make: make)
    }

    /// Says `message` in the status bar.
    func say(_ message: StatusMessage) { update { $0.message = message } }

    /// Tells whoever acts on `event` (the composition root routes it).
    func send(_ event: AppEvent) { model.onEvent(event) }

    @discardableResult
    func perform<T: Sendable>(_ work: @escaping @Sendable () async throws(RemoteError) -> T,
                              then deliver: @escaping @MainActor (Result<T, RemoteError>) -> Void) -> Task<Void, Never> {
        model.requestsSent += 1
        let sent = model.requestsSent
        return effects.perform(work) { [model] result in
            // Before the result is handled: a save that failed to reach the server finds the app
            // offline already, and queues itself. An answer to a request sent before one that
            // found the server unreachable is no sign it is back: the server may have answered
            // just before it went (a list's tags, behind the typing on a busy machine, came after
            // the refresh that found it gone and took the app back online). By when each was
            // sent, not when each ended: a request sent long before the probe that found the
            // server back, timing out after it, voided the probe's answer (ReachabilityOrderTests),
            // so requests in flight when the app went offline could keep it offline while the
            // server answered (a loaded run's app stayed offline for minutes).
            let current = sent > model.unreachableSent
            switch result {
            case .success where current: model.onReachability(nil)
            case .failure(let error) where error.isUnreachable:
                model.unreachableSent = max(model.unreachableSent, sent)
                model.onReachability(error)
            case .success, .failure(.cancelled), .failure(.local), .failure(.notSupported): break
            case .failure: if current { model.onReachability(nil) }
            }
            deliver(result)
        }
    }
}
