import DropboxWire

/// How far a store follows a listing's cursors before it decides the server will never stop.
///
/// A server that always answers `has_more: true` would otherwise make a listing grow without
/// end (666 MB after 18 s, against a hostile server). A real folder of a million entries still
/// lists; past that, or when a cursor comes back a second time, or after a run of empty pages
/// that each promise more, the listing stops with a clear error.
public struct ListingLimits: Sendable, Equatable {
    /// The most entries one listing (or search) gathers.
    public var maxEntries: Int
    /// The most pages in a row that bring nothing but say there is more.
    public var maxEmptyPagesInARow: Int

    public init(maxEntries: Int = 1_000_000, maxEmptyPagesInARow: Int = 100) {
        self.maxEntries = max(1, maxEntries)
        self.maxEmptyPagesInARow = max(1, maxEmptyPagesInARow)
    }

    public static let standard = ListingLimits()
}

/// Paging through one listing: fed each page, it says when to stop following cursors.
///
/// A value with no I/O, like the other policies: `DropboxStore` feeds it every page of
/// `list_folder` and `search_v2` and throws what it throws. Memory stays bounded: the entries
/// are capped, and cursors are remembered by a 64-bit hash (Swift's seeded SipHash, which a
/// server cannot aim collisions at), never in full, so long cursors cost nothing.
struct ListingGuard {
    let folder: String
    let limits: ListingLimits
    private(set) var entries = 0
    private(set) var pages = 0
    private var emptyInARow = 0
    private var seenCursors: Set<Int> = []

    init(folder: String, limits: ListingLimits) {
        self.folder = folder
        self.limits = limits
    }

    /// One page arrived with `count` entries and, if it says there is more, `next`.
    mutating func page(count: Int, next: String?) throws(RemoteError) {
        pages += 1
        entries += count
        let shown = folder.isEmpty ? "/" : folder
        if entries > limits.maxEntries {
            throw .server(status: 0, detail: "the listing of \(shown) did not end after \(limits.maxEntries) entries; stopped")
        }
        guard let next else { return }
        emptyInARow = count == 0 ? emptyInARow + 1 : 0
        if emptyInARow >= limits.maxEmptyPagesInARow {
            throw .server(status: 0, detail: "the listing of \(shown) sent \(emptyInARow) empty pages in a row, each saying there was more; stopped")
        }
        guard seenCursors.insert(next.hashValue).inserted else {
            throw .server(status: 0, detail: "the listing of \(shown) sent the same cursor twice, so it would never end; stopped")
        }
    }

    /// Refuses an entry whose path is not inside the folder that was asked for: a listing of
    /// `/byteclub/photos` answering `/etc/x.jpg` or `/byteclub/other/y.jpg`. The whole answer
    /// is refused rather than the entry dropped: a server that names files outside the folder
    /// it lists is broken or hostile, and saying so beats a listing that is quietly short.
    static func check(_ entry: RemoteEntry, in folder: String) throws(RemoteError) {
        try check(path: entry.path, pathLower: entry.pathLower, in: folder)
    }

    /// The same check on a path and its lower-case form. Change pages may also name the folder
    /// itself (`allowingFolderItself`), when a recursive cursor's folder is deleted or made again.
    static func check(path: String, pathLower: String, in folder: String, allowingFolderItself: Bool = false) throws(RemoteError) {
        func fits(_ candidate: String) -> Bool {
            if SafeName.path(candidate, isInside: folder) { return true }
            return allowingFolderItself && !folder.isEmpty && isFolder(candidate, folder)
        }
        guard fits(path), fits(pathLower) else {
            throw .server(status: 0, detail: "the server answered a listing of \(folder.isEmpty ? "/" : folder) with \(path), which is not inside it; refused")
        }
    }

    /// Whether `path` is `folder` itself: a well-formed absolute path (no empty, `.` or `..`
    /// component) naming the same components, compared case-insensitively.
    private static func isFolder(_ path: String, _ folder: String) -> Bool {
        guard SafeName.path(path, isInside: "") else { return false }
        let parts = path.split(separator: "/").map { $0.lowercased() }
        return parts == folder.split(separator: "/").map { $0.lowercased() }
    }
}
