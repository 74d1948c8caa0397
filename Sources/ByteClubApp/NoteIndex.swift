import Foundation
import Remote
import SearchIndex
import TerminalUI

/// Keeping the search index current. The notes list is the app's picture of the club, and the
/// change journal (LiveUpdates, or WebDAV's polls) already keeps it current, own saves,
/// renames and deletions included; so the index follows the list: whenever the list's version
/// moves, a sync compares its revs with the index's and fetches only the notes that changed
/// (one note changed by another member → one download, one row). The first sync of a club, or
/// of a rebuilt index, shows `Indexing done/total` in the status bar.
///
/// Offline, nothing can be fetched: the index answers from what it holds, and the sync tries
/// again when the list moves or after a wait.
///
/// The file is shared: `byteclub search` and `links` on the same club bring the same index
/// current (``ClubIndexSync``, the one rule for both), so the app never trusts its last sync
/// alone. Whether another process wrote to the file is asked after each sync and when the
/// results screen opens (``lookForWritesElsewhere()``); if one did, the index is brought current
/// again against the notes list (only what differs is fetched), and the results ask again.
///
/// A helper: the search results, the backlinks, the links' renames and the notes opened offline
/// read it. Whenever it took in changes it sends ``AppEvent/indexChanged``, and what
/// shows an answer of the index asks again.
@MainActor
final class NoteIndex {
    let context: AppContext
    /// The index, once opened (off the UI queue, at start).
    private(set) var index: (any NoteSearchIndex)?
    /// Opens the index, off the UI queue; nil when the app keeps no cache (some tests).
    let openIndex: (@Sendable () throws(RemoteError) -> any NoteSearchIndex)?
    /// The notes listing version the index was last brought current against.
    private(set) var syncedVersion = -1
    /// Whether a sync runs now (one at a time; a change meanwhile runs another after it).
    private(set) var isSyncing = false
    /// Another process wrote to the index since the last sync began: the next sync runs even
    /// though the notes list has not moved.
    private var writtenElsewhere = false
    /// ``lookForWritesElsewhere()`` was asked during a sync: it asks when the sync ends.
    private var lookAfterSync = false
    /// Whether ``lookForWritesElsewhere()`` is asking now.
    private var isLooking = false
    /// Failures of the sync in a row: the wait before the next try, 1 s doubling to 30 s.
    private var syncBackoff = Backoff(first: 1, longest: NoteIndex.longestRetry)
    /// Whether the index was started afresh at open and is being filled again.
    private var rebuilding = false
    /// When the status bar's indexing figure last changed (``UIEffects/now()``).
    private var lastProgress = 0.0
    /// Lowercased alias → the lowercased paths of the notes whose front matter gives it
    /// (`aliases:`), as the index last read them: `[[alias]]` finds those notes.
    var aliases: [String: [String]] = [:]
    /// Called on the UI queue after the index took in changes (tests wait on it).
    var onIndexed: (@MainActor (Int) -> Void)?

    init(context: AppContext, openIndex: (@Sendable () throws(RemoteError) -> any NoteSearchIndex)?) {
        self.context = context
        self.openIndex = openIndex
    }

    var state: AppState { context.state }

    /// Fewer notes to fetch than this go by without a progress figure (a live change is one).
    static let quietSync = 20
    /// The least time between two progress figures, in seconds.
    static let progressInterval = 0.1
    /// The longest wait after failed syncs in a row.
    static let longestRetry: Double = 30

    /// Opens the index off the UI queue (a damaged file, or one from another version, is
    /// started afresh), then brings it current; a rebuild's progress shows like a first index's.
    func start() {
        guard let openIndex else { return }
        context.effects.perform({ () async throws(RemoteError) in try openIndex() }) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let index):
                self.index = index
                if let why = index.rebuiltBecause {
                    self.rebuilding = true
                    self.context.logger.warning("search index rebuilt: \(why)")
                    self.context.say(StatusMessage("The search index could not be used (\(TerminalSafe.escape(why))): rebuilding it"))
                }
                self.context.logger.info("search index open")
                // The results and a backlinks panel opened before the index was can ask now.
                self.context.send(.indexChanged)
                self.listingChanged()
            case .failure(let error):
                self.context.logger.error("cannot open the search index: \(error.message)")
                self.context.say(.error("Search is unavailable: \(error.message)"))
            }
        }
    }

    private func showProgress(done: Int, total: Int) {
        guard total >= Self.quietSync || (rebuilding && total > 0) else { return }
        // At most about ten frames a second: a frame per note would cost the index as much
        // time as the notes' own indexing.
        let now = context.effects.now()
        guard done == 0 || done == total || now - lastProgress >= Self.progressInterval else { return }
        lastProgress = now
        context.update { $0.indexing = IndexingProgress(done: done, total: total) }
    }

    /// The notes list may have changed (called after every state change; cheap when it did not).
    func listingChanged() {
        guard index != nil, !isSyncing else { return }
        let notes = state.notes
        guard notes.hasLoaded || notes.cachedAt != nil, notes.version != syncedVersion || writtenElsewhere else { return }
        // Another member's burst of uploads: the notes it adds are indexed once it has passed,
        // in one sync, not a sync per change page while the uploads run.
        let wait = burst.wait(now: context.effects.now())
        if syncedVersion >= 0, !writtenElsewhere, !rebuilding, wait > 0 {
            guard !waitingOutBurst else { return }
            waitingOutBurst = true
            context.effects.after(.milliseconds(Int(wait * 1000) + 1)) { [weak self] in
                self?.waitingOutBurst = false
                self?.listingChanged()
            }
            return
        }
        sync()
    }

    /// The burst of another member's commits the server last told of (``BurstWindow``).
    private var burst = BurstWindow()
    /// Whether a sync waits for the burst's end.
    private var waitingOutBurst = false

    /// The server is taking a burst of commits (another member's `put -r`): syncs of the
    /// changes wait for its end (``BurstWindow``).
    func burst(backoff: Double) {
        burst.told(backoff: backoff, now: context.effects.now())
    }

    /// The results screen opened: asks, off the UI queue, whether another process (`byteclub
    /// search` on this club) wrote to the index since it was last asked, and if so brings it
    /// current again against the notes list (a sync running now asks when it ends).
    func lookForWritesElsewhere() {
        guard let index, !isLooking else { return }
        // A sync under way may have read the file's version after another process wrote: ask
        // again once it has ended, or a write made meanwhile would go unseen.
        guard !isSyncing else {
            lookAfterSync = true
            return
        }
        isLooking = true
        context.effects.perform({ () async throws(RemoteError) -> Bool in index.changedElsewhere() }) { [weak self] answer in
            guard let self else { return }
            self.isLooking = false
            if case .success(true) = answer { self.foundWritesElsewhere() }
        }
    }

    /// Another process wrote to the index: a sync against the notes list puts back what it took
    /// away (or brings in what it left behind), as it would after a restart.
    private func foundWritesElsewhere() {
        context.logger.info("the search index was written by another byteclub (search, links): bringing it current")
        writtenElsewhere = true
        listingChanged()
    }

    /// Brings the index current against the notes list as it is now.
    private func sync() {
        guard let index else { return }
        let notes = state.notes
        let version = notes.version, entries = notes.entries
        // Current just before the last change pages, and nobody else wrote: only what they did.
        let pages = syncedVersion >= 0 && !writtenElsewhere && !rebuilding
            ? ListingChange.since(syncedVersion, through: version, in: notes.changeLog) : nil
        isSyncing = true
        // This sync reads the index after whatever another process wrote: it puts it right.
        writtenElsewhere = false
        let store = context.store
        let relay = context.effects.relay { [weak self] done, total in self?.showProgress(done: Int(done), total: Int(total)) }
        let began = context.effects.now()
        let firstSync = syncedVersion < 0
        let fetchBatch = IndexSync.batchFetch(from: store)
        context.effects.perform({ () async throws(RemoteError) -> (IndexSyncOutcome, [String: [String]]?, Bool) in
            // Below the UI's priority (``BackgroundExecutor``).
            try await withTaskExecutorPreference(BackgroundExecutor.shared) { () async throws(RemoteError) in
                let fetch = { @Sendable (path: String) async throws(RemoteError) -> String in
                    let (data, _) = try await store.read(path)
                    // A note that is not UTF-8 is indexed as far as it decodes (it opens read-only).
                    return String(decoding: data, as: UTF8.self)
                }
                let progress = { @Sendable (done: Int, total: Int) in relay(Int64(done), Int64(total)) }
                let outcome = if let pages {
                    try await index.apply(changed: pages.changed, removed: pages.removed, fetch: fetch, fetchBatch: fetchBatch, progress: progress)
                } else {
                    try await index.sync(entries, fetch: fetch, fetchBatch: fetchBatch, progress: progress)
                }
                // The aliases that front matter gives, read again when the texts changed.
                let changed = firstSync || outcome.indexed > 0 || outcome.removed > 0
                // `byteclub search` may have written meanwhile, from a listing older or newer than this one.
                let elsewhere = index.changedElsewhere()
                return (outcome, changed ? index.aliases() : nil, elsewhere)
            }
        }) { [weak self] answer in
            let result = answer.map(\.0)
            if case .success((_, let aliases?, _)) = answer { self?.aliases = aliases }
            guard let self else { return }
            self.isSyncing = false
            if case .success((_, _, true)) = answer { self.writtenElsewhere = true }
            if self.state.indexing != nil { self.context.update { $0.indexing = nil } }
            // The list this sync was against is done with; a newer one syncs next (a list from
            // the disk cache is followed by the server's, a new version).
            self.syncedVersion = version
            switch result {
            case .success(let outcome):
                let ms = Int((self.context.effects.now() - began) * 1000)
                if outcome.indexed > 0 || outcome.removed > 0 {
                    self.context.logger.info("search index synced", metadata: [
                        "indexed": "\(outcome.indexed)", "removed": "\(outcome.removed)", "failed": "\(outcome.failed)", "ms": "\(ms)"])
                    if outcome.rebuilt { self.context.logger.warning("search index damaged while syncing: rebuilt") }
                    if self.rebuilding || outcome.rebuilt {
                        self.context.say(StatusMessage("Rebuilt the search index: \(IndexingProgress.grouped(outcome.indexed)) notes"))
                    } else if outcome.indexed >= Self.quietSync {
                        self.context.say(StatusMessage("Indexed \(IndexingProgress.grouped(outcome.indexed)) notes for search"))
                    }
                    self.context.send(.indexChanged)
                    self.onIndexed?(outcome.indexed)
                }
                if outcome.failed == 0 {
                    self.rebuilding = false
                    self.syncBackoff.succeeded()
                } else {
                    self.retryLater("\(outcome.failed) note\(outcome.failed == 1 ? "" : "s") could not be fetched")
                }
            case .failure(let error):
                self.retryLater(error.message)
            }
            self.listingChanged()
            if self.lookAfterSync, !self.isSyncing {
                self.lookAfterSync = false
                self.lookForWritesElsewhere()
            }
        }
    }

    /// One backlinks query for whoever shows them (the Backlinks panel, the rendered view),
    /// off the UI queue; nothing while the index is not open.
    func backlinks(to path: String, _ deliver: @escaping @MainActor ([LinkingNote]) -> Void) {
        guard let index else {
            deliver([])
            return
        }
        let root = context.configuration.layout.folder
        context.effects.perform({ () async throws(RemoteError) in try index.backlinks(to: path, root: root, limit: 500) }) { result in
            deliver((try? result.get()) ?? [])
        }
    }

    /// Some notes could not be fetched (offline): what was indexed stays and answers searches;
    /// the rest is fetched on a later try, sooner if the list moves meanwhile.
    private func retryLater(_ why: String) {
        let wait = syncBackoff.failed()
        context.logger.warning("search index not current: \(why)")
        context.effects.after(.milliseconds(Int(wait * 1000))) { [weak self] in
            guard let self, !self.isSyncing else { return }
            self.syncedVersion = -1
            self.listingChanged()
        }
    }
}

/// The status bar's figure while the index is built or brought current: `Indexing 3,200/10,000`.
public struct IndexingProgress: Equatable, Sendable {
    public var done: Int
    public var total: Int

    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }

    public var figure: String { "Indexing \(Self.grouped(done))/\(Self.grouped(total))" }

    /// 10000 → "10,000".
    static func grouped(_ number: Int) -> String {
        let digits = String(abs(number))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (number < 0 ? "-" : "") + out
    }
}
