import DropboxWire
import Foundation
import Synchronization

/// Listings, searches and deltas, walked on the actor; what they keep and answer is
/// ``ListingCache``'s, ``FolderSearch``'s and ``ListingDelta``'s.
extension FolderStore {
    /// Every entry under `path` (its children, or all descendants), sorted by lower-case path.
    func list(_ path: DropboxPath, recursive: Bool) throws(APIError) -> [Metadata] {
        let entries = try walked(path, recursive: recursive, reuse: !recursive).entries.compactMap { try? metadata($0) }
        flushIdentifiers()
        flushHashes()
        return entries
    }

    /// Up to `limit` entries under `path` past `after` (a `path_lower`), sorted by lower-case
    /// path; `last` is the listing's key to go on from. A recursive listing is walked afresh for
    /// its first page; later pages (and a folder's own listing) reuse the walk while
    /// ``ListingCache`` keeps it. A listing of up to ``ListingCache/metadataKept`` entries gets
    /// all its metadata with the walk, kept for its pages; a bigger one gets a page's at a time
    /// (each entry stat'ed again), so its first page does not wait for 100,000 entries' ids and
    /// content hashes.
    func listPage(_ path: DropboxPath, recursive: Bool, after: String?, limit: Int) throws(APIError)
        -> (entries: [Metadata], last: String?, hasMore: Bool) {
        listingActivity.touch()
        defer { listingActivity.touch() }
        let (walk, wasReused, key) = try walked(path, recursive: recursive, reuse: !recursive || after != nil)
        listingActivity.touch(big: walk.count > ListingCache.metadataKept)
        var reused = wasReused
        if !reused, let key, walk.count <= ListingCache.metadataKept {
            // A listing whose metadata is all kept gets it all now, as the walk's stats are fresh:
            // its later pages are then only cut from what is kept.
            hashAhead(walk)
            listingCache.remember(walk.indices.compactMap { index in (try? metadata(walk[index])).map { (index, $0) } },
                                  for: key)
            reused = true
        }
        var madeBefore = reused ? key.map(listingCache.metadata(for:)) ?? [:] : [:]
        var index = ListingOrder.start(after: after, in: walk)
        // The page's entries whose metadata is to be made, each `stat`ed once: again when the
        // walk was reused (nil: gone since, or its metadata kept), then hashed side by side.
        let start = index, end = min(walk.count, index + limit)
        let page = reused ? Self.restat(walk, start..<end) { madeBefore[$0] != nil }
            : walk[start..<end].indices.map { madeBefore[$0] != nil ? nil : walk[$0] }
        hashAhead(page.compactMap { $0 })
        var entries: [Metadata] = []
        var made: [(index: Int, metadata: Metadata)] = []
        var last = after
        while index < walk.count, entries.count < limit {
            defer { index += 1 }
            last = walk[index].lower
            if let kept = madeBefore[index] {
                entries.append(kept)
                continue
            }
            // Gone since the walk: left out (the journal tells a cursor's holder). Past the page
            // (entries of it were gone), each is `stat`ed here.
            guard let entry = index < end ? page[index - start] : reused ? Self.restat(walk[index]) : walk[index] else { continue }
            if let metadata = try? metadata(entry) {
                entries.append(metadata)
                made.append((index, metadata))
            }
        }
        // Only a listing whose metadata is all kept keeps what a page made (a bigger one's pages
        // are asked once each); and the copy read above goes first, or remembering into the
        // kept dictionary copied it whole for each page (8% of a 100,000-file `ls`).
        madeBefore = [:]
        if let key, walk.count <= ListingCache.metadataKept, !made.isEmpty { listingCache.remember(made, for: key) }
        // Each write is the whole file: once per page made paging 100,000 new files quadratic
        // (17 s for `byteclub ls`). The last page, or every two seconds, writes what is new. (A
        // big listing's every ten seconds saved a ninth of a first listing's server time, but
        // the ids not yet written then grew to 100,000, and with them the server's peak, by 16
        // MiB; written after the last page was handed over, beside the next listing's walk, by 30.)
        let hasMore = index < walk.count
        if !hasMore || ContinuousClock.now - listingFlushed >= .seconds(2) {
            flushIdentifiers()
            flushHashes()
            listingFlushed = .now
        }
        // A big listing's next page is made while this one travels and the client reads it: the
        // pages of a first `ls` of 100,000 files took turns with the client's decoding, each
        // side idle while the other worked.
        if hasMore, let key, walk.count > ListingCache.metadataKept {
            listingCache.expect(index, for: key)
            Task { [weak self, index] in await self?.makeAhead(key: key, from: index, limit: limit) }
        }
        return (entries, last, hasMore)
    }

    /// The metadata of the page of the listing kept under `key` that starts at `from`, made
    /// before it is asked for (``ListingCache/keepAhead(_:for:)``); nothing once that page is no
    /// longer the next one expected (it was asked for meanwhile, or the listing is gone).
    private func makeAhead(key: String, from start: Int, limit: Int) {
        guard listingCache.expects(start, for: key), let walk = listingCache.entries(for: key, now: .now) else { return }
        let range = start..<min(walk.count, start + limit)
        let page = zip(range, Self.restat(walk, range)).compactMap { index, entry in entry.map { (index, $0) } }
        hashAhead(page.map(\.1))
        listingCache.keepAhead(page.compactMap { index, entry in (try? metadata(entry)).map { (index, $0) } }, for: key)
    }

    /// Hashes the files of a page whose versions the book does not know yet, side by side on
    /// every core (reading and hashing 2,000 new 1 KiB notes is most of a first listing's page),
    /// so that the page's metadata finds each hash known.
    private func hashAhead(_ entries: [WalkedEntry]) {
        var missing: [(host: String, key: FileKey)] = []
        for entry in entries {
            guard (entry.info.st_mode & S_IFMT) == S_IFREG else { continue }
            let key = FileKey(entry.info)
            if !hashes.knows(key) { missing.append((entry.resolved.host, key)) }
        }
        guard missing.count > 1 else { return }
        let hosts = missing.map(\.host)
        let found = Mutex([String?](repeating: nil, count: hosts.count))
        let lanes = min(hosts.count, ProcessInfo.processInfo.activeProcessorCount * 4)
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: hosts.count, by: lanes) {
                let hash = try? ContentHasher.hash(fileAt: hosts[index])
                found.withLock { $0[index] = hash }
            }
        }
        for (index, hash) in found.withLock({ $0 }).enumerated() {
            if let hash { hashes.record(hash, for: missing[index].key) }
        }
    }

    /// `entry` with its `stat` now, or nil when it is gone.
    private static func restat(_ entry: WalkedEntry) -> WalkedEntry? {
        var fresh = entry
        guard stat(entry.resolved.host, &fresh.info) == 0 else { return nil }
        return fresh
    }

    /// The entries of `walk` in `range` with their `stat` now (nil: gone, or `skip`ped). A run of
    /// entries of one folder is `stat`ed by name in the folder, opened once: by whole paths, the
    /// kernel walked `/…/club/byteclub/` again for each of a page's 2,000 entries.
    private static func restat(_ walk: [WalkedEntry], _ range: Range<Int>, skip: (Int) -> Bool = { _ in false }) -> [WalkedEntry?] {
        var folder: (of: WalkedFolder, descriptor: Int32)?
        defer { if let folder { close(folder.descriptor) } }
        return range.map { index in
            guard !skip(index) else { return nil }
            var fresh = walk[index]
            if folder?.of !== fresh.folder {
                if let folder { close(folder.descriptor) }
                let descriptor = open(fresh.folder.host, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                folder = descriptor >= 0 ? (fresh.folder, descriptor) : nil
            }
            // A walk's entry is followed if it is a link, as `stat` by its path follows it.
            guard let folder else { return restat(fresh) }
            return fstatat(folder.descriptor, fresh.name, &fresh.info, 0) == 0 ? fresh : nil
        }
    }

    /// The walk of `path`, sorted by lower-case path: kept for a few seconds (``ListingCache``)
    /// and reused when `reuse` (then `reused`).
    private func walked(_ path: DropboxPath, recursive: Bool, reuse: Bool) throws(APIError) -> (entries: [WalkedEntry], reused: Bool, key: String?) {
        let resolved = try resolve(path)
        guard resolved.exists else { throw .notFound }
        guard resolved.isDirectory else { throw .notFolder }
        let key: String? = ListingCache.key(host: resolved.host, folderStamp: paths.folderStamp(path) + (recursive ? "|all" : ""),
                                            journalHead: journal.position.head, readsOnly: CallerRole.readsOnly)
        if let key, reuse, let entries = listingCache.entries(for: key, now: .now) { return (entries, true, key) }
        var entries: [WalkedEntry] = []
        // A walk hands over a folder's entries together: they share one ``WalkedFolder``.
        var folder: WalkedFolder?
        let truncated = try paths.walk(resolved, recursive: recursive) { resolved, info in
            let parentHost = resolved.host.utf8.dropLast(resolved.path.name.utf8.count + 1)
            if folder.map({ !$0.host.utf8.elementsEqual(parentHost) }) ?? true {
                folder = WalkedFolder(host: String(Substring(parentHost)), path: resolved.path.parent)
            }
            entries.append(WalkedEntry(resolved, info: info, folder: folder))
            return true
        }
        if truncated { logger.warning("a walk of \(resolved.path) stopped at \(TreeWalker.maxDepth) levels below the root") }
        ListingOrder.sort(&entries)
        // The listing's pages will hash what the book does not know yet, and name what it has
        // no id for: their room, at once (growing the ids' table was a thirtieth of a first
        // listing of 100,000 files, and held the old table beside the new).
        hashes.reserve(entries.count)
        identifiers.reserve(entries.count)
        if let key { listingCache.keep(entries, for: key, at: .now) }
        return (entries, false, key)
    }

    /// Files and folders under `scope` that ``FolderSearch`` finds.
    func search(scope: DropboxPath, query: String, extensions: [String], categories: [FileCategory] = [],
                newestFirst: Bool = false) throws(APIError) -> [Metadata] {
        let search = FolderSearch(query: query, extensions: extensions, categories: categories, newestFirst: newestFirst)
        return search.results(try list(scope, recursive: true))
    }

    /// What `records` changed under `folder` (``ListingDelta``), as metadata now.
    func delta(of folder: DropboxPath, recursive: Bool, records: [JournalRecord]) -> [ListingDelta.Entry] {
        let entries = ListingDelta.entries(of: folder, recursive: recursive, records: records) { display in
            (try? DropboxPath.checked(display)).flatMap { try? metadata($0) }
        }
        flushIdentifiers()
        flushHashesSoon()
        return entries
    }

    /// Writes `content-hashes` at most every 2 s (10 s while a `put -r` is under way), and that
    /// long after the last change page that put it off. The file is every known hash (200,000
    /// lines in a big club), and an app open on the club asks a change page a second while a
    /// `put -r` commits: written per page, it was a fifth of the server's time beside the `put -r`
    /// (issue 56), and every 2 s still a twentieth. A hash not yet written is only computed again
    /// after a restart.
    func flushHashesSoon() {
        let interval: Duration = batchCommits.isUploading ? .seconds(10) : .seconds(2)
        if ContinuousClock.now - listingFlushed >= interval {
            flushHashes()
            listingFlushed = .now
            return
        }
        guard !hashesFlushScheduled else { return }
        hashesFlushScheduled = true
        Task { [weak self] in
            try? await Task.sleep(for: interval)
            await self?.flushScheduledHashes()
        }
    }

    private func flushScheduledHashes() {
        hashesFlushScheduled = false
        flushHashes()
        listingFlushed = .now
    }
}
