import Foundation
import Remote
import TerminalUI

/// A helper, not a controller (docs/architecture.md): loads each tab's list again after
/// something changed it, and reads the drafts and paused downloads kept on disk. Every
/// controller that changes the club asks it; it calls no controller.
@MainActor
final class Refresher {
    let context: AppContext
    /// Called after a load's result is applied (tests wait on it).
    var onLoadFinished: (@MainActor (Tab) -> Void)?
    /// Called after a load's result is applied, before ``onLoadFinished`` (the live updates
    /// apply changes that came while the list was loading).
    var afterLoad: (@MainActor (Tab) -> Void)?
    /// When each tab was last refreshed after something this app did (a save, a delete, a
    /// rename, `r`), on the effects' clock: a deletion the live updates see just then is ours.
    private(set) var lastOwnRefresh: [Tab: Double] = [:]
    /// The disk cache's bookkeeping (Refresher+Cache.swift): the cursor each tab's list is
    /// at, whether an empty list came from the change journal, and which writes are scheduled.
    var cacheCursors: [Tab: RemoteCursor] = [:]
    var cacheConfirmedEmpty: [Tab: Bool] = [:]
    var cacheScheduled: Set<Tab> = []
    /// When each tab's list was last written to the cache (``UIEffects/now()``).
    var cacheWrittenAt: [Tab: Double] = [:]
    /// Called after a list was written to the cache (true) or the write refused (tests wait on it).
    var onCacheWritten: (@MainActor (Tab, Bool) -> Void)?

    init(context: AppContext) {
        self.context = context
    }

    /// Loads `tab`'s list again; the current entries stay on screen until the result is in.
    /// The selection stays on the same file, or moves to `select` (a lowercased path).
    /// `live` is for the live updates' own listings, which are not something this app did.
    /// `cursor` is the change cursor the listing is at (the live updates took it just before).
    func refresh(_ tab: Tab, select: String? = nil, live: Bool = false, cursor: RemoteCursor? = nil) {
        if !live { lastOwnRefresh[tab] = context.effects.now() }
        var generation = 0
        context.update { generation = $0.beginLoad(tab) }
        let store = context.store, layout = context.configuration.layout
        // A first load with nothing on screen (no cache) shows the notes as they page in.
        let partial = context.state[tab].hasLoaded || !context.state[tab].entries.isEmpty
            ? nil : Self.partialRelay(context.effects.hop, to: self, tab: tab, generation: generation)
        context.perform({ () async throws(RemoteError) in try await layout.fetchListing(tab, from: store, partial: partial) }) { [weak self] result in
            self?.deliver(tab, generation: generation, result: result, select: select, cursor: cursor)
        }
    }

    private static func partialRelay(_ hop: UIHop, to refresher: Refresher, tab: Tab, generation: Int) -> @Sendable (ListingProgress) -> Void {
        { [weak refresher] progress in
            hop { refresher?.showPartial(tab, generation: generation, progress) }
        }
    }

    /// How far a first load has got: its first page on screen while it goes on, and the count
    /// in the status bar.
    private func showPartial(_ tab: Tab, generation: Int, _ progress: ListingProgress) {
        guard context.state[tab].generation == generation, context.state[tab].isLoading, !context.state[tab].hasLoaded else { return }
        context.update { $0.showPartialLoad(tab, progress.firstPage, count: progress.count) }
    }

    private func deliver(_ tab: Tab, generation: Int, result: Result<TabListing, RemoteError>, select: String?, cursor: RemoteCursor?) {
        let model = context.model
        let keep = select ?? model.state.selectedPath(tab, notes: model.noteListing)
        switch result {
        case .success(let listing):
            context.logger.info("loaded \(tab.noun)", metadata: ["count": "\(listing.entries.count + listing.folders.count + listing.files.count)"])
        case .failure(let error): context.logger.error("could not load \(tab.noun): \(error.message)")
        }
        let latest = generation == context.state[tab].generation
        context.update { $0.finishLoad(tab, generation: generation, listing: result) }
        if latest, case .success = result { cacheList(tab, cursor: cursor) }
        if let keep {
            let listing = tab == .notes ? model.noteListing : NoteListing(items: NoteItems([]), rows: NoteRows(NoteItems([]), format: model.format, offline: OfflineState(), tags: NoteTags()))
            context.update { $0.reselect(tab, path: keep, notes: listing) }
        }
        afterLoad?(tab)
        onLoadFinished?(tab)
    }

    /// Something this app did changed `tab`'s folder (the outbox sent it): the live updates take
    /// what they see next for ours, as after a refresh.
    func ownChange(_ tab: Tab) { lastOwnRefresh[tab] = context.effects.now() }

    /// Something this app did changed `tab`'s folder by `changes`, as the server answered them (a
    /// save's entry, a rename's two ends, a deletion): the list takes them in place, with no
    /// listing of the club (a 100,000-note club was listed whole after each save). Ours, so no
    /// news (``AppState/applyChanges(_:_:layout:format:before:)`` into a quiet update), and
    /// what the change feed says of them next is no news either (nothing new to apply). The
    /// selection moves to `select` (a lowercased path) when given; the cache follows.
    func took(_ tab: Tab, _ changes: [RemoteChange], select: String? = nil) {
        ownChange(tab)
        let model = context.model, layout = context.configuration.layout, format = context.configuration.format
        model.updateQuietly { _ = $0.applyChanges(tab, changes, layout: layout, format: format) }
        // The list as changed (made once, out of the update: it reads the state).
        let listing = select == nil ? nil : model.noteListing
        context.update { state in
            if let select, let listing { state.reselect(tab, path: select, notes: listing) }
        }
        // At the cursor the cache is at: the feed, if any, says these changes again from there.
        // (A list shown from the cache, not listed since, stays marked so.)
        if context.state[tab].hasLoaded, context.state[tab].cachedAt == nil { cacheList(tab, cursor: nil) }
    }

    /// A rename or move of the note at `path` the server answered with `moved`: its old row
    /// goes, its new one comes (a folder's notes are not in its entry: a folder moved is listed
    /// again).
    func took(moveFrom path: String, to moved: RemoteEntry, in tab: Tab = .notes) {
        guard moved.kind != .folder else { return refresh(tab, select: moved.pathLower) }
        took(tab, [Self.gone(path), .updated(moved)], select: moved.pathLower)
    }

    /// The change that says `path` is gone.
    static func gone(_ path: String) -> RemoteChange {
        .deleted(name: (path as NSString).lastPathComponent, path: path, pathLower: path.lowercased())
    }

    /// The change that says `entry` is gone (its own name and lowercase path).
    static func gone(_ entry: RemoteEntry) -> RemoteChange {
        .deleted(name: entry.name, path: entry.path, pathLower: entry.pathLower)
    }

    /// Reads the drafts folder (at start, and after a draft is set aside).
    func reloadDrafts() {
        guard let drafts = context.configuration.drafts else { return }
        let all = drafts.all()
        context.update { $0.drafts = all }
    }

    /// Reads the paused downloads kept from earlier runs.
    func reloadPausedDownloads() {
        guard let store = context.configuration.pausedDownloads else { return }
        let all = store.all()
        context.update { state in
            state.paused = Dictionary(all.map { ($0.path.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        }
    }
}
