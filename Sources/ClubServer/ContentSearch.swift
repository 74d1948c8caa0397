import DropboxWire
import Durable
import Foundation
import SearchIndex
import Synchronization
import ServiceLifecycle

/// `search_v2` over the notes' contents: a ``SearchIndex`` of the served folder, kept in
/// `.byteclub/search/`, and kept current by the change journal.
///
/// The index remembers the journal position it was brought to (`synced`, beside it): from there
/// only the paths the journal names since are read again, so neither a search nor a restart
/// walks the folder. A server starts ``ContentIndexer``, which brings the index current as it
/// starts and whenever the journal moves, so the first search finds it ready; a search brings it
/// current too (a change a moment ago is found). Only a journal that is new, or compacted past
/// the index's position, sends it back to the whole folder: a walk (names and `stat`, no
/// hashing) compared with the index's revisions, reading only the notes whose revision changed.
///
/// Walks and reads use ``FolderPaths`` (a value), not the ``FolderStore`` actor: a sync never
/// holds up the requests. Hits are answered with each note's metadata as the store gives it now,
/// for the caller's role; nothing per note is kept in memory.
actor ContentSearch {
    /// The files whose text is indexed: the app's notes.
    static let noteExtensions: Set<String> = ["txt", "md"]
    /// Notes written to the index per transaction.
    static let batchSize = 256
    /// More records than this since the index's position (a big import): the whole folder is
    /// compared instead, one walk rather than a lookup per path.
    static let mostRecordsApplied = 5000

    private let directory: URL
    private var index: SearchIndex?
    /// The journal head the index was last brought to.
    private var syncedHead: UInt64?
    /// The sync under way, which a search waits for rather than starting another.
    private var syncing: Task<Void, any Error>?

    init(metaDirectory: String) {
        directory = URL(fileURLWithPath: metaDirectory).appendingPathComponent("search")
    }

    /// Notes under `scope` matching `query` (the ``SearchQuery`` language), best first.
    ///
    /// While the index does not yet cover the folder (a folder this server has never indexed, or
    /// one whose journal moved on too far), the files are read instead (``FolderScan``) and the
    /// index is built behind the answer: the first search after a first start costs a read of
    /// the folder, not the whole index. `complete` reads every file (an order other than the
    /// scan's is asked for); otherwise the scan stops once it has `limit` matches. `scan` asks
    /// for a scan whatever the index's state (a later page of a scanned search). Returns the
    /// matches and whether they were scanned.
    func search(_ query: SearchQuery, scope: DropboxPath, limit: Int, complete: Bool = false, scan: Bool = false,
                store: FolderStore) async throws -> (matches: [(FileMetadata, SearchHit)], scanned: Bool) {
        let index = try open()
        if scan || wholeSyncRunning || needsWholeSync(store: store) {
            store.logger.debug("search_v2 read the files: the content index does not cover the folder yet")
            let found = await FolderScan.search(query, scope: scope, limit: complete ? Int.max : limit, root: store.root,
                                                tree: await store.treeEntries())
            // Built behind the answer, not beside the scan: on two cores the build's reads and
            // writes made the first search wait for them.
            buildBehind(store: store)
            let answered = await answer(found.hits, scope: scope, store: store)
            // The hashes of the notes read, for the listings to come: taken in after the answer.
            if !found.hashes.isEmpty { Task { await store.learn(found.hashes) } }
            return (answered, true)
        }
        do {
            try await bringCurrent(store: store)
            return (await answer(try index.search(query, limit: limit), scope: scope, store: store), false)
        } catch SearchIndexError.damaged(let why) {
            // Pages found corrupt mid-query: start afresh (a sync fills it again).
            try forget(index, reason: why)
            try await bringCurrent(store: store)
            return (await answer(try index.search(query, limit: limit), scope: scope, store: store), false)
        }
    }

    /// A sync of the whole folder is under way (searches meanwhile read the files).
    private var wholeSyncRunning = false

    /// Whether bringing the index current means reading the whole folder: no position kept, or
    /// the journal compacted past it, or more records since than are worth applying one by one.
    private func needsWholeSync(store: FolderStore) -> Bool {
        let head = store.journal.position.head
        guard head != syncedHead else { return false }
        guard let from = syncedHead ?? Self.readMark(directory, identity: store.journal.sign("content-index")),
              let records = store.journal.records(after: from, through: head) else { return true }
        return records.count > Self.mostRecordsApplied
    }

    /// Starts bringing the index current without waiting for it (a search is being answered by
    /// a scan meanwhile); a sync already under way is left to finish.
    private func buildBehind(store: FolderStore) {
        guard syncing == nil else { return }
        Task { [weak self] in
            do { try await self?.bringCurrent(store: store) } catch {
                store.logger.warning("the content index could not be built: \(error)")
            }
        }
    }

    /// Brings the index to the journal's head, or waits for the sync already doing so.
    func bringCurrent(store: FolderStore) async throws {
        // One sync at a time: another may have started while this call waited for the last.
        while let running = syncing { try await running.value }
        // Read before syncing: a change landing meanwhile moves the head past it, so the next
        // call syncs again.
        let head = store.journal.position.head
        guard head != syncedHead else { return }
        let index = try open()
        // The task clears `syncing` itself, on this actor, before it ends: cleared by the caller
        // after its await, a waiter that found the task done looped on it without ever giving
        // the actor back (a search hung the server for 60 s, 1 run in 10 under load).
        let task = Task {
            defer { syncing = nil }
            try await sync(index, to: head, store: store)
        }
        syncing = task
        try await task.value
    }

    private func open() throws -> SearchIndex {
        if let index { return index }
        let opened = try SearchIndex(directory: directory)
        index = opened
        return opened
    }

    private func forget(_ index: SearchIndex, reason: String) throws {
        try index.reset(reason: reason)
        syncedHead = nil
        try? FileManager.default.removeItem(at: Self.markURL(directory))
    }

    // MARK: - Syncing

    private func sync(_ index: SearchIndex, to head: UInt64, store: FolderStore) async throws {
        let identity = store.journal.sign("content-index")
        let from = syncedHead ?? Self.readMark(directory, identity: identity)
        if let from, let records = store.journal.records(after: from, through: head), records.count <= Self.mostRecordsApplied {
            try apply(records, to: index, paths: store.paths)
        } else {
            wholeSyncRunning = true
            defer { wholeSyncRunning = false }
            store.logger.info("building the content index from the whole folder (searches read the files meanwhile)")
            try await syncWhole(index, store: store)
        }
        syncedHead = head
        Self.writeMark(directory, identity: identity, head: head)
    }

    /// The journal's records since the index's position: each path they name is read again as
    /// it is now (a note, a folder's notes, or nothing), whatever happened to it in between.
    private func apply(_ records: [JournalRecord], to index: SearchIndex, paths: FolderPaths) throws {
        var seen = Set<String>()
        var named: [String] = []
        var found: [IndexSync.Entry] = []
        // The newest record first: its spelling is the path's now.
        for record in records.reversed() where seen.insert(record.lower).inserted {
            named.append(record.display)
            guard let path = try? DropboxPath.checked(record.display), let resolved = try? paths.resolve(path), resolved.exists else { continue }
            if resolved.isDirectory {
                _ = try? paths.walk(resolved, recursive: true) { entry, info in
                    if !entry.isDirectory, Self.isNote(entry.path.name) { found.append(Self.entry(entry.path, info)) }
                    return true
                }
            } else if Self.isNote(resolved.path.name) {
                var info = stat()
                if stat(resolved.host, &info) == 0 { found.append(Self.entry(resolved.path, info)) }
            }
        }
        try index.remove(under: named, keeping: Set(found.map { $0.path.lowercased() }))
        for start in stride(from: 0, to: found.count, by: Self.batchSize) {
            try index.upsert(found[start..<min(found.count, start + Self.batchSize)].compactMap { Self.read($0, root: paths.root) })
        }
    }

    /// The whole folder's notes, as the tree snapshot has them (names and `stat`s), against the
    /// index's revisions; searches meanwhile are answered by scans, not held up by it. Each read
    /// gives way to a listing being paged (``ListingActivity``).
    ///
    /// The snapshot's notes are read as the index takes them, not copied into a list: a walk of
    /// its own made a third list of the folder beside the snapshot and a first listing's walk,
    /// 13 MiB of a 100,000-note server's peak (`heaptrack`, issue 71). The snapshot is as
    /// current as the journal (a change on disk is journalled when a rescan finds it), and the
    /// journal's records after the head this build started from are applied after it.
    ///
    /// Each note read is hashed as well, as a scan's are (``FolderScan``): the hashes go to the
    /// store a few thousand at a time, so that a listing after the build finds them known.
    private func syncWhole(_ index: SearchIndex, store: FolderStore) async throws {
        let listings = store.listingActivity
        try await listings.giveWay()
        let tree = await store.treeEntries()
        let entries = tree.values.lazy.filter { !$0.isDirectory && Self.isNote(Self.name(of: $0.display)) }.map(Self.entry)
        let root = store.paths.root
        let learnt = Mutex<[(key: FileKey, digest: HashBook.Digest)]>([])
        _ = try await IndexSync(index: index, maxConcurrentFetches: 4).run(listing: entries) { entry in
            try await listings.giveWay()
            let (text, hash) = try Self.hashedText(of: entry, root: root)
            if let hash, let full = learnt.withLock({ found -> [(key: FileKey, digest: HashBook.Digest)]? in
                found.append(hash)
                guard found.count >= Self.hashesPerHandover else { return nil }
                defer { found = [] }
                return found
            }) {
                await store.learn(full)
            }
            return text
        }
        let rest = learnt.withLock { $0 }
        if !rest.isEmpty { await store.learn(rest) }
    }

    /// Hashes an index build hands the store at a time.
    static let hashesPerHandover = 4096

    /// A note's text, and its content hash when the version read is the one `entry` names.
    private static func hashedText(of entry: IndexSync.Entry, root: String) throws -> (String, (key: FileKey, digest: HashBook.Digest)?) {
        var buffer: [UInt8] = []
        // Too big for a scan's buffer, or not read: the plain read says why.
        guard let (count, key) = FolderScan.read(Glibc.open(root + entry.path, O_RDONLY | O_CLOEXEC), size: Int(entry.size ?? 0), into: &buffer) else {
            return (try text(of: entry, root: root), nil)
        }
        let text = buffer.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[..<count]), as: UTF8.self) }
        guard let key, key.rev == entry.rev, let digest = FolderScan.hash(buffer, count: count) else { return (text, nil) }
        return (text, (key, digest))
    }

    /// The last component of a display path.
    private static func name(of display: String) -> Substring {
        display.lastIndex(of: "/").map { display[display.index(after: $0)...] } ?? display[...]
    }

    /// A note of the tree snapshot as the index takes it: its rev and time as its metadata has them.
    private static func entry(_ note: TreeSnapshot.Entry) -> IndexSync.Entry {
        let key = FileKey(inode: note.inode, size: note.size, ctimeNanoseconds: note.ctime, mtimeNanoseconds: note.mtime)
        return IndexSync.Entry(path: note.display, rev: key.rev, modified: Date(timeIntervalSince1970: TimeInterval(note.ctime / 1_000_000_000)),
                               modifiedBy: nil, size: note.size)
    }

    /// A note found on disk as the index takes it: its rev and time from its `stat`, as its
    /// metadata has them.
    static func entry(_ path: DropboxPath, _ info: stat) -> IndexSync.Entry {
        IndexSync.Entry(path: path.display, rev: FileKey(info).rev, modified: Date(timeIntervalSince1970: TimeInterval(info.st_ctim.tv_sec)),
                        modifiedBy: nil)
    }

    /// A note's text on disk (its path came from a walk or the journal, confined to the root).
    private static func text(of entry: IndexSync.Entry, root: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: root + entry.path)), as: UTF8.self)
    }

    private static func read(_ entry: IndexSync.Entry, root: String) -> IndexedNote? {
        guard let text = try? text(of: entry, root: root) else { return nil }
        return IndexedNote(path: entry.path, name: entry.name, rev: entry.rev, modified: entry.modified, modifiedBy: nil, text: text)
    }

    // MARK: - Answers

    /// Each hit under `scope` with its note's metadata now (a note gone since is left out).
    private func answer(_ hits: [SearchHit], scope: DropboxPath, store: FolderStore) async -> [(FileMetadata, SearchHit)] {
        let prefix = scope.lower + "/"
        var found: [(FileMetadata, SearchHit)] = []
        for hit in hits {
            guard scope.isRoot || hit.path.lowercased().hasPrefix(prefix), let path = try? DropboxPath.checked(hit.path),
                  case .file(let file)? = try? await store.metadata(path) else { continue }
            found.append((file, hit))
        }
        return found
    }

    static func isNote(_ name: some StringProtocol) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return noteExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    // MARK: - The index's position

    /// `synced` beside the index: the journal's identity (a signature only its secret makes) and
    /// the head the index was brought to. Written after the index's transactions, so at worst it
    /// is behind them (and records are applied twice, to the same result).
    private static func markURL(_ directory: URL) -> URL { directory.appendingPathComponent("synced") }

    /// The position kept for the journal of `identity`.
    private static func readMark(_ directory: URL, identity: String) -> UInt64? {
        guard let text = try? String(contentsOf: markURL(directory), encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count == 2, String(fields[0]) == identity,
              let head = UInt64(fields[1].trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return head
    }

    private static func writeMark(_ directory: URL, identity: String, head: UInt64) {
        try? DurableFile.write(Data("\(identity) \(head)\n".utf8), to: markURL(directory), flush: false)
    }
}

/// Brings the content index current soon after the server starts (not at once: its first
/// listings come first, and a folder never indexed is read whole), and again a moment after the
/// journal moves, so that the first `search_v2` finds it ready.
struct ContentIndexer: Service {
    let contentSearch: ContentSearch
    let store: FolderStore
    var interval: Duration = .seconds(2)
    var startDelay: Duration = .seconds(5)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            try await Task.sleep(for: startDelay)
            while !Task.isCancelled {
                do { try await contentSearch.bringCurrent(store: store) } catch is CancellationError { return } catch {
                    store.logger.warning("the content index could not be brought current: \(error)")
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
