import Foundation
import Remote
import TerminalUI

/// A helper, not a controller (docs/architecture.md). Offline and back: notices when the server cannot be reached, queues what the user does
/// meanwhile in the ``Outbox``, watches for the server's return and then sends the outbox in order.
///
/// Every request the controllers make through ``AppContext/perform(_:then:)`` tells this
/// helper whether the server answered (``AppModel/onReachability``): one that could not
/// reach it (refused at once; a stall after the UI's 10 s idle limit; a gateway's 502/503/504)
/// turns the app offline, and any other answer (even an error) turns it back online. While
/// offline a probe asks for the club folder's metadata (``OfflineProbe``: 1 s, then a tenth of
/// the outage so far, never more than 4 s, and never before a proxy's `Retry-After`); it comes
/// back at once when anything else (a longpoll, a load) gets an answer first.
///
/// Sending is one item per request (``OutboxSender/sendFirst()``), so a quit or a new failure
/// stops between items; each result is written to the state (OutboxRunner+Notes.swift): the open
/// note (its base rev, its saved mark, its text after a merge), the drafts and the status bar.
///
/// **The one save path.** An online `Ctrl-S` is queued here too (``sendNow(_:)``) and sent at
/// once by the same sender; its items' reports are sent as events (``AppEvent/saveAnswered(_:)``)
/// that the root hands to the save machine (``NoteSaves``, ``NoteSave``). Without an outbox of the user's (some tests), saves go through one
/// kept only for this run, and a save that cannot be sent is a failure, not a wait.
@MainActor
final class OutboxRunner {
    let context: AppContext
    let refresher: Refresher
    weak var live: LiveUpdates?
    /// Called when the server answers again (pictures that failed offline are asked for again).
    var onBack: (@MainActor () -> Void)?
    /// What waits in the outbox, as this app last wrote or was told: read from disk once at the
    /// start, then kept in step with each append, send and retarget (no read-back after a write).
    var pending: [OutboxItem] = []
    /// Items this app queued while a send was under way: that send's sender could not retarget them.
    var queuedDuringSend: Set<String> = []
    /// The items of the save the open editor waits for, in order: their answers are sent as
    /// ``AppEvent/saveAnswered(_:)``.
    var awaited: [String]?
    /// The outbox of this run only, when the user has none (created on the first save).
    private var sessionOutbox: Outbox?

    /// When the app went offline, on the effects' clock, and why.
    private var offlineSince: Double = 0
    private var offlineBecause: RemoteError = .network("the server cannot be reached")
    /// Bumped when the server is back: a probe scheduled before then does nothing.
    private var probeGeneration = 0
    private var sending: Task<Void, Never>?
    private var sendAgain = false
    /// What the current run sent, for its closing message.
    var sentInRun = 0
    var problemsInRun = 0
    var mergedInRun = 0
    /// The first thing the current run could not do as asked, said again when it ends.
    var firstProblem: String?
    private var stopped = false

    init(context: AppContext, refresher: Refresher) {
        self.context = context
        self.refresher = refresher
    }

    /// The user's outbox, which keeps changes across runs and while offline; nil: none.
    private var outbox: Outbox? { context.configuration.outbox }
    /// Where saves go: the user's outbox, or this run's.
    var queueOutbox: Outbox {
        if let outbox { return outbox }
        if let sessionOutbox { return sessionOutbox }
        let made = Outbox(directory: FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-saves-\(UUID().uuidString)"))
        sessionOutbox = made
        return made
    }
    var state: AppState { context.state }

    /// Reads the outbox at start and sends what waits (from an earlier run, say one killed offline).
    func start() {
        refreshCounts()
        if !pending.isEmpty { send() }
    }

    /// On quit: no more probes or sends (an item in flight is cancelled; it stays in the outbox).
    func stop() {
        stopped = true
        probeGeneration += 1
        sending?.cancel()
        if let sessionOutbox { try? FileManager.default.removeItem(at: sessionOutbox.directory) }
    }

    /// Reads the outbox from disk again (another app or `byteclub outbox` may have changed it).
    func refreshCounts() {
        pending = outbox?.all() ?? []
        publishCounts()
    }

    /// The status bar's count and the rows' marks, from ``pending``: a save the editor waits for
    /// is "Saving…", not waiting.
    func publishCounts() {
        guard outbox != nil else { return }
        let waiting = pending.filter { !(awaited?.contains($0.id) ?? false) }
        context.update { $0.offline.take(waiting) }
    }

    /// Whether a change should go to the outbox rather than straight to the server: while
    /// offline, and while older items still wait (a change never overtakes one made before it).
    var shouldQueue: Bool { outbox != nil && (state.offline.isOffline || state.offline.waiting > 0) }

    /// Queues `items` durably (on disk before this returns) and says so; false when the outbox
    /// could not be written (the message says why; the caller keeps the text in its draft).
    func queue(_ items: [OutboxItem], saying message: String) -> Bool {
        guard outbox != nil, append(items) else { return false }
        context.say(StatusMessage(message))
        send()
        return true
    }

    /// Writes `items` to the outbox durably, in order; false (said) when it could not.
    func append(_ items: [OutboxItem]) -> Bool {
        // A reader's change would only be refused when sent: it never enters the outbox.
        if state.readsOnly {
            context.say(.error(AppState.readerRefusal))
            return false
        }
        let outbox = queueOutbox
        do {
            for item in items {
                pending.append(try outbox.append(item))
                if sending != nil { queuedDuringSend.insert(item.id) }
            }
        } catch {
            context.logger.error("cannot write the outbox: \(error)")
            context.say(.error("Could not queue the change in the outbox (\(error.localizedDescription)); nothing was lost, the text stays in its draft"))
            refreshCounts()
            return false
        }
        publishCounts()
        return true
    }

    // MARK: Offline and back

    /// What a request's outcome said about the server (``AppModel/onReachability``).
    func reachability(_ error: RemoteError?) {
        // Without an outbox (some tests) nothing is queued, so nothing needs the server's return.
        guard outbox != nil else { return }
        if let error { wentOffline(error) } else { cameBack() }
    }

    private func wentOffline(_ error: RemoteError) {
        guard !state.offline.isOffline, !stopped else { return }
        context.logger.warning("offline: \(error.message)")
        context.update { $0.offline.isOffline = true }
        offlineSince = context.effects.now()
        offlineBecause = error
        scheduleProbe(retryAfter: error.retryAfter)
    }

    private func cameBack() {
        guard state.offline.isOffline else { return }
        context.logger.info("the server answers again")
        probeGeneration += 1
        context.update { $0.offline.isOffline = false }
        live?.wake()
        if !(live?.isRunning ?? false) {
            // No live updates to catch up: lists shown from the cache load again.
            for tab in Tab.allCases where state[tab].cachedAt != nil { refresher.refresh(tab, live: true) }
        }
        onBack?()
        send()
    }

    /// The next probe, never before a proxy's `retryAfter` (the wait its last answer asked for).
    private func scheduleProbe(retryAfter: Double? = nil) {
        let wait = OfflineProbe.wait(offlineFor: context.effects.now() - offlineSince, retryAfter: retryAfter)
        let generation = probeGeneration
        context.effects.after(.milliseconds(Int(wait * 1000))) { [weak self] in
            guard let self, generation == self.probeGeneration, self.state.offline.isOffline, !self.stopped else { return }
            self.probe()
        }
    }

    /// Asks the server for the club folder's metadata, the cheapest question it answers (no
    /// listing, no body to read); any answer brings the app back online (through the
    /// reachability hook), none schedules the next probe.
    private func probe() {
        let store = context.store, folder = context.configuration.layout.folder
        // A probe still out when the server came back (and went again) starts no second chain.
        let generation = probeGeneration
        context.perform({ () async throws(RemoteError) in
            _ = try await store.metadata(folder)
        }) { [weak self] result in
            guard let self, generation == self.probeGeneration, self.state.offline.isOffline else { return }
            // Still offline: no answer, or one that did not count (another request found the
            // server gone while this one was out, ``AppContext/perform(_:then:)``). Ask again.
            if case .failure(let error) = result, error.isUnreachable {
                self.scheduleProbe(retryAfter: error.retryAfter)
            } else {
                self.scheduleProbe()
            }
        }
    }

    // MARK: Sending

    /// Sends the outbox, one item at a time, unless offline or a run is already going (which
    /// then goes on to what was queued since).
    func send() {
        guard !stopped else { return }
        guard !state.offline.isOffline else {
            // Another request found the server gone before the editor's save went out (or while
            // another app held the outbox): it waits with the rest, and the editor is told so.
            if sending == nil, awaited != nil { stoppedAwaited(offlineBecause) }
            return
        }
        let outbox = queueOutbox
        guard sending == nil else {
            sendAgain = true
            return
        }
        var configured = OutboxSender(store: context.store, outbox: outbox, drafts: context.configuration.drafts,
                                      now: context.configuration.format.now)
        // Drafts are the UI queue's: the journal writes them there (NotesController.outboxSent).
        configured.removesSentDrafts = false
        let sender = configured
        // Not through the context: a step that could not reach the server is a success here,
        // and says so itself below.
        sending = context.effects.perform({ () async throws(RemoteError) in await sender.sendFirst() }) { [weak self] result in
            guard let self else { return }
            self.sending = nil
            guard case .success(let step) = result else { return }
            self.handle(step)
        }
    }

    private func handle(_ step: OutboxStep) {
        switch step {
        case .sent(let report):
            reachability(nil)
            followed(report)
            // What waits is what the outbox holds: another process (`byteclub` on this machine
            // sends the whole outbox) may have sent items this app still counted, and a draft
            // whose text the club now has would stay, held by an item long gone.
            pending = queueOutbox.all()
            if !answerAwaited(report) { delivered(report) }
            queuedDuringSend = []
            publishCounts()
            send()
        case .empty:
            // The sender found nothing: whatever else this app thought waits was sent by another.
            if pending.contains(where: { !queuedDuringSend.contains($0.id) }) { refreshCounts() }
            queuedDuringSend = []
            finishRun()
            if sendAgain {
                sendAgain = false
                send()
            }
        case .busy:
            // Another app (or `byteclub outbox --send`) is sending this outbox: look again soon.
            context.effects.after(.seconds(2)) { [weak self] in self?.send() }
        case .stopped(.cancelled):
            break
        case .stopped(let error):
            queuedDuringSend = []
            stoppedAwaited(error)
            if error.isUnreachable {
                reachability(error)
            } else if !pending.isEmpty {
                context.say(.error("Could not send the outbox: \(error.message); trying again in 10 s"))
                context.effects.after(.seconds(10)) { [weak self] in self?.send() }
            }
        }
    }

    private func finishRun() {
        defer {
            sentInRun = 0
            problemsInRun = 0
            mergedInRun = 0
            firstProblem = nil
        }
        let sent = "Sent \(sentInRun) change\(sentInRun == 1 ? "" : "s") from the outbox"
            + (mergedInRun > 0 ? " (\(mergedInRun) merged with changes made meanwhile)" : "")
        if let firstProblem {
            // Said once more at the end, so a later item's message cannot hide it.
            let more = problemsInRun > 1 ? " (+\(problemsInRun - 1) more)" : ""
            context.say(.error((sentInRun > 0 ? sent + "; " : "") + firstProblem + more))
        } else if sentInRun > 0 {
            context.say(.init(sent, kind: .success))
        }
    }
}
