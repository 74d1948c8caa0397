import Foundation
import Remote

/// The tags of the notes list, kept in step with the server: shown from the cache at an offline
/// start, asked for whole after each load of the notes, and a note's again whenever the change
/// journal hands it back (another member tagged it: the same rev, so no change to the list
/// itself); written back to the cache a moment after they change. A helper: the refresher's
/// loads, the live updates' change pages and the tags' keys (``TagsController``) all reach it.
///
/// A store that keeps no tags (``TaggingStore`` missing, or a WebDAV server that refuses dead
/// properties) is said once, when a key asks, and the list shows no tags.
@MainActor
final class TagsSync {
    let context: AppContext
    /// Which fetch of the whole list is the latest; an older one that answers late is dropped.
    private var generation = 0
    private var cacheScheduled = false

    init(context: AppContext) {
        self.context = context
    }

    private var tagging: (any TaggingStore)? { context.store as? any TaggingStore }

    // MARK: Loading

    /// Shows the tags kept with the cached list (an offline start).
    func restoreCached() {
        guard let cached = context.configuration.cache?.tags() else { return }
        context.update { $0.tags.apply(cached, asked: [], replacingAll: true) }
    }

    /// After a load of the notes: the tags of every note, in one go.
    func loadFinished(_ tab: Tab) {
        let listing = context.state.notes
        guard tab == .notes, tagging != nil, context.state.tags.unavailable == nil, listing.error == nil, listing.cachedAt == nil else { return }
        generation += 1
        fetch(.all(listing.entries), replacingAll: true, generation: generation)
    }

    /// A change page: the notes it names are asked for their tags again; a deleted or renamed
    /// note's tags go (the journal names the new path too, which is asked for). During another
    /// member's burst of commits the notes are gathered and asked for once it has passed (a
    /// `put -r` of 10,000 notes seen live asked 100 calls while it ran).
    func changesArrived(_ tab: Tab, _ changes: [RemoteChange]) {
        guard tab == .notes, tagging != nil, context.state.tags.unavailable == nil else { return }
        for change in changes {
            switch change {
            case .updated(let entry) where entry.kind == .file:
                if waiting.insert(entry.pathLower).inserted { waitingPaths.append(entry.path) }
            case .updated: continue
            case .deleted(_, _, let pathLower):
                context.update { $0.tags.move(from: pathLower, to: nil) }
            }
        }
        askWaiting()
    }

    /// Notes of change pages whose tags are still to be asked for, by lower-cased path.
    private var waiting = Set<String>()
    private var waitingPaths: [String] = []
    /// The notes whose tags wait for a burst's end, by lower-cased path.
    var waitingForBurst: Set<String> { waiting }
    private var burst = BurstWindow()
    private var askScheduled = false

    /// The server is taking a burst of commits: the tags of the notes it changes are asked for
    /// when it has passed (``BurstWindow``).
    func burst(backoff: Double) {
        burst.told(backoff: backoff, now: context.effects.now())
    }

    private func askWaiting() {
        guard !waitingPaths.isEmpty, !askScheduled else { return }
        let wait = burst.wait(now: context.effects.now())
        guard wait <= 0 else {
            askScheduled = true
            context.effects.after(.milliseconds(Int(wait * 1000) + 1)) { [weak self] in
                self?.askScheduled = false
                self?.askWaiting()
            }
            return
        }
        let asked = waitingPaths
        waitingPaths = []
        waiting = []
        fetch(.paths(asked), replacingAll: false, generation: nil)
    }

    /// Whose tags a fetch asks for: the notes a change page named, or every note of the list.
    private enum Asked: Sendable {
        case paths([String])
        /// The list's notes, asked as many at a time as the store takes in a call
        /// (``TaggingStore/tagPathsPerCall``), a few calls in flight: a 100,000-note list is
        /// never an array of every path (issue 56), except for a store that reads a folder's
        /// tags at once, which is asked once.
        case all(EntryTable)
    }

    /// How many calls of a whole list's fetch are in flight.
    nonisolated static let callsInFlight = 4

    private func fetch(_ asked: Asked, replacingAll: Bool, generation: Int?) {
        guard let tagging else { return }
        context.perform({ () async throws(RemoteError) in
            switch asked {
            case .paths(let paths): return try await tagging.tags(of: paths)
            // A whole list's tags (after a load: 1,000 calls in a 100,000-note club, each
            // answer decoded) are background work, below the UI's priority.
            case .all(let table):
                return try await withTaskExecutorPreference(BackgroundExecutor.shared) { () async throws(RemoteError) in
                    try await Self.tags(of: table, from: tagging)
                }
            }
        }) { [weak self] result in
            guard let self else { return }
            if let generation, generation != self.generation { return }
            switch result {
            case .success(let found):
                let paths: [String]
                if case .paths(let asked) = asked { paths = asked } else { paths = [] }
                // Tags that change nothing (a page of new, untagged notes) leave the list alone.
                let before = self.context.state.tags.version
                var tags = self.context.state.tags
                tags.apply(found, asked: paths, replacingAll: replacingAll)
                if tags.version != before { self.updateKeepingSelection { $0.tags = tags } }
                self.scheduleCache()
            case .failure(.notSupported(let what)):
                self.context.update { $0.tags.unavailable = what }
            case .failure(let error):
                // The list is there without its tags; the next load or change asks again.
                self.context.logger.warning("could not read tags: \(error.message)")
            }
        }
    }

    /// The tags of every note of `table`, the store's ``TaggingStore/tagPathsPerCall`` paths a
    /// call, ``callsInFlight`` at once.
    nonisolated private static func tags(of table: EntryTable, from tagging: any TaggingStore) async throws(RemoteError) -> [String: [String]] {
        guard let perCall = tagging.tagPathsPerCall, perCall > 0 else { return try await tagging.tags(of: table.indices.map(table.path(at:))) }
        let chunks = stride(from: 0, to: table.count, by: perCall).map { $0..<min($0 + perCall, table.count) }
        do {
            return try await withThrowingTaskGroup(of: [String: [String]].self) { group in
                var found: [String: [String]] = [:]
                var next = 0
                func startOne() {
                    let paths = chunks[next].map(table.path(at:))
                    next += 1
                    group.addTask { () async throws(RemoteError) in try await tagging.tags(of: paths) }
                }
                while next < min(callsInFlight, chunks.count) { startOne() }
                while let some = try await group.next() {
                    if next < chunks.count { startOne() }
                    found.merge(some) { _, new in new }
                }
                return found
            }
        } catch let error as RemoteError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// Changes the tags with the selection kept on its note: a pin moves a row to the top.
    func updateKeepingSelection(_ change: (inout AppState) -> Void) {
        let keep = context.state.selectedPath(.notes, notes: context.model.noteListing)
        context.update(change)
        guard let keep else { return }
        let listing = context.model.noteListing
        context.update { $0.reselect(.notes, path: keep, notes: listing) }
    }

    // MARK: The cache

    func scheduleCache() {
        guard context.configuration.cache != nil, !cacheScheduled else { return }
        cacheScheduled = true
        context.effects.after(Refresher.cacheDelay) { [weak self] in self?.writeCache() }
    }

    private func writeCache() {
        cacheScheduled = false
        guard let cache = context.configuration.cache else { return }
        let tags = context.state.tags.byPath.mapValues(\.all)
        let logger = context.logger
        context.effects.perform({ () async throws(RemoteError) in
            do { try cache.saveTags(tags) } catch { logger.error("cannot write the cached tags: \(error)") }
        }) { _ in }
    }
}
