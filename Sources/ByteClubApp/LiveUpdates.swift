import Foundation
import Remote
import TerminalUI

/// Lists that update themselves: each tab keeps a longpoll open on its folder and applies what
/// changed as a delta (``AppState/applyChanges(_:_:layout:format:before:)``), then says in the
/// status bar who changed what. The open note is told too (LiveUpdates+Note.swift).
///
/// Each tab runs a ``ChangeFeed`` (Remote), whose requests go one at a time through
/// ``UIEffects``: a fresh cursor and a listing after it (so nothing between them is missed), then
/// longpoll → changes → longpoll. A reset takes a fresh cursor and lists again. Failures wait
/// quietly, longer each time (0.5 s doubling to 30 s), and never put an error up: the lists' own
/// loads say when the server is gone. A store that cannot longpoll (`.notSupported`) just has
/// no live updates.
@MainActor
final class LiveUpdates {
    /// Seconds each longpoll waits at the server (the least Dropbox accepts).
    nonisolated static let pollTimeout: TimeInterval = 30
    /// The longest wait after failures in a row.
    nonisolated static let longestWait: Double = 30
    /// How long a page with a deletion waits for the rest of a move (its addition) before it
    /// is applied: a move is journaled as a deletion and an addition, and a longpoll may wake
    /// between them; taken together they are one rename, and the selection follows it.
    nonisolated static let moveWait: TimeInterval = 0.1

    /// The tabs' feeds: ended quietly by what cannot work, and by a Dropbox-like server
    /// without the cursor endpoint (400, 404, 501 before any cursor).
    nonisolated static let feedConfiguration = ChangeFeed.Configuration(
        pollTimeout: pollTimeout, backoff: Backoff(first: 0.5, longest: longestWait), moveWait: moveWait,
        ends: { error, hasCursor in
            if case .server(let status, _) = error, [400, 404, 501].contains(status), !hasCursor { return true }
            return ChangeFeed.Configuration.cannotWork(error, hasCursor: hasCursor)
        })

    /// A list longer than ``Refresher/bigList`` takes a burst's pages at most this often: each
    /// page makes its table and folder index again, a pass over every entry on the UI queue
    /// (60 ms a page in a 200,000-note club, a page a second for as long as a `put -r` ran).
    nonisolated static let bigListBurstWait: TimeInterval = 3

    /// The wait before the next longpoll in a burst: what the server asked, or longer for a big list.
    nonisolated static func burstWait(backoff: TimeInterval, listed: Int) -> TimeInterval {
        listed > Refresher.bigList ? max(backoff, bigListBurstWait) : backoff
    }

    let context: AppContext
    let refresher: Refresher
    /// Called after a change page was applied to a tab (tests and the benchmark wait on it).
    var onChangesApplied: (@MainActor (Tab, [LiveEvent]) -> Void)?
    /// Called with every change page as it came, before it is applied: a change of tags only
    /// (the same rev) is no change to the list, but the tags controller asks for the new tags.
    var onChangesReceived: (@MainActor (Tab, [RemoteChange]) -> Void)?
    /// Called when a longpoll's answer asks for a backoff with its changes: the server is taking
    /// a burst of commits (another member's `put -r`), and the index and the tags wait it out.
    /// It is told the wait before the next look (``burstWait(backoff:listed:)``).
    var onBurst: (@MainActor (Tab, TimeInterval) -> Void)?

    /// One tab's loop: its feed, and what carries its effects out.
    struct Feed {
        var machine = ChangeFeed(configuration: LiveUpdates.feedConfiguration)
        /// Which run of the loop this is (a wait of a stopped run then does nothing).
        let run: Int
        /// The request in flight, which ``stop()`` cancels.
        var task: Task<Void, Never>?
        /// Changes that came while the tab's list was loading: applied over the loaded list.
        var pending: [RemoteChange] = []
    }

    private var feeds: [Tab: Feed] = [:]
    /// Tabs whose first load runs before their cursor is taken (``RemoteStore/cursorIsAWholeListing``):
    /// false while that load runs, true once the cursor was asked for after it.
    private var listedBeforeCursor: [Tab: Bool] = [:]
    private var runs = 0
    /// Failures in a row of `tab`'s loop; its next try is scheduled in the same turn that counts one.
    func failuresInARow(_ tab: Tab) -> Int { feeds[tab]?.machine.failures ?? 0 }
    private(set) var isRunning = false
    /// The account of this app's token, so its own saves are not announced as news.
    private(set) var me: String?
    /// The open note's live channel, which takes another member's revision of a live note.
    weak var liveNotes: LiveNotes?
    /// Display names by account id (nil: the server could not say).
    var names: [String: String?] = [:]

    init(context: AppContext, refresher: Refresher) {
        self.context = context
        self.refresher = refresher
    }

    /// Starts both tabs' loops, each with a fresh cursor and a listing after it, or, for a tab
    /// whose list came from the disk cache at `cached` cursor, with the changes since then.
    func start(cached: [Tab: RemoteCursor] = [:]) {
        guard !isRunning else { return }
        isRunning = true
        let store = context.store
        context.perform({ () async throws(RemoteError) in try await store.currentAccount() }) { [weak self] result in
            guard let self, case .success(let account) = result else { return }
            self.me = account.id
            self.names[account.id] = account.displayName
        }
        for tab in Tab.allCases {
            runs += 1
            feeds[tab] = Feed(run: runs)
            let effects = feeds[tab]?.machine.start(from: cached[tab], at: context.effects.now()) ?? []
            carryOut(tab, effects)
        }
    }

    /// Whether this change page's deletions took `tab`'s list from `before` entries to none: the
    /// only way an empty list may replace a cached one.
    private func emptiedByJournal(_ tab: Tab, before: Int) -> Bool {
        before > 0 && context.state[tab].entries.isEmpty
    }

    /// Stops every loop (on quit): the requests in flight are cancelled, and no wait starts another.
    func stop() {
        isRunning = false
        listedBeforeCursor = [:]
        for tab in Tab.allCases {
            feeds[tab]?.machine.stop()
            feeds[tab]?.task?.cancel()
            feeds[tab] = nil
        }
    }

    /// Whether `tab` has a cursor and is longpolling (tests ask).
    func isWatching(_ tab: Tab) -> Bool { feeds[tab]?.machine.cursor != nil }

    private func folder(_ tab: Tab) -> String { context.configuration.layout.folder(of: tab) }

    // MARK: The loop

    /// Hands `event` to `tab`'s feed and carries out what it answers.
    private func handle(_ tab: Tab, _ event: ChangeFeed.Event) {
        guard isRunning, let effects = feeds[tab]?.machine.handle(event, at: context.effects.now()) else { return }
        carryOut(tab, effects)
    }

    /// Carries out a feed's effects: requests through ``UIEffects``, waits on its clock, logs
    /// only (the status bar is for the user's work).
    private func carryOut(_ tab: Tab, _ effects: [ChangeFeed.Effect]) {
        for effect in effects {
            guard isRunning, let run = feeds[tab]?.run else { return }
            switch effect {
            case .fetchCursor(let opening)
                where opening && context.store.cursorIsAWholeListing && listedBeforeCursor[tab] == nil
                    && !context.state[tab].hasLoaded && context.state[tab].entries.isEmpty:
                // A cursor would be a whole listing the first frame waits for: the list loads
                // first (its first entries on screen while the rest arrive), and the cursor is
                // taken from that look when it has loaded (``loadFinished(_:)``).
                listedBeforeCursor[tab] = false
                refresher.refresh(tab, live: true)
            case .fetchCursor(let opening):
                let store = context.store, folder = folder(tab), recursive = true
                request(tab, spinner: opening, { () async throws(RemoteError) in
                    try await store.latestCursor(folder, recursive: recursive)
                }, answer: ChangeFeed.Event.cursor) { [weak self] _ in
                    // The list loads anyway (unless it just did, before this cursor); the live
                    // part waits, or ends if it cannot be had. Later tries list again only once
                    // they have a cursor.
                    guard let self, opening, self.listedBeforeCursor[tab] != true else { return }
                    self.refresher.refresh(tab, live: true)
                }
            case .longpoll(let cursor, let timeout):
                let store = context.store
                request(tab, spinner: false, { () async throws(RemoteError) in
                    try await store.longpoll(cursor, timeout: timeout)
                }, answer: { [weak self] answer in
                    guard let self, let backoff = answer.backoff, answer.changes else { return .answered(answer) }
                    var paced = answer
                    paced.backoff = Self.burstWait(backoff: backoff, listed: self.context.state[tab].entries.count)
                    // Told the wait before the next look, not the server's backoff: a big list's
                    // pages come every 3 s, and a burst taken to end 2 s after a page ended
                    // between any two of them (the index synced, and the tags were asked for,
                    // after every page).
                    self.onBurst?(tab, paced.backoff ?? backoff)
                    return .answered(paced)
                })
            case .listChanges(let cursor, let opening):
                let store = context.store
                request(tab, spinner: opening, { () async throws(RemoteError) in
                    try await store.listChanges(since: cursor)
                }, answer: ChangeFeed.Event.changes) { [weak self] error in
                    // A cached list's first request, offline: the list loads anyway (its failure
                    // says `offline` over the cached list), once.
                    guard let self, opening, error.isUnreachable, self.failuresInARow(tab) == 0 else { return }
                    self.refresher.refresh(tab, live: true)
                }
            case .wait(let seconds, let token):
                feeds[tab]?.task = nil
                context.effects.after(.milliseconds(Int(seconds * 1000))) { [weak self] in
                    guard let self, self.feeds[tab]?.run == run else { return }
                    self.handle(tab, .waited(token: token))
                }
            case .fresh(let cursor):
                // The listing after this cursor is at it (a change between them comes again).
                refresher.refresh(tab, live: true, cursor: cursor)
            case .deliver(let changes, let cursor, let opening):
                let before = context.state[tab].entries.count
                if opening {
                    // A cached list catching up: applied at once, and cached at the new cursor;
                    // its count replaces "Loading…" (what the changes said stays).
                    apply(tab, changes)
                    context.update { $0.finishCatchingUp(tab) }
                    refresher.cacheList(tab, cursor: cursor, emptyIsConfirmed: emptiedByJournal(tab, before: before))
                } else {
                    deliver(tab, changes)
                    if !context.state[tab].isLoading {
                        refresher.cacheList(tab, cursor: cursor, emptyIsConfirmed: emptiedByJournal(tab, before: before))
                    }
                }
            case .reset:
                context.logger.info("the server reset the \(tab.noun) cursor; listing again")
            case .failing(let error, _, let inARow):
                // Said once per run of failures, in the log only.
                if inARow == 1 { context.logger.warning("live updates of \(tab.noun) paused: \(error.message); trying again") }
            case .recovered:
                break
            case .end(let error):
                context.logger.info("no live updates of \(tab.noun): \(error.message)")
                feeds[tab]?.task = nil
                // A cached list that will never catch up (this member was removed, or the token
                // refused) says why, in place of "updating…".
                switch error {
                case .unauthorized, .forbidden:
                    if context.state[tab].cachedAt != nil { context.update { $0.cannotLoad(tab, error) } }
                default: break
                }
            }
        }
    }

    /// Runs one request of `tab`'s feed and hands its answer back to the feed. `spinner`: the
    /// request counts as in flight for the status bar; `failed` sees a failure first.
    private func request<T: Sendable>(_ tab: Tab, spinner: Bool, _ work: @escaping @Sendable () async throws(RemoteError) -> T,
                                      answer: @escaping @MainActor (T) -> ChangeFeed.Event,
                                      failed: @escaping @MainActor (RemoteError) -> Void = { _ in }) {
        if spinner { context.update { $0.beginRequest() } }
        feeds[tab]?.task = context.perform(work) { [weak self] result in
            guard let self else { return }
            if spinner { self.context.update { $0.endRequest() } }
            guard self.isRunning else { return }
            switch result {
            case .success(let value):
                self.handle(tab, answer(value))
            case .failure(let error):
                failed(error)
                self.handle(tab, .failed(error))
            }
        }
    }

    /// The server answers again (OutboxRunner): every tab waiting out a failure tries now
    /// instead of at the end of its wait (up to 30 s), so the lists catch up with what changed
    /// meanwhile from their cursors at once.
    func wake() {
        for tab in Tab.allCases {
            guard isRunning, let effects = feeds[tab]?.machine.wake(at: context.effects.now()) else { continue }
            carryOut(tab, effects)
        }
    }

    // MARK: Applying

    /// Applies a change page: at once, or over the listing still loading.
    private func deliver(_ tab: Tab, _ changes: [RemoteChange]) {
        guard !changes.isEmpty else { return }
        if context.state[tab].isLoading {
            feeds[tab]?.pending += changes
            return
        }
        apply(tab, changes)
    }

    /// A tab's load was applied: changes that came meanwhile go over it (those the listing
    /// already had are no news and change nothing).
    func loadFinished(_ tab: Tab) {
        if listedBeforeCursor[tab] == false, isRunning, feeds[tab] != nil {
            listedBeforeCursor[tab] = true
            carryOut(tab, [.fetchCursor(opening: true)])
        }
        guard !context.state[tab].isLoading, let pending = feeds[tab]?.pending, !pending.isEmpty else { return }
        feeds[tab]?.pending = []
        apply(tab, pending)
    }

    private func apply(_ tab: Tab, _ changes: [RemoteChange]) {
        onChangesReceived?(tab, changes)
        let model = context.model, layout = context.configuration.layout, format = context.configuration.format
        let before = tab == .notes ? model.noteListing : nil
        var events: [LiveEvent] = []
        context.update { events = $0.applyChanges(tab, changes, layout: layout, format: format, before: before) }
        guard !events.isEmpty else { return }
        context.logger.info("live \(tab.noun)", metadata: ["changes": "\(events.count)"])
        onChangesApplied?(tab, events)
        withDeleters(of: events) { [weak self] events in
            self?.withNames(of: events) { [weak self] in
                self?.announce(tab, events)
                if tab == .notes {
                    self?.openNoteChanged(events)
                    self?.keptNotesChanged(events)
                }
            }
        }
    }

    /// Runs `body` with the page's deletions attributed where the server says who deleted
    /// (a club server's `deleted_by`, asked once, of the first: a page is one member's doing,
    /// a folder's deletion one request, not one a note), so a member's deletion is said with
    /// their name and this member's own is no news. Without deletions, at once.
    private func withDeleters(of events: [LiveEvent], _ body: @escaping @MainActor ([LiveEvent]) -> Void) {
        guard let first = events.first(where: { $0.kind == .deleted }) else { return body(events) }
        let store = context.store, path = first.entry.path
        context.perform({ () async throws(RemoteError) in try await store.revisions(path, limit: 1) }) { result in
            guard case .success(let revisions) = result, revisions.isDeleted, let deleter = revisions.deletedBy else { return body(events) }
            body(events.map { event in
                var event = event
                if event.kind == .deleted { event.modifiedBy = deleter }
                return event
            })
        }
    }

    /// Runs `body` once every author of `events` has a name (asked of the server once each).
    private func withNames(of events: [LiveEvent], _ body: @escaping @MainActor () -> Void) {
        withNames(of: events.compactMap(\.modifiedBy), body)
    }

    /// Runs `body` once every account of `accounts` has a name (asked of the server once each),
    /// and this member's own account is known (``me``: asked again here when the first ask at
    /// the start failed, so this member's changes are not taken for another's). A name the
    /// server could not give for a passing reason (offline, busy) is asked again next time.
    func withNames(of accounts: [String], _ body: @escaping @MainActor () -> Void) {
        let unknown = Array(Set(accounts.filter { names[$0] == nil }))
        let asksMe = me == nil && !accounts.isEmpty
        guard !unknown.isEmpty || asksMe else { return body() }
        let store = context.store
        context.perform({ () async throws(RemoteError) -> (me: RemoteAccount?, names: [String: String?]) in
            var mine: RemoteAccount?
            if asksMe { mine = try? await store.currentAccount() }
            var found: [String: String?] = [:]
            for id in unknown {
                do throws(RemoteError) {
                    found[id] = .some(try await store.account(id: id).displayName)
                } catch {
                    if !error.isTransient && error != .cancelled { found[id] = .some(nil) }
                }
            }
            return (mine, found)
        }) { [weak self] result in
            if let self, case .success(let answer) = result {
                if let mine = answer.me, self.me == nil {
                    self.me = mine.id
                    self.names[mine.id] = mine.displayName
                }
                self.names.merge(answer.names) { _, new in new }
            }
            body()
        }
    }

    /// A member's display name, or nil when unknown.
    func name(of account: String?) -> String? {
        guard let account, let name = names[account] else { return nil }
        return name
    }

    /// Who made a change, as the screen says it: ``you`` for this app's own account (a change
    /// it did not make itself: a command, another window) and, on a club of this machine's user
    /// alone, for one with no author; else the member's name, or nil (someone).
    func author(of account: String?) -> String? {
        if let account, account == me { return Self.you }
        if account == nil, context.configuration.changesWithoutAuthorAreYours { return Self.you }
        return name(of: account)
    }

    /// How a change of your own is said, within a sentence ("Changed by you at 10:42").
    nonisolated static let you = "you"

    /// Says what others changed: the first change, and how many more.
    private func announce(_ tab: Tab, _ events: [LiveEvent]) {
        // A change with no author (a deletion the server does not attribute, a move that kept
        // the last writer's revision): right after this app did one itself (and refreshed),
        // it is most likely ours, already said by whoever did it.
        let ownActionRecently = refresher.lastOwnRefresh[tab].map { context.effects.now() - $0 < 2 } ?? false
        let news = events.filter { event in
            // With authors, ours are no news; without (a folder moved as it was, a server of
            // one shared token), what comes right after something this app did is taken for ours.
            if let me, let author = event.modifiedBy { return author != me }
            return !ownActionRecently
        }
        guard let first = news.first else { return }
        var text = first.sentence(by: author(of: first.modifiedBy), tab: tab)
        if news.count > 1 { text += " (+\(news.count - 1) more)" }
        context.say(StatusMessage(text))
    }
}
