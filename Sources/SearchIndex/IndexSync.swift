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
    /// `listing` is not copied: the app hands a view of its list's table, and a sync keeps the
    /// positions of the notes it fetches, making each batch's entries as it sends it (issue 56).
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
        try await fetchChanged(count: stale.count, entry: { stale[$0] }, report: &report, fetch: fetch, fetchBatch: fetchBatch,
                               progress: progress)
        return report
    }

    /// Reads `listing` once, keeping only the positions of the notes to fetch: a first sync of
    /// 100,000 notes holds 100,000 positions, not 100,000 entries of four strings (issue 56),
    /// and each batch's entries are made again from the listing when it is sent. A path listed
    /// twice is taken once when the index has it (a note it lacks may then be fetched twice).
    private func pass<Listing: Collection<Entry>>(listing: Listing, fetch: @escaping Fetch, fetchBatch: FetchBatch?,
                                                   progress: Progress?) async throws -> Report {
        var report = Report()
        let known = try index.revisions()
        var unlisted = Set(known.keys)
        var changed: [Listing.Index] = []
        for position in listing.indices {
            let entry = listing[position]
            let lower = entry.path.lowercased()
            if let rev = known[lower] {
                guard unlisted.remove(lower) != nil else { continue }
                if rev == (entry.rev ?? "") {
                    report.unchanged += 1
                    continue
                }
            }
            changed.append(position)
        }
        for path in unlisted {
            try index.remove(path: path)
            report.removed += 1
        }
        try await fetchChanged(count: changed.count, entry: { listing[changed[$0]] }, report: &report, fetch: fetch,
                               fetchBatch: fetchBatch, progress: progress)
        return report
    }

    /// Fetches and indexes the `count` notes `entry(0..<count)` makes: in batches where the store
    /// reads them, alone otherwise. `entry` is asked again for each batch as it is sent.
    private func fetchChanged(count total: Int, entry: (Int) -> Entry, report: inout Report, fetch: @escaping Fetch,
                              fetchBatch: FetchBatch?, progress: Progress?) async throws {
        progress?(0, total)
        guard total > 0 else { return }

        var done = 0
        guard let fetchBatch else {
            try await fetchOneByOne(count: total, entry: entry, fetch: fetch, report: &report, done: &done, total: total, progress: progress)
            return
        }
        let alone = try await fetchInBatches(count: total, entry: entry, fetchBatch: fetchBatch, report: &report, done: &done,
                                             total: total, progress: progress)
        try await fetchOneByOne(count: alone.count, entry: { alone[$0] }, fetch: fetch, report: &report, done: &done, total: total,
                                progress: progress)
    }

    /// The batchable notes through `fetchBatch`, each answer written in one transaction; returns
    /// the notes left to fetch alone (too big, or not given by their batch).
    private func fetchInBatches(count: Int, entry: (Int) -> Entry, fetchBatch: @escaping FetchBatch, report: inout Report,
                                done: inout Int, total: Int, progress: Progress?) async throws -> [Entry] {
        // Positions of the notes small enough for a batch, cut into batches; each batch's notes
        // are made only when it is sent.
        var batched: [Int] = [], alone: [Entry] = []
        for position in 0..<count {
            let note = entry(position)
            if (note.size ?? 0) <= Self.largestBatchedNote { batched.append(position) } else { alone.append(note) }
        }
        let size = max(1, fetchBatchSize)
        let ranges = stride(from: 0, to: batched.count, by: size).map { $0..<min($0 + size, batched.count) }
        try await Self.inFlight(count: ranges.count, width: concurrentBatches, item: { batched[ranges[$0]].map(entry) }, { batch in
            let answer = try await fetchBatch(batch)
            return answer.count == batch.count ? answer : nil
        }) { batch, result in
            // A batch that threw is fetched note by note after.
            guard let answer = result ?? nil else {
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
    private func fetchOneByOne(count: Int, entry: (Int) -> Entry, fetch: @escaping Fetch, report: inout Report, done: inout Int,
                               total: Int, progress: Progress?) async throws {
        guard count > 0 else { return }
        var batch: [IndexedNote] = []
        var fetched = 0
        try await Self.inFlight(count: count, width: maxConcurrentFetches, item: entry, fetch) { entry, text in
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
    /// The items are made by `item(0..<count)` only as they start, so no more than `width` of
    /// them (and those finishing) exist at once.
    private static func inFlight<Item: Sendable, Result: Sendable>(
        count: Int, width: Int, item makeItem: (Int) -> Item, _ work: @escaping @Sendable (Item) async throws -> Result,
        take: (Item, Result?) throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Item, Result?).self) { group in
            var next = 0
            func startOne() {
                let item = makeItem(next)
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
            while next < min(max(1, width), count) { startOne() }
            while let (item, result) = try await group.next() {
                if next < count { startOne() }
                try take(item, result)
            }
        }
    }
}
