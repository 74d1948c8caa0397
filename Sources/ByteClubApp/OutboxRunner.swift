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
/// stops between items; each result updates the open note (its base rev, its saved mark), the
/// drafts and the status bar.
@MainActor
final class OutboxRunner {
    let context: AppContext
    let refresher: Refresher
    weak var live: LiveUpdates?
    /// An item reached the server (merged: combined with changes made there meanwhile): the
    /// open note follows it.
    var onSent: (@MainActor (OutboxItem, RemoteEntry?, _ merged: Bool) -> Void)?
    /// An item's note is kept as a draft to merge by hand: the open note follows it.
    var onConflict: (@MainActor (OutboxItem) -> Void)?
    /// Called when the server answers again (pictures that failed offline are asked for again).
    var onBack: (@MainActor () -> Void)?

    /// When the app went offline, on the effects' clock.
    private var offlineSince: Double = 0
    /// Bumped when the server is back: a probe scheduled before then does nothing.
    private var probeGeneration = 0
    private var sending: Task<Void, Never>?
    private var sendAgain = false
    /// What the current run sent, for its closing message.
    private var sentInRun = 0
    private var problemsInRun = 0
    private var mergedInRun = 0
    /// The first thing the current run could not do as asked, said again when it ends.
    private var firstProblem: String?
    private var stopped = false

    init(context: AppContext, refresher: Refresher) {
        self.context = context
        self.refresher = refresher
    }

    private var outbox: Outbox? { context.configuration.outbox }
    private var state: AppState { context.state }

    /// Reads the outbox at start and sends what waits (from an earlier run, say one killed offline).
    func start() {
        refreshCounts()
        if state.offline.waiting > 0 { send() }
    }

    /// On quit: no more probes or sends (an item in flight is cancelled; it stays in the outbox).
    func stop() {
        stopped = true
        probeGeneration += 1
        sending?.cancel()
    }

    /// Takes the outbox's count and marks from disk.
    func refreshCounts() {
        let items = outbox?.all() ?? []
        context.update { $0.offline.take(items) }
    }

    /// Whether a change should go to the outbox rather than straight to the server: while
    /// offline, and while older items still wait (a change never overtakes one made before it).
    var shouldQueue: Bool { outbox != nil && (state.offline.isOffline || state.offline.waiting > 0) }

    /// Queues `items` durably (on disk before this returns) and says so; false when the outbox
    /// could not be written (the message says why; the caller keeps the text in its draft).
    func queue(_ items: [OutboxItem], saying message: String) -> Bool {
        guard let outbox else { return false }
        // A reader's change would only be refused when sent: it never enters the outbox.
        if state.readsOnly {
            context.say(.error(AppState.readerRefusal))
            return false
        }
        do {
            for item in items { try outbox.append(item) }
        } catch {
            context.logger.error("cannot write the outbox: \(error)")
            context.say(.error("Could not queue the change in the outbox (\(error.localizedDescription)); nothing was lost, the text stays in its draft"))
            refreshCounts()
            return false
        }
        refreshCounts()
        context.say(StatusMessage(message))
        send()
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
            guard let self, generation == self.probeGeneration, case .failure(let error) = result, error.isUnreachable,
                  self.state.offline.isOffline else { return }
            self.scheduleProbe(retryAfter: error.retryAfter)
        }
    }

    // MARK: Sending

    /// Sends the outbox, one item at a time, unless offline or a run is already going (which
    /// then goes on to what was queued since).
    func send() {
        guard let outbox, !state.offline.isOffline, !stopped else { return }
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
            delivered(report)
            refreshCounts()
            send()
        case .empty:
            refreshCounts()
            finishRun()
            if sendAgain {
                sendAgain = false
                send()
            }
        case .busy:
            // Another app (or `byteclub outbox --send`) is sending this outbox: look again soon.
            context.effects.after(.seconds(2)) { [weak self] in self?.send() }
        case .stopped(let error) where error.isUnreachable:
            refreshCounts()
            wentOffline(error)
        case .stopped(.cancelled):
            break
        case .stopped(let error):
            refreshCounts()
            context.say(.error("Could not send the outbox: \(error.message); trying again in 10 s"))
            context.effects.after(.seconds(10)) { [weak self] in self?.send() }
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

    /// One item's result: the open note, the drafts, the lists and the status bar follow it.
    private func delivered(_ report: OutboxReport) {
        let item = report.item
        context.logger.info("outbox", metadata: ["item": "\(item.kind.rawValue) \(item.path)", "result": "\(report.result)"])
        switch report.result {
        case .sent(let entry):
            sentInRun += 1
            onSent?(item, entry, false)
        case .merged(let entry, _):
            sentInRun += 1
            mergedInRun += 1
            onSent?(item, entry, true)
            context.say(.init("Merged \"\(TerminalSafe.escape(item.title))\" with changes made on the server meanwhile", kind: .success))
        case .conflict(_, let reason):
            problemsInRun += 1
            firstProblem = firstProblem ?? reason
            onConflict?(item)
            refresher.reloadDrafts()
            context.say(.error(reason))
        case .refused(let reason):
            problemsInRun += 1
            firstProblem = firstProblem ?? reason
            context.say(.error(reason))
        }
        // An item this app queued while that one was being sent: it follows it too.
        if let outbox {
            try? outbox.retargetFollowers(of: item, result: report.result)
        }
        // The sender drops a draft once the server has exactly its text: the rows follow.
        if item.draftID != nil { refresher.reloadDrafts() }
        // Our own change: the live updates are not to announce it as news.
        let photos = context.configuration.layout.photosFolder.lowercased() + "/"
        let tab: Tab = item.kind == .upload || item.path.lowercased().hasPrefix(photos) ? .photos : .notes
        refresher.ownChange(tab)
        if !(live?.isRunning ?? false) || item.kind == .delete || item.kind == .rename {
            refresher.refresh(tab)
        }
    }
}
