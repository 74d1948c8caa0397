import Foundation
import Synchronization

/// When a WebDAV store looks at its folders again, as a value: WebDAV has no longpoll, so the
/// live club polls, and this says how often.
///
/// Every 10 s normally, every 2 s for 30 s after a write of this store's own (a member who
/// just saved is the one most likely waiting for an answer), and a folder whose ETag stands
/// still is still listed whole every 5 minutes, for servers whose folder ETag follows only
/// the folder's own names (Apache's is its mtime) and not a file rewritten in place.
public struct WebDAVPollSchedule: Sendable, Equatable {
    public var interval: Duration
    /// The interval for `burstLength` after an own write.
    public var burstInterval: Duration
    public var burstLength: Duration
    /// A folder is listed whole at least this often, whatever its ETag says.
    public var fullListingEvery: Duration

    public init(interval: Duration = .seconds(10), burstInterval: Duration = .seconds(2), burstLength: Duration = .seconds(30),
                fullListingEvery: Duration = .seconds(300)) {
        self.interval = interval
        self.burstInterval = burstInterval
        self.burstLength = burstLength
        self.fullListingEvery = fullListingEvery
    }

    /// The wait between two looks at `now`, given the store's last own write.
    public func interval(at now: ContinuousClock.Instant, lastWrite: ContinuousClock.Instant?) -> Duration {
        guard let lastWrite, now - lastWrite < burstLength else { return interval }
        return min(interval, burstInterval)
    }

    /// When the look after `lastCheck` is due, seen at `now` (an own write since can bring it nearer).
    public func nextCheck(after lastCheck: ContinuousClock.Instant, at now: ContinuousClock.Instant,
                          lastWrite: ContinuousClock.Instant?) -> ContinuousClock.Instant {
        lastCheck + interval(at: now, lastWrite: lastWrite)
    }

    /// Whether a folder last listed whole at `listed` must be listed whole again, ETag or not.
    public func fullListingDue(listed: ContinuousClock.Instant?, at now: ContinuousClock.Instant) -> Bool {
        guard let listed else { return true }
        return now - listed >= fullListingEvery
    }
}

/// What polling has cost so far: the requests the live club sent (the benchmark and the tests read it).
public struct WebDAVPollCounts: Sendable, Equatable {
    /// `PROPFIND Depth: 1` listings taken for cursors, checks and change lists.
    public var listings = 0
    /// `PROPFIND Depth: 0` asking only a folder's ETag.
    public var etagChecks = 0
    /// Listings saved because the folder's ETag had not changed.
    public var skippedListings = 0
    /// Looks a longpoll took.
    public var checks = 0

    public init() {}
}

/// A WebDAV store's polling state, shared by its longpolls: the schedule, the time of its last
/// own write (`exchange` tells it of every successful PUT, DELETE, MOVE, COPY, MKCOL), when each
/// folder was last listed whole, and the counts. Lock-protected, so any task may ask.
public final class WebDAVPolling: Sendable {
    private struct State {
        var schedule = WebDAVPollSchedule()
        var lastWrite: ContinuousClock.Instant?
        /// By lower-cased folder path.
        var listed: [String: ContinuousClock.Instant] = [:]
        /// The last look at each cursor's folder (lower-cased, with "/**" when recursive).
        var looked: [String: ContinuousClock.Instant] = [:]
        var counts = WebDAVPollCounts()
        /// The last whole look at each folder, for the cursor or the listing that follows it
        /// (``KeptLook``); those no longer fresh are let go at the next keep or take.
        var kept: [String: KeptLook] = [:]
    }

    /// The methods that change what a folder holds.
    static let writeMethods: Set<String> = ["PUT", "DELETE", "MOVE", "COPY", "MKCOL", "PROPPATCH"]

    private let state = Mutex(State())

    public init() {}

    public var schedule: WebDAVPollSchedule {
        get { state.withLock { $0.schedule } }
        set { state.withLock { $0.schedule = newValue } }
    }

    public var counts: WebDAVPollCounts { state.withLock { $0.counts } }

    /// A request by this store finished: a successful write starts the short interval.
    func finished(_ method: String, succeeded: Bool) {
        guard succeeded, Self.writeMethods.contains(method) else { return }
        state.withLock { $0.lastWrite = .now }
    }

    /// When the next look at `look` is due: one interval after the last look at it, whichever
    /// call took that (a cursor, a change list, or the longpoll before this one), so looks keep
    /// their pace across longpolls (`started` when there was none).
    func nextLook(_ look: String, started: ContinuousClock.Instant) -> ContinuousClock.Instant {
        state.withLock { $0.schedule.nextCheck(after: $0.looked[look] ?? started, at: .now, lastWrite: $0.lastWrite) }
    }

    /// A look at `look` begins now.
    func looking(_ look: String) {
        state.withLock { $0.looked[look] = .now }
    }

    func fullListingDue(_ folderLower: String) -> Bool {
        state.withLock { $0.schedule.fullListingDue(listed: $0.listed[folderLower], at: .now) }
    }

    func count(_ body: (inout WebDAVPollCounts) -> Void) {
        state.withLock { body(&$0.counts) }
    }

    /// How long a look may stand for the cursor or the listing that follows it.
    static let keptLookLife: Duration = .seconds(30)

    /// Keeps a whole look at `look` (a cursor's, or a listing's): on WebDAV a cursor is a look at
    /// the whole folder, and the app takes one and lists the folder at it (or lists first, then
    /// takes the cursor): the one look serves both, not two PROPFINDs of a 100,000-note folder.
    /// A listing's look keeps only its cursor (`entries` nil): its entries were handed over, and
    /// kept here for 30 s they sat beside the app's table of them (40 MiB for 100,000 notes).
    func keepLook(_ look: String, cursor: RemoteCursor, entries: [RemoteEntry]?, servedCursor: Bool) {
        state.withLock { state in
            state.kept = state.kept.filter { Self.isFresh($0.value, lastWrite: state.lastWrite) }
            state.kept[look] = KeptLook(cursor: cursor, entries: entries, at: .now, cursorServed: servedCursor, listingServed: !servedCursor)
        }
    }

    /// The kept look's cursor, once, while it is the newest word on the folder; a listing at
    /// that cursor may then be taken from it too.
    func takeKeptCursor(_ look: String) -> RemoteCursor? {
        takeKept(look) { kept in
            guard !kept.cursorServed else { return nil }
            kept.cursorServed = true
            kept.listingServed = false
            return kept.cursor
        }
    }

    /// The kept look's entries, once, while it is the newest word on the folder.
    func takeKeptListing(_ look: String) -> [RemoteEntry]? {
        takeKept(look) { kept in
            guard !kept.listingServed, let entries = kept.entries else { return nil }
            kept.listingServed = true
            return entries
        }
    }

    /// What `take` makes of the kept look at `look` while it is fresh: taken within
    /// ``keptLookLife`` and before any write of this store's since. A look no longer fresh, or
    /// served both ways, is let go.
    private func takeKept<T>(_ look: String, _ take: (inout KeptLook) -> T?) -> T? {
        state.withLock { state -> T? in
            state.kept = state.kept.filter { Self.isFresh($0.value, lastWrite: state.lastWrite) }
            guard var kept = state.kept[look] else { return nil }
            let taken = take(&kept)
            state.kept[look] = kept.cursorServed && kept.listingServed ? nil : kept
            return taken
        }
    }

    /// Lets go of the looks no longer fresh (each look at a folder asks: a kept look of 100,000
    /// entries no cursor or listing came for is not held past its life).
    func forgetStaleLooks() {
        state.withLock { state in
            guard !state.kept.isEmpty else { return }
            state.kept = state.kept.filter { Self.isFresh($0.value, lastWrite: state.lastWrite) }
        }
    }

    private static func isFresh(_ kept: KeptLook, lastWrite: ContinuousClock.Instant?) -> Bool {
        ContinuousClock.now - kept.at < keptLookLife && lastWrite.map { $0 < kept.at } ?? true
    }

    func listedWhole(_ folderLower: String) {
        state.withLock {
            $0.listed[folderLower] = .now
            $0.counts.listings += 1
        }
    }
}

/// A whole look at a folder, kept (by the folder's look key) for the cursor or the listing that
/// follows it (WebDAVPolling).
struct KeptLook: Sendable {
    var cursor: RemoteCursor
    /// Nil when the look was a listing, already handed over: only its cursor is kept.
    var entries: [RemoteEntry]?
    var at: ContinuousClock.Instant
    var cursorServed: Bool
    var listingServed: Bool
}
