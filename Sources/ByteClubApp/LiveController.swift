import Foundation
import Remote
import TerminalUI

/// Lists that update themselves: each tab keeps a longpoll open on its folder and applies what
/// changed as a delta (``AppState/applyChanges(_:_:layout:format:before:)``), then says in the
/// status bar who changed what. The open note is told too (LiveController+Note.swift).
///
/// Each tab runs a small loop of requests, one at a time, through ``UIEffects``: a fresh cursor
/// and a listing after it (so nothing between them is missed), then longpoll → changes →
/// longpoll. A reset takes a fresh cursor and lists again. Failures wait quietly, longer each
/// time (0.5 s doubling to 30 s), and never put an error up: the lists' own loads say when the
/// server is gone. A store that cannot longpoll (`.notSupported`) just has no live updates.
@MainActor
final class LiveController {
    /// Seconds each longpoll waits at the server (the least Dropbox accepts).
    static let pollTimeout: TimeInterval = 30
    /// The longest wait after failures in a row.
    static let longestWait: Double = 30

    let context: AppContext
    let lists: ListsController
    /// Called after a change page was applied to a tab (tests and the benchmark wait on it).
    var onChangesApplied: (@MainActor (Tab, [LiveEvent]) -> Void)?
    /// Called with every change page as it came, before it is applied: a change of tags only
    /// (the same rev) is no change to the list, but the tags controller asks for the new tags.
    var onChangesReceived: (@MainActor (Tab, [RemoteChange]) -> Void)?

    /// One tab's loop.
    struct Feed {
        var cursor: RemoteCursor?
        /// Failures in a row, for the wait before the next try.
        var failures = 0
        /// The request in flight, which ``stop()`` cancels.
        var task: Task<Void, Never>?
        /// Changes that came while the tab's list was loading: applied over the loaded list.
        var pending: [RemoteChange] = []
        /// The try waiting out a failure, which ``LiveController/wake()`` runs at once.
        var retry: (@MainActor () -> Void)?
        /// Which wait is the current one (a wait cut short by ``wake()`` then does nothing).
        var waitToken = 0
    }

    private var feeds: [Tab: Feed] = [:]
    /// Failures in a row of `tab`'s loop; its next try is scheduled in the same turn that counts one.
    func failuresInARow(_ tab: Tab) -> Int { feeds[tab]?.failures ?? 0 }
    private(set) var isRunning = false
    /// The account of this app's token, so its own saves are not announced as news.
    private(set) var me: String?
    /// Display names by account id (nil: the server could not say).
    var names: [String: String?] = [:]

    init(context: AppContext, lists: ListsController) {
        self.context = context
        self.lists = lists
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
            if let cursor = cached[tab] {
                feeds[tab] = Feed(cursor: cursor)
                catchUp(tab)
            } else {
                begin(tab, first: true)
            }
        }
    }

    /// Whether this change page's deletions took `tab`'s list from `before` entries to none: the
    /// only way an empty list may replace a cached one.
    private func emptiedByJournal(_ tab: Tab, before: Int) -> Bool {
        before > 0 && context.state[tab].entries.isEmpty
    }

    /// A cached list's first request: the changes since its cursor. Offline, the list loads
    /// anyway (its failure says `offline` over the cached list); a cursor the server forgot lists again.
    private func catchUp(_ tab: Tab) {
        guard isRunning, let cursor = feeds[tab]?.cursor else { return }
        let store = context.store
        context.update { $0.beginRequest() }
        feeds[tab]?.task = context.perform({ () async throws(RemoteError) in try await store.listChanges(since: cursor) }) { [weak self] result in
            guard let self else { return }
            self.context.update { $0.endRequest() }
            guard self.isRunning else { return }
            switch result {
            case .success(let delta):
                self.feeds[tab]?.cursor = delta.cursor
                let before = self.context.state[tab].entries.count
                self.apply(tab, delta.changes)
                self.lists.cacheList(tab, cursor: delta.cursor, emptyIsConfirmed: self.emptiedByJournal(tab, before: before))
                self.poll(tab)
            case .failure(.cursorReset):
                self.begin(tab, first: true)
            case .failure(let error):
                // Once, at the start: the list's own load says `offline` over the cached list.
                if error.isUnreachable, self.feeds[tab]?.failures == 0 { self.lists.refresh(tab, live: true) }
                self.failed(tab, error) { [weak self] in self?.catchUp(tab) }
            }
        }
    }

    /// Stops every loop (on quit): the requests in flight are cancelled, and no wait starts another.
    func stop() {
        isRunning = false
        for tab in Tab.allCases {
            feeds[tab]?.task?.cancel()
            feeds[tab] = nil
        }
    }

    /// Whether `tab` has a cursor and is longpolling (tests ask).
    func isWatching(_ tab: Tab) -> Bool { feeds[tab]?.cursor != nil }

    private func folder(_ tab: Tab) -> String { context.configuration.layout.folder(of: tab) }

    // MARK: The loop

    /// A fresh cursor, then the listing (in that order: a change made between them comes again
    /// as a change, and is no news if the listing had it). `first` is the start: the list loads
    /// even if no cursor can be had, and the request counts as in flight for the spinner.
    private func begin(_ tab: Tab, first: Bool = false) {
        guard isRunning else { return }
        let store = context.store, folder = folder(tab), recursive = tab == .photos
        feeds[tab, default: Feed()].cursor = nil
        if first { context.update { $0.beginRequest() } }
        feeds[tab]?.task = context.perform({ () async throws(RemoteError) in
            try await store.latestCursor(folder, recursive: recursive)
        }) { [weak self] result in
            guard let self else { return }
            if first { self.context.update { $0.endRequest() } }
            guard self.isRunning else { return }
            switch result {
            case .success(let cursor):
                self.feeds[tab]?.cursor = cursor
                self.feeds[tab]?.failures = 0
                // The listing after this cursor is at it (a change between them comes again).
                self.lists.refresh(tab, live: true, cursor: cursor)
                self.poll(tab)
            case .failure(let error):
                // The list loads anyway; the live part waits, or ends if it cannot be had. Later
                // tries list again only once they have a cursor.
                if first { self.lists.refresh(tab, live: true) }
                self.failed(tab, error) { [weak self] in self?.begin(tab) }
            }
        }
    }

    private func poll(_ tab: Tab) {
        guard isRunning, let cursor = feeds[tab]?.cursor else { return }
        let store = context.store, effects = context.effects
        let began = effects.now()
        feeds[tab]?.task = context.perform({ () async throws(RemoteError) in
            try await store.longpoll(cursor, timeout: Self.pollTimeout)
        }) { [weak self] result in
            guard let self, self.isRunning else { return }
            switch result {
            case .success(let answer):
                self.feeds[tab]?.failures = 0
                if answer.changes {
                    self.fetchChanges(tab)
                } else if answer.backoff == nil, effects.now() - began < 1 {
                    // A server that answers "nothing" at once would otherwise be asked in a tight loop.
                    effects.after(.seconds(1)) { [weak self] in self?.poll(tab) }
                } else {
                    self.poll(tab)
                }
            case .failure(let error):
                self.failed(tab, error) { [weak self] in self?.poll(tab) }
            }
        }
    }

    /// How long a page with a deletion waits for the rest of a move (its addition) before it
    /// is applied: a move is journaled as a deletion and an addition, and a longpoll may wake
    /// between them; taken together they are one rename, and the selection follows it.
    static let moveWait: Duration = .milliseconds(100)

    /// The changes since the cursor; `carried` are changes of a page held back for a move's rest.
    private func fetchChanges(_ tab: Tab, carried: [RemoteChange] = []) {
        guard isRunning, let cursor = feeds[tab]?.cursor else { return }
        let store = context.store
        feeds[tab]?.task = context.perform({ () async throws(RemoteError) in try await store.listChanges(since: cursor) }) { [weak self] result in
            guard let self, self.isRunning else { return }
            switch result {
            case .success(let delta):
                self.feeds[tab]?.cursor = delta.cursor
                self.feeds[tab]?.failures = 0
                let changes = carried + delta.changes
                let deletes = changes.filter { if case .deleted = $0 { true } else { false } }.count
                if carried.isEmpty, deletes > 0, deletes == delta.changes.count {
                    self.context.effects.after(Self.moveWait) { [weak self] in self?.fetchChanges(tab, carried: changes) }
                    return
                }
                let before = self.context.state[tab].entries.count
                self.deliver(tab, changes)
                if !self.context.state[tab].isLoading {
                    self.lists.cacheList(tab, cursor: delta.cursor, emptyIsConfirmed: self.emptiedByJournal(tab, before: before))
                }
                self.poll(tab)
            case .failure(let error):
                if !carried.isEmpty { self.deliver(tab, carried) }
                self.failed(tab, error) { [weak self] in self?.fetchChanges(tab) }
            }
        }
    }

    /// After a failure: a reset lists again at once, what cannot work ends the loop, and the
    /// rest waits (longer each time in a row) and then runs `again`, or starts over from a
    /// fresh cursor when waiting will not mend it.
    private func failed(_ tab: Tab, _ error: RemoteError, again: @escaping @MainActor () -> Void) {
        switch error {
        case .cancelled:
            return
        case .server(let status, _) where [400, 404, 501].contains(status) && feeds[tab]?.cursor == nil:
            // No cursor to be had at all: a Dropbox-like server without the endpoint.
            context.logger.info("no live updates of \(tab.noun): \(error.message)")
            feeds[tab]?.task = nil
            return
        case .notSupported, .unauthorized:
            context.logger.info("no live updates of \(tab.noun): \(error.message)")
            feeds[tab]?.cursor = nil
            feeds[tab]?.task = nil
            return
        case .cursorReset:
            context.logger.info("the server reset the \(tab.noun) cursor; listing again")
            if feeds[tab, default: Feed()].failures == 0 {
                feeds[tab]?.failures = 1
                begin(tab)
                return
            }
        default:
            break
        }
        var feed = feeds[tab, default: Feed()]
        feed.failures += 1
        feed.task = nil
        let wait = min(Self.longestWait, 0.5 * pow(2, Double(feed.failures - 1)))
        // Said once per run of failures, in the log only: the status bar is for the user's work.
        if feed.failures == 1 { context.logger.warning("live updates of \(tab.noun) paused: \(error.message); trying again") }
        let restart = !error.isTransient || error == .cursorReset || error == .notFound(folder(tab))
        feed.waitToken += 1
        let token = feed.waitToken
        feed.retry = { [weak self] in
            guard let self, self.isRunning else { return }
            if restart { self.begin(tab) } else { again() }
        }
        feeds[tab] = feed
        context.effects.after(.milliseconds(Int(wait * 1000))) { [weak self] in
            guard let self, self.feeds[tab]?.waitToken == token, let retry = self.feeds[tab]?.retry else { return }
            self.feeds[tab]?.retry = nil
            retry()
        }
    }

    /// The server answers again (OutboxController): every tab waiting out a failure tries now
    /// instead of at the end of its wait (up to 30 s), so the lists catch up with what changed
    /// meanwhile from their cursors at once.
    func wake() {
        for tab in Tab.allCases {
            guard let retry = feeds[tab]?.retry else { continue }
            feeds[tab]?.retry = nil
            feeds[tab]?.waitToken += 1
            retry()
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
        withNames(of: events) { [weak self] in
            self?.announce(tab, events)
            if tab == .notes { self?.openNoteChanged(events) }
        }
    }

    /// Runs `body` once every author of `events` has a name (asked of the server once each).
    private func withNames(of events: [LiveEvent], _ body: @escaping @MainActor () -> Void) {
        let unknown = Array(Set(events.compactMap(\.modifiedBy).filter { names[$0] == nil }))
        guard !unknown.isEmpty else { return body() }
        let store = context.store
        context.perform({ () async throws(RemoteError) -> [String: String?] in
            var found: [String: String?] = [:]
            for id in unknown {
                found[id] = try? await store.account(id: id).displayName
            }
            return found
        }) { [weak self] result in
            if case .success(let found) = result { self?.names.merge(found) { _, new in new } }
            body()
        }
    }

    /// A member's display name, or nil when unknown.
    func name(of account: String?) -> String? {
        guard let account, let name = names[account] else { return nil }
        return name
    }

    /// Says what others changed: the first change, and how many more.
    private func announce(_ tab: Tab, _ events: [LiveEvent]) {
        // A deletion or rename carries no author we can trust; right after this app did one
        // itself (and refreshed), it is most likely ours, already said by whoever did it.
        let ownActionRecently = lists.lastOwnRefresh[tab].map { context.effects.now() - $0 < 2 } ?? false
        let news = events.filter { event in
            // With authors, ours are no news; without (a deletion, a server of one shared
            // token), what comes right after something this app did is taken for ours.
            if let me, let author = event.modifiedBy, event.kind != .renamed { return author != me }
            return !ownActionRecently
        }
        guard let first = news.first else { return }
        var text = first.sentence(by: name(of: first.modifiedBy), tab: tab)
        if news.count > 1 { text += " (+\(news.count - 1) more)" }
        context.say(StatusMessage(text))
    }
}
