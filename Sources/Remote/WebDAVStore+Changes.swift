import Foundation

// The live club on WebDAV, by polling: WebDAV has no change journal and no longpoll, so the
// store takes a snapshot of names and ETags (the cursor, WebDAVSnapshot.swift), looks again on
// a schedule (WebDAVPolling.swift) until something differs, and diffs. The app's LiveUpdates
// and `byteclub watch` drive these calls exactly as they drive Dropbox's.

extension WebDAVStore {
    /// A cursor at the folder's present state: one `PROPFIND Depth: 1` (per folder when recursive).
    public func latestCursor(_ folder: String, recursive: Bool) async throws(RemoteError) -> RemoteCursor {
        let key = Self.lookKey(folder, recursive: recursive)
        if let kept = polling.takeKeptCursor(key) { return kept }
        let (snapshot, fresh) = try await look(folder, recursive: recursive, previous: nil)
        polling.keepLook(key, cursor: snapshot.cursor, entries: fresh, servedCursor: true)
        return snapshot.cursor
    }

    /// Looks at the cursor's folder every 10 s (every 2 s for 30 s after a write of this
    /// store's) until it differs from the cursor, or `timeout` seconds (1–480) pass.
    ///
    /// A look whose folder has an ETag asks for that alone (`Depth: 0`) and lists the folder
    /// only when it changed; rclone gives folders no ETag, so there every look is a listing.
    /// Looks keep one pace across calls: the first is one interval after the last look at the
    /// folder (the cursor taken, a change list, or the previous longpoll's last look), so a
    /// longpoll ending between two looks does not stretch the interval. Cancelling the task
    /// ends the wait at once.
    public func longpoll(_ cursor: RemoteCursor, timeout: TimeInterval) async throws(RemoteError) -> LongpollAnswer {
        let base = try WebDAVSnapshot(cursor: cursor)
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(max(1, min(480, timeout)) * 1000))
        let pace = Self.lookKey(cursor.folder, recursive: cursor.recursive)
        while true {
            let now = ContinuousClock.now
            let due = polling.nextLook(pace, started: start)
            if due <= now {
                polling.count { $0.checks += 1 }
                let current = try await look(cursor.folder, recursive: cursor.recursive, previous: base).snapshot
                if current.differs(from: base) { return LongpollAnswer(changes: true) }
                continue
            }
            if now >= deadline { return LongpollAnswer(changes: false) }
            // In short steps, so an own write (which brings the next look nearer) is heeded soon.
            let wake = min(due, deadline, now + .milliseconds(500))
            do { try await Task.sleep(until: wake, clock: .continuous) } catch { throw .cancelled }
        }
    }

    /// What differs between the cursor's snapshot and the folder now: deletions (a folder
    /// before what was in it), then additions and changes, each as the server lists it now.
    /// A cursor that is not a WebDAV snapshot throws `.cursorReset`.
    public func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges {
        let base = try WebDAVSnapshot(cursor: cursor)
        let (now, fresh) = try await look(cursor.folder, recursive: cursor.recursive, previous: base)
        let byPath = Dictionary(fresh.map { ($0.pathLower, $0) }, uniquingKeysWith: { _, last in last })
        return RemoteChanges(changes: base.changes(to: now, fresh: byPath), cursor: now.cursor)
    }

    /// Every entry under `folder`, in its subfolders too when `recursive` (folder by folder,
    /// `Depth: 1` each), without the folder itself. `partial`, when given, hears how far the
    /// listing has got while its answers are still arriving (``ListingReport``).
    public func listAll(_ folder: String, recursive: Bool, partial: (@Sendable (ListingProgress) -> Void)? = nil) async throws(RemoteError) -> [RemoteEntry] {
        // Just after a cursor was taken of the same folder, that look is this listing: it is
        // at the cursor, and the folder is not listed twice (and the other way round: the
        // listing's look keeps its cursor for the cursor asked next).
        let key = Self.lookKey(folder, recursive: recursive)
        if let kept = polling.takeKeptListing(key) { return WebDAVSnapshot.lastOfEach(kept.sorted { $0.pathLower < $1.pathLower }) }
        var report = partial.map { ListingReport($0) }
        var (snapshot, entries) = try await look(folder, recursive: recursive, previous: nil, report: &report)
        // One array of the entries, sorted where it is, both kept and answered (a 100,000-entry
        // folder was a dictionary, an array and its sorted copy at once: 66 MiB of the app's peak
        // on WebDAV for the dictionary alone, `heaptrack`, issue 56). A path a server listed
        // twice is kept once, as it last said it.
        entries.sort { $0.pathLower < $1.pathLower }
        entries = WebDAVSnapshot.lastOfEach(entries)
        polling.keepLook(key, cursor: snapshot.cursor, entries: nil, servedCursor: false)
        return entries
    }

    /// What this store's polling has sent so far (listings, ETag checks, listings skipped).
    public var pollCounts: WebDAVPollCounts { polling.counts }

    /// One look at `folder` (and, when `recursive`, each folder under it): a folder whose ETag
    /// is the one in `previous` keeps `previous`'s items without being listed; the rest are
    /// listed with `Depth: 1`. Answers the snapshot and the entries listed in this look.
    func look(_ folder: String, recursive: Bool, previous: WebDAVSnapshot?) async throws(RemoteError)
        -> (snapshot: WebDAVSnapshot, fresh: [RemoteEntry]) {
        var report: ListingReport?
        return try await look(folder, recursive: recursive, previous: previous, report: &report)
    }

    /// ``look(_:recursive:previous:)``, telling `report` of each entry as its folder's answer
    /// arrives. `fresh` is what was listed, in the order it came.
    func look(_ folder: String, recursive: Bool, previous: WebDAVSnapshot?, report: inout ListingReport?) async throws(RemoteError)
        -> (snapshot: WebDAVSnapshot, fresh: [RemoteEntry]) {
        polling.forgetStaleLooks()
        polling.looking(Self.lookKey(folder, recursive: recursive))
        var snapshot = WebDAVSnapshot(folder: folder, recursive: recursive)
        var fresh: [RemoteEntry] = []
        var queue = [folder]
        while let next = queue.popLast() {
            let key = next.lowercased()
            var reused = false
            if let previous, let etag = previous.folders[key], !etag.isEmpty, !polling.fullListingDue(key) {
                polling.count { $0.etagChecks += 1 }
                let current: String?
                do throws(RemoteError) {
                    current = try await folderETag(next)
                } catch .notFound(_) where next != folder {
                    continue  // gone since its parent was listed: the parent's next listing says so
                }
                if current == etag {
                    polling.count { $0.skippedListings += 1 }
                    for (child, item) in previous.children(of: key) { snapshot.items[child] = item }
                    snapshot.folders[key] = etag
                    reused = true
                }
            }
            if !reused {
                let listing: (etag: String?, entries: [RemoteEntry])
                do throws(RemoteError) {
                    listing = try await listWithETag(next) { report?.listed($0) }
                } catch .notFound(_) where next != folder {
                    continue
                }
                polling.listedWhole(key)
                snapshot.folders[key] = listing.etag ?? ""
                for entry in listing.entries { snapshot.add(entry) }
                if fresh.isEmpty { fresh = listing.entries } else { fresh += listing.entries }
            }
            if snapshot.items.count > listingLimits.maxEntries {
                throw .server(status: 0, detail: "\(folder.isEmpty ? "/" : folder) holds more than \(listingLimits.maxEntries) entries; stopped")
            }
            if recursive {
                queue += snapshot.children(of: key).filter { $0.item.isFolder }.map { $0.item.path }
            }
        }
        return (snapshot, fresh)
    }

    /// What looks at a folder are paced by: its lower-cased path, and whether subfolders count.
    static func lookKey(_ folder: String, recursive: Bool) -> String {
        folder.lowercased() + (recursive ? "/**" : "")
    }

    /// A folder's own ETag (`PROPFIND Depth: 0`), or nil when the server gives folders none.
    func folderETag(_ folder: String) async throws(RemoteError) -> String? {
        let resources = try await propfind(folder, depth: "0")
        let own = resources.first { storePath(ofHref: $0.href)?.lowercased() == folder.lowercased() }
        return own?.etag
    }

    /// A folder's children and its own ETag, in one `PROPFIND Depth: 1`: the one listing that
    /// ``listFolder(_:)``, the polls and `watch` all read. An href outside the folder (another
    /// path, or a URL on another host) refuses the whole answer, as a Dropbox listing is;
    /// uploads still on their way in (hidden temporary names, WebDAVStore+Upload.swift), ours
    /// or another member's, are no entries; past the listing limit it stops. Each response
    /// becomes an entry as it is parsed, so the listing never holds the answer's XML.
    func listWithETag(_ folder: String, listed: (RemoteEntry) -> Void = { _ in }) async throws(RemoteError) -> (etag: String?, entries: [RemoteEntry]) {
        var etag: String?
        var entries: [RemoteEntry] = []
        let folderLower = folder.lowercased()
        let shown = folder.isEmpty ? "/" : folder
        let limit = listingLimits.maxEntries
        try await propfind(folder, depth: "1") { (resource) throws(RemoteError) -> Void in
            if let status = resource.status, !(200..<300).contains(status) { return }
            guard let entry = entry(resource) else {
                throw .server(status: 0, detail: "the server answered a listing of \(shown) with \(resource.href), which is not inside it; refused")
            }
            if entry.pathLower == folderLower {
                // A file where a folder was named: said as the club server and Dropbox say it.
                if entry.kind == .file, !folder.isEmpty { throw .server(status: 409, detail: "path/not_folder/") }
                etag = resource.etag
                return
            }
            if Self.isTemporary(entry.name) { return }
            try ListingGuard.check(entry, in: folder)
            guard entries.count < limit else {
                throw .server(status: 0, detail: "the listing of \(shown) has more than \(limit) entries; stopped")
            }
            entries.append(entry)
            listed(entry)
        }
        return (etag, entries)
    }
}

/// How far a WebDAV listing has got, told to a first load's `partial` (the app shows the first
/// entries while the rest arrive): the first ``firstPage`` entries at once, then the count at
/// most every second, as the club server's and Dropbox's pages are told.
struct ListingReport {
    /// As many entries as a page of the club server's listing.
    static let firstPage = 2000

    private let partial: @Sendable (ListingProgress) -> Void
    private var first: [RemoteEntry] = []
    private var count = 0
    private var told: ContinuousClock.Instant?

    init(_ partial: @escaping @Sendable (ListingProgress) -> Void) { self.partial = partial }

    mutating func listed(_ entry: RemoteEntry) {
        count += 1
        if let told {
            guard ContinuousClock.now - told >= .seconds(1) else { return }
            partial(ListingProgress(firstPage: nil, count: count))
            self.told = .now
        } else {
            first.append(entry)
            guard first.count >= Self.firstPage else { return }
            partial(ListingProgress(firstPage: first, count: count))
            first = []
            told = .now
        }
    }
}
