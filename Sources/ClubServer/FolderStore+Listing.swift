import DropboxWire
import Foundation

/// Listings, searches and deltas, walked on the actor; what they keep and answer is
/// ``ListingCache``'s, ``FolderSearch``'s and ``ListingDelta``'s.
extension FolderStore {
    /// Every entry under `path` (its children, or all descendants), sorted by lower-case path.
    /// A recursive one is walked afresh for its first page and kept for the pages after (`nextPage`).
    func list(_ path: DropboxPath, recursive: Bool, nextPage: Bool = false) throws(APIError) -> [Metadata] {
        let resolved = try resolve(path)
        guard resolved.exists else { throw .notFound }
        guard resolved.isDirectory else { throw .notFolder }
        let key: String? = ListingCache.key(host: resolved.host, folderStamp: paths.folderStamp(path) + (recursive ? "|all" : ""),
                                            journalHead: journal.position.head, readsOnly: CallerRole.readsOnly)
        if let key, !recursive || nextPage, let entries = listingCache.entries(for: key, now: .now) { return entries }
        var entries: [Metadata] = []
        let truncated = try paths.walk(resolved, recursive: recursive) { resolved, info in
            guard let entry = try? metadata(resolved, info: info) else { return false }
            entries.append(entry)
            return true
        }
        if truncated { logger.warning("a walk of \(resolved.path) stopped at \(TreeWalker.maxDepth) levels below the root") }
        flushIdentifiers()
        flushHashes()
        entries = ListingOrder.sorted(entries)
        if let key { listingCache.keep(entries, for: key, at: .now) }
        return entries
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
        flushHashes()
        return entries
    }
}
