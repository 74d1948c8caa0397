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

        public init(path: String, name: String? = nil, rev: String?, modified: Date?, modifiedBy: String?) {
            self.path = path
            self.name = name ?? IndexedNote.lastComponent(of: path)
            self.rev = rev
            self.modified = modified
            self.modifiedBy = modifiedBy
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
    /// Notes fetched so far, of those that needed fetching. Called on no particular thread.
    public typealias Progress = @Sendable (_ done: Int, _ total: Int) -> Void

    public let index: SearchIndex
    /// Fetches in flight at once.
    public var maxConcurrentFetches: Int
    /// Notes written per transaction.
    public var batchSize: Int

    public init(index: SearchIndex, maxConcurrentFetches: Int = 8, batchSize: Int = 256) {
        self.index = index
        self.maxConcurrentFetches = max(1, maxConcurrentFetches)
        self.batchSize = max(1, batchSize)
    }

    /// Makes the index hold exactly the notes of `listing`, at their revisions.
    public func run(listing: [Entry], fetch: @escaping Fetch, progress: Progress? = nil) async throws -> Report {
        do {
            return try await pass(listing: listing, fetch: fetch, progress: progress)
        } catch SearchIndexError.damaged(let why) {
            try index.reset(reason: why)
            var report = try await pass(listing: listing, fetch: fetch, progress: progress)
            report.rebuilt = true
            return report
        }
    }

    private func pass(listing: [Entry], fetch: @escaping Fetch, progress: Progress?) async throws -> Report {
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
        let total = changed.count
        progress?(0, total)
        guard total > 0 else { return report }

        var batch: [IndexedNote] = []
        var done = 0
        try await withThrowingTaskGroup(of: (Entry, String?).self) { group in
            var next = 0
            func startOne() {
                let entry = changed[next]
                next += 1
                group.addTask {
                    do {
                        return (entry, try await fetch(entry))
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        return (entry, nil)
                    }
                }
            }
            while next < min(maxConcurrentFetches, total) { startOne() }
            while let (entry, text) = try await group.next() {
                if next < total { startOne() }
                done += 1
                if let text {
                    batch.append(IndexedNote(path: entry.path, name: entry.name, rev: entry.rev, modified: entry.modified,
                                             modifiedBy: entry.modifiedBy, text: text))
                } else {
                    report.failed.append(entry.path)
                }
                if batch.count >= batchSize || done == total {
                    try index.upsert(batch)
                    report.indexed += batch.count
                    batch.removeAll(keepingCapacity: true)
                }
                progress?(done, total)
            }
        }
        return report
    }
}
