import DropboxWire
import Foundation

/// Listings and search, sorted by lower-case path.
extension FolderStore {
    /// Every entry under `path` (its children, or all descendants), sorted by lower-case path.
    func list(_ path: DropboxPath, recursive: Bool) throws(APIError) -> [Metadata] {
        let resolved = try resolve(path)
        guard resolved.exists else { throw .notFound }
        guard resolved.isDirectory else { throw .notFolder }
        // Adding or removing an entry changes the folder's mtime; rewriting a file in place
        // renames a new inode over it, which does too. A file edited in place on disk, or two
        // commits within one tick of the file system's clock, do not: the journal's head is in
        // the key as well, so a listing never hands out entries older than its cursor.
        // Recursive listings are never cached. The entries say `read_only` for a reader (their
        // `sharing_info`), so the caller's role is in the key: a reader listing right after an
        // editor must not be handed the editor's answer.
        let key = recursive ? nil : resolved.host + "|" + folderStamp(path) + "|" + String(journal.position.head) + "|"
            + (CallerRole.readsOnly ? "reader" : "writer")
        if let key, let cache = listingCache, cache.key == key, ContinuousClock.now - cache.time < .seconds(5) { return cache.entries }
        var entries: [Metadata] = []
        try walk(resolved, recursive: recursive) { entries.append($0) }
        flushIdentifiers()
        flushHashes()
        // Sorted by a key taken once per entry: comparing through the enum's computed
        // `pathLower` copied two strings per comparison (140,000 of them for 10,000 files).
        entries = entries.map { ($0.pathLower ?? "", $0) }.sorted { $0.0 < $1.0 }.map(\.1)
        if let key { listingCache = (key, ContinuousClock.now, entries) }
        return entries
    }

    /// How many levels below the root a recursive walk enters; folders deeper than this are
    /// listed but not entered (their paths would be near Dropbox's 4096-byte limit anyway).
    static let maxWalkDepth = 64

    /// Visits every entry of `start` (and, if `recursive`, of its folders), each once.
    ///
    /// The walk never enters a symlinked folder (it is listed, and reachable by name) and never
    /// enters a folder it has already seen by device and inode (a bind mount of an ancestor), so
    /// `ln -s . loop` costs one entry, not an endless descent. It stops at `maxWalkDepth` and
    /// when its task is cancelled (the server shutting down, the client gone).
    private func walk(_ start: Resolved, recursive: Bool, _ visit: (Metadata) -> Void) throws(APIError) {
        var visited = Set<DirectoryID>()
        var info = stat()
        guard stat(start.host, &info) == 0 else { return }
        visited.insert(DirectoryID(info))
        var pending = [start]
        var truncated = false
        while let directory = pending.popLast() {
            if Task.isCancelled { throw .cancelled }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.host) else { continue }
            for name in names {
                if directory.path.isRoot && name.lowercased() == DropboxPath.reservedName { continue }
                guard DropboxPath.isSafeComponent(name) else { continue }
                // The directory listing gave the exact name: no need to resolve from the root again.
                guard let (resolved, info) = try? existingEntry(named: name, in: directory.host, parent: directory.path),
                      let entry = try? metadata(resolved, info: info) else { continue }
                visit(entry)
                guard recursive, resolved.isDirectory, !resolved.isLink else { continue }
                guard resolved.path.components.count < Self.maxWalkDepth else {
                    truncated = true
                    continue
                }
                if visited.insert(DirectoryID(info)).inserted { pending.append(resolved) }
            }
        }
        if truncated { logger.warning("a walk of \(start.path) stopped at \(Self.maxWalkDepth) levels below the root") }
    }

    /// A folder's identity on the host, to enter each folder once.
    private struct DirectoryID: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// A version stamp of a folder: its mtime changes whenever an entry is added or removed.
    func folderStamp(_ path: DropboxPath) -> String {
        guard let resolved = try? resolve(path), resolved.exists else { return "gone" }
        var info = stat()
        guard stat(resolved.host, &info) == 0 else { return "gone" }
        return "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// Files and folders under `scope` whose names contain every word of `query`, with one of
    /// `extensions` and in one of `categories` (when given), by path or newest first.
    func search(scope: DropboxPath, query: String, extensions: [String], categories: [FileCategory] = [],
                newestFirst: Bool = false) throws(APIError) -> [Metadata] {
        let words = query.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        let wanted = Set(extensions.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) })
        let found = try list(scope, recursive: true).filter { entry in
            let name = entry.name.lowercased()
            let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) }
            if !wanted.isEmpty {
                guard case .file = entry, let ext, wanted.contains(ext) else { return false }
            }
            if !categories.isEmpty, !categories.contains(where: { Self.entry(entry, extension: ext, isIn: $0) }) { return false }
            return words.allSatisfy { name.contains($0) }
        }
        guard newestFirst else { return found }
        func modified(_ entry: Metadata) -> Date {
            if case .file(let file) = entry { return file.serverModified }
            return .distantPast
        }
        // Ties keep path order, so pages stay stable from one call to the next.
        return found.enumerated().sorted { a, b in
            let (x, y) = (modified(a.element), modified(b.element))
            return x != y ? x > y : a.offset < b.offset
        }.map(\.element)
    }

    /// Whether an entry belongs to a Dropbox file category, judged by its extension.
    private static func entry(_ entry: Metadata, extension ext: String?, isIn category: FileCategory) -> Bool {
        switch (entry, category) {
        case (.folder, .folder): return true
        case (.folder, _), (_, .folder), (.deleted, _): return false
        case (.file, .others): return !FileCategory.allCases.contains { ext.map($0.extensions.contains) ?? false }
        case (.file, _): return ext.map(category.extensions.contains) ?? false
        }
    }
}

/// Deltas: what changed under a folder, from journal records.
extension FolderStore {
    /// One entry of a delta, with the key that orders (and pages) it.
    struct DeltaEntry {
        var pathLower: String
        /// 0 for a deletion, 1 for an entry: a path removed and written again within one delta
        /// (a folder deleted and made anew) is reported deleted first, so a client drops what
        /// was inside it.
        var rank: Int
        var metadata: Metadata
    }

    /// The entries that `records` change under `folder`, as current metadata or deletions,
    /// ordered by `path_lower` (so a folder comes before what is in it) then rank.
    ///
    /// Several records of one path collapse into its state now: its metadata if it exists, a
    /// deletion if not. The folder itself (or an ancestor) removed is reported as the folder's
    /// deletion.
    func delta(of folder: DropboxPath, recursive: Bool, records: [JournalRecord]) -> [DeltaEntry] {
        let folderLower = folder.lower
        var folderRemoved = false
        var paths: [String: (display: String, last: JournalRecord.Kind, removed: Bool)] = [:]
        for record in records where record.concerns(folder: folderLower, recursive: recursive) {
            guard !record.isAtOrAbove(folder: folderLower) else {
                if record.kind == .removed { folderRemoved = true }
                continue
            }
            let removedBefore = paths[record.lower]?.removed ?? false
            paths[record.lower] = (record.display, record.kind, removedBefore || record.kind == .removed)
        }
        func deleted(_ display: String) -> Metadata {
            .deleted(DeletedMetadata(name: (display as NSString).lastPathComponent, pathLower: display.lowercased(), pathDisplay: display))
        }
        var entries: [DeltaEntry] = []
        if folderRemoved { entries.append(DeltaEntry(pathLower: folderLower, rank: 0, metadata: deleted(folder.display))) }
        for (lower, state) in paths {
            if state.removed { entries.append(DeltaEntry(pathLower: lower, rank: 0, metadata: deleted(state.display))) }
            guard state.last == .written else { continue }
            if let path = try? DropboxPath.checked(state.display), let current = try? metadata(path), current.pathLower == lower {
                entries.append(DeltaEntry(pathLower: lower, rank: 1, metadata: current))
            } else if !state.removed {
                entries.append(DeltaEntry(pathLower: lower, rank: 0, metadata: deleted(state.display)))
            }
        }
        flushIdentifiers()
        flushHashes()
        return entries.sorted { $0.pathLower != $1.pathLower ? $0.pathLower < $1.pathLower : $0.rank < $1.rank }
    }
}
