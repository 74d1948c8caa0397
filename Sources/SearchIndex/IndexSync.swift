import Foundation

/// Brings an index current with a listing of the club's notes: fetches only notes whose
/// revision changed (a few at a time), forgets notes no longer listed, reports progress.
///
/// Shared by the app and the CLI. It knows nothing of Remote: the caller hands it the notes it
/// listed (``Entry``) and a way to fetch one note's text (from the server, or from the offline
/// cache). A damaged index is reset and filled from scratch, with the same progress.
public struct IndexSync: Sendable {
    /// One note of a listing.
    public struct Entry: Sendable, Hashable {
        public var path: String
        public var name: String
        public var rev: String?
        public var modified: Date?
        public var modifiedBy: String?
        /// The size the listing gave, when it gave one: big notes are never fetched in batches.
        public var size: Int64?

        public init(path: String, name: String? = nil, rev: String?, modified: Date?, modifiedBy: String?, size: Int64? = nil) {
            self.path = path
            self.name = name ?? IndexedNote.lastComponent(of: path)
            self.rev = rev
            self.modified = modified
            self.modifiedBy = modifiedBy
            self.size = size
        }
    }

    /// A note fetched in a batch: the entry as the server described what it sent (its rev may be
    /// newer than the listing's), and its text.
    public struct Fetched: Sendable {
        public var entry: Entry
        public var text: String
        public init(entry: Entry, text: String) {
            self.entry = entry
            self.text = text
        }
    }

    /// What a sync did.
    public struct Report: Sendable, Hashable {
        /// Notes fetched and indexed.
        public var indexed = 0
        /// Notes forgotten (no longer listed).
        public var removed = 0
        /// Notes whose revision had not changed.
        public var unchanged = 0
        /// Paths whose text could not be fetched (kept as they were indexed, if they were).
        public var failed: [String] = []
        /// The index was damaged and was filled again from scratch.
        public var rebuilt = false

        public init() {}
    }

    /// Fetches one note's text; thrown errors mark the note failed, except cancellation.
    public typealias Fetch = @Sendable (Entry) async throws -> String
    /// Fetches many notes in one request, answering in their order; nil for a note the batch
    /// could not give (it is fetched alone after). A throw fails the whole batch the same way.
    public typealias FetchBatch = @Sendable ([Entry]) async throws -> [Fetched?]
    /// Notes fetched so far, of those that needed fetching. Called on no particular thread.
    public typealias Progress = @Sendable (_ done: Int, _ total: Int) -> Void

    public let index: SearchIndex
    /// Fetches in flight at once.
    public var maxConcurrentFetches: Int
    /// Notes written per transaction.
    public var batchSize: Int

    /// Notes per batch request, when the store reads in batches.
    public var fetchBatchSize = 500
    /// Batch requests in flight at once: one being answered while the last one is written.
    public var concurrentBatches = 2
    /// Notes bigger than this are fetched alone, never in a batch.
    public static let largestBatchedNote: Int64 = 256 << 10

    public init(index: SearchIndex, maxConcurrentFetches: Int = 8, batchSize: Int = 256) {
        self.index = index
        self.maxConcurrentFetches = max(1, maxConcurrentFetches)
        self.batchSize = max(1, batchSize)
    }

    /// Makes the index hold exactly the notes of `listing`, at their revisions: through
    /// `fetchBatch` when given (each batch written in one transaction as it arrives, so a kill
    /// loses at most the batches in flight), and `fetch` for the rest.
    ///
    /// `listing` is read in one pass and not kept: the app hands a view of its list's table, so
    /// a first sync of 100,000 notes holds one array of the notes to fetch, not copies of the
    /// listing (issue 56).
    public func run(listing: some Collection<Entry>, fetch: @escaping Fetch, fetchBatch: FetchBatch? = nil,
                    progress: Progress? = nil) async throws -> Report {
        do {
            return try await pass(listing: listing, fetch: fetch, fetchBatch: fetchBatch, progress: progress)
        } catch SearchIndexError.damaged(let why) {
            try index.reset(reason: why)
            var report = try await pass(listing: listing, fetch: fetch, fetchBatch: fetchBatch, progress: progress)
            report.rebuilt = true
            return report
        }
    }

    /// Takes in what a change page said, with no look at the rest of the index: `removed`
    /// (lowercased paths) are forgotten, and the notes of `changed` whose revision the index
    /// does not have are fetched and indexed. A few changes to a 100,000-note club cost a few
    /// rows, not the whole index's revisions (issue 56). A damaged index throws: a whole
    /// ``run(listing:fetch:fetchBatch:progress:)`` puts it right.
    public func apply(changed: [Entry], removed: [String], fetch: @escaping Fetch, fetchBatch: FetchBatch? = nil,
                      progress: Progress? = nil) async throws -> Report {
        var report = Report()
        for path in removed {
            try index.remove(path: path)
            report.removed += 1
        }
        let known = try index.revisions(of: changed.map { $0.path.lowercased() })
        let stale = changed.filter { known[$0.path.lowercased()] != ($0.rev ?? "") }
        report.unchanged = changed.count - stale.count
        try await fetchChanged(stale, report: &report, fetch: fetch, fetchBatch: fetchBatch, progress: progress)
        return report
    }

    private func pass(listing: some Collection<Entry>, fetch: @escaping Fetch, fetchBatch: FetchBatch?, progress: Progress?) async throws -> Report {
        var report = Report()
        let known = try index.revisions()
        var listed = Set<String>()
        var changed: [Entry] = []
        for entry in listing {
            let lower = entry.path.lowercased()
            guard listed.insert(lower).inserted else { continue }
            if let rev = known[lower], rev == (entry.rev ?? "") {
                report.unchanged += 1
            } else {
                changed.append(entry)
            }
        }
        for path in known.keys where !listed.contains(path) {
            try index.remove(path: path)
            report.removed += 1
        }
        try await fetchChanged(changed, report: &report, fetch: fetch, fetchBatch: fetchBatch, progress: progress)
        return report
    }

    /// Fetches and indexes `changed`: in batches where the store reads them, alone otherwise.
    private func fetchChanged(_ changed: [Entry], report: inout Report, fetch: @escaping Fetch, fetchBatch: FetchBatch?,
                              progress: Progress?) async throws {
        var changed = changed
        let total = changed.count
        progress?(0, total)
        guard total > 0 else { return }

        var done = 0
        if let fetchBatch {
            changed = try await fetchInBatches(changed, fetchBatch: fetchBatch, report: &report, done: &done, total: total, progress: progress)
        }
        try await fetchOneByOne(changed, fetch: fetch, report: &report, done: &done, total: total, progress: progress)
    }

    /// The batchable notes through `fetchBatch`, each answer written in one transaction; returns
    /// the notes left to fetch alone (too big, or not given by their batch).
    private func fetchInBatches(_ changed: [Entry], fetchBatch: @escaping FetchBatch, report: inout Report, done: inout Int,
                                total: Int, progress: Progress?) async throws -> [Entry] {
        // Positions of the notes small enough for a batch, cut into batches; each batch's notes
        // are gathered only when it is sent.
        let batched = changed.indices.filter { (changed[$0].size ?? 0) <= Self.largestBatchedNote }
        var alone = changed.indices.filter { (changed[$0].size ?? 0) > Self.largestBatchedNote }.map { changed[$0] }
        let size = max(1, fetchBatchSize)
        let ranges = stride(from: 0, to: batched.count, by: size).map { $0..<min($0 + size, batched.count) }
        try await Self.inFlight(ranges, width: concurrentBatches, { range -> ([Entry], [Fetched?]?) in
            let batch = batched[range].map { changed[$0] }
            let answer = try await fetchBatch(batch)
            return (batch, answer.count == batch.count ? answer : nil)
        }) { range, result in
            // A batch that threw is fetched note by note after.
            let batch = result?.0 ?? batched[range].map { changed[$0] }
            guard let answer = result?.1 else {
                alone += batch
                return
            }
            var notes: [IndexedNote] = []
            for (asked, fetched) in zip(batch, answer) {
                guard let fetched else {
                    alone.append(asked)
                    continue
                }
                let entry = fetched.entry
                notes.append(IndexedNote(path: asked.path, name: asked.name, rev: entry.rev, modified: entry.modified,
                                         modifiedBy: entry.modifiedBy, text: fetched.text))
            }
            try index.upsert(notes)
            report.indexed += notes.count
            done += notes.count
            progress?(done, total)
        }
        return alone
    }

    /// Notes fetched one request each, a few at a time, written in transactions of `batchSize`.
    private func fetchOneByOne(_ changed: [Entry], fetch: @escaping Fetch, report: inout Report, done: inout Int,
                               total: Int, progress: Progress?) async throws {
        let count = changed.count
        guard count > 0 else { return }
        var batch: [IndexedNote] = []
        var fetched = 0
        try await Self.inFlight(changed, width: maxConcurrentFetches, fetch) { entry, text in
            done += 1
            fetched += 1
            if let text {
                batch.append(IndexedNote(path: entry.path, name: entry.name, rev: entry.rev, modified: entry.modified,
                                         modifiedBy: entry.modifiedBy, text: text))
            } else {
                report.failed.append(entry.path)
            }
            if batch.count >= batchSize || fetched == count {
                try index.upsert(batch)
                report.indexed += batch.count
                batch.removeAll(keepingCapacity: true)
            }
            progress?(done, total)
        }
    }

    /// Runs `work` on each item, at most `width` at once, and hands each item and its result
    /// (nil when `work` threw anything but cancellation) to `take` as they finish, one at a time.
    private static func inFlight<Item: Sendable, Result: Sendable>(
        _ items: [Item], width: Int, _ work: @escaping @Sendable (Item) async throws -> Result,
        take: (Item, Result?) throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Item, Result?).self) { group in
            var next = 0
            func startOne() {
                let item = items[next]
                next += 1
                group.addTask {
                    do {
                        return (item, try await work(item))
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        return (item, nil)
                    }
                }
            }
            while next < min(max(1, width), items.count) { startOne() }
            while let (item, result) = try await group.next() {
                if next < items.count { startOne() }
                try take(item, result)
            }
        }
    }
}
