import DropboxWire
import Foundation
import Synchronization

/// A listing's order: by `path_lower`, taken once per entry (comparing through the enum's
/// computed `pathLower` copied two strings per comparison, 140,000 of them for 10,000 files).
enum ListingOrder {
    static func sorted(_ entries: [WalkedEntry]) -> [WalkedEntry] {
        var sorted = entries
        sort(&sorted)
        return sorted
    }

    /// Sorts a walk in place: `sorted` made a second array of the walk (37 MiB for a
    /// 100,000-file folder, `heaptrack`), alive beside the first while it sorted.
    static func sort(_ entries: inout [WalkedEntry]) {
        entries.sort { $0.lower < $1.lower }
    }

    /// The position of the first of `entries` (sorted) past `after`, by binary search.
    static func start(after: String?, in entries: [WalkedEntry]) -> Int {
        guard let after, !after.isEmpty else { return 0 }
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].lower <= after { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// The folder a walk listed entries in: one for all of them, so that each entry keeps its name
/// rather than its whole host path and components.
final class WalkedFolder: Sendable {
    let host: String
    let path: DropboxPath
    /// `path`'s display form and its lower case, made once for all its entries.
    let display: String
    let lower: String

    init(host: String, path: DropboxPath) {
        self.host = host
        self.path = path
        display = path.display
        lower = display.lowercased()
    }
}

/// One entry of a walk: where it is, and its `stat` when walked.
///
/// A listing keeps a walk of 100,000 entries for its pages, so an entry holds its folder (shared),
/// its name, and the fields of its `stat` a listing reads: with its own host path, components and
/// whole `stat` the walk was 47 MiB of the server's peak (`heaptrack`, issue 56), now about 20.
struct WalkedEntry: Sendable {
    let folder: WalkedFolder
    let name: String
    let isLink: Bool
    /// `path_lower`, the listing's order.
    let lower: String
    private var mode: mode_t
    private var inode: UInt64
    private var size: Int64
    private var modified: timespec
    private var changed: timespec

    /// `folder`: the entry's own (made here if not given; a walk passes each folder's one).
    init(_ resolved: FolderPaths.Resolved, info: stat, folder: WalkedFolder? = nil) {
        let name = resolved.path.name
        self.folder = folder ?? WalkedFolder(host: String(resolved.host.dropLast(name.utf8.count + 1)), path: resolved.path.parent)
        self.name = name
        isLink = resolved.isLink
        // Lower case maps each character alone, so the folder's and the name's make the path's.
        lower = self.folder.lower + "/" + name.lowercased()
        mode = info.st_mode
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
        changed = info.st_ctim
    }

    var resolved: FolderPaths.Resolved {
        FolderPaths.Resolved(host: folder.host + "/" + name, path: folder.path.appending(name), exists: true,
                             isDirectory: (mode & S_IFMT) == S_IFDIR, isLink: isLink)
    }

    /// The `stat` as walked, with the fields a listing reads (type, inode, size, times).
    var info: stat {
        get {
            var info = stat()
            info.st_mode = mode
            info.st_ino = ino_t(inode)
            info.st_size = off_t(size)
            info.st_mtim = modified
            info.st_ctim = changed
            return info
        }
        set {
            mode = newValue.st_mode
            inode = UInt64(newValue.st_ino)
            size = Int64(newValue.st_size)
            modified = newValue.st_mtim
            changed = newValue.st_ctim
        }
    }
}

/// The last listing (of a folder, or of everything under it), reused while its key is unchanged,
/// so that paging through a big folder does not stat every file once per page.
///
/// Adding or removing an entry changes the folder's mtime; rewriting a file in place renames a
/// new inode over it, which does too. A file edited in place on disk, or two commits within one
/// tick of the file system's clock, do not: so entries are reused for ``lifetime`` at most, and
/// the journal's head is in the key as well, so a listing never hands out entries older than
/// its cursor. The entries say `read_only` for a reader (their `sharing_info`), so the caller's
/// role is in the key: a reader listing right after an editor must not get the editor's answer.
///
/// A few listings are kept, the newest first: an app pages through the notes (everything under
/// the club folder) while it pages through the photos' search (everything under `photos/`), and
/// with one slot each would walk its folder again for every page of the other.
///
/// What is kept is the walk (where each entry is, and its `stat`), and the metadata of the
/// entries a page has handed out (``metadataKept`` of them at most): a page's metadata (ids,
/// content hashes) is made for that page alone, so the first page of a 100,000-file folder costs
/// a walk and 2,000 entries' metadata, not 100,000's, and the same page asked for again costs
/// nothing more.
struct ListingCache: Sendable {
    static let lifetime: Duration = .seconds(5)
    static let slots = 3
    /// Metadata kept per listing: a 10,000-file folder paged again costs no metadata; memory
    /// stays bounded for a 100,000-file one.
    static let metadataKept = 20_000
    private var kept: [(key: String, time: ContinuousClock.Instant, entries: [WalkedEntry], metadata: [Int: Metadata], next: Int?)] = []

    static func key(host: String, folderStamp: String, journalHead: UInt64, readsOnly: Bool) -> String {
        host + "|" + folderStamp + "|" + String(journalHead) + "|" + (readsOnly ? "reader" : "writer")
    }

    /// The entries listed under `key`, if they are recent enough at `now`.
    ///
    /// A walk of more than ``metadataKept`` entries is kept while it is paged through: each page
    /// reused stats its entries again (an edit in place shows), so its lifetime runs from its
    /// last use. A 100,000-file folder's pages came more than 5 s after its first under load,
    /// and each then walked and sorted the folder again (a third of a first `ls`'s server time).
    mutating func entries(for key: String, now: ContinuousClock.Instant) -> [WalkedEntry]? {
        guard let slot = kept.firstIndex(where: { $0.key == key }), now - kept[slot].time < Self.lifetime else { return nil }
        if kept[slot].entries.count > Self.metadataKept { kept[slot].time = now }
        return kept[slot].entries
    }

    /// The metadata pages made for the listing kept under `key`, by the entry's index.
    func metadata(for key: String) -> [Int: Metadata] {
        kept.first { $0.key == key }?.metadata ?? [:]
    }

    /// Keeps the metadata a page made, while the listing is kept (up to ``metadataKept``).
    mutating func remember(_ made: [(index: Int, metadata: Metadata)], for key: String) {
        guard let slot = kept.firstIndex(where: { $0.key == key }) else { return }
        for (index, metadata) in made where kept[slot].metadata.count < Self.metadataKept { kept[slot].metadata[index] = metadata }
    }

    /// A big listing's next page is expected to start at `start` (the page after the one just
    /// handed out), and may be made ahead of its request (``keepAhead(_:for:)``).
    mutating func expect(_ start: Int, for key: String) {
        guard let slot = kept.firstIndex(where: { $0.key == key }) else { return }
        kept[slot].next = start
    }

    /// Whether the page that starts at `start` is still the next one expected under `key`.
    func expects(_ start: Int, for key: String) -> Bool {
        kept.first { $0.key == key }?.next == start
    }

    /// A big listing's next page, made before it was asked for: it replaces what was kept for
    /// the pages before it, so a walk bigger than ``metadataKept`` keeps one page's metadata.
    mutating func keepAhead(_ made: [(index: Int, metadata: Metadata)], for key: String) {
        guard let slot = kept.firstIndex(where: { $0.key == key }) else { return }
        kept[slot].metadata = Dictionary(made, uniquingKeysWith: { $1 })
    }

    mutating func keep(_ entries: [WalkedEntry], for key: String, at time: ContinuousClock.Instant) {
        kept.removeAll { $0.key == key || time - $0.time >= Self.lifetime }
        kept.insert((key, time, entries, [:], nil), at: 0)
        if kept.count > Self.slots { kept.removeLast(kept.count - Self.slots) }
    }
}

/// What `search_v2` (by name) asks for: entries whose names contain every word of the query,
/// with one of the extensions and in one of the categories (when given), by path or newest first.
struct FolderSearch {
    var words: [String]
    var extensions: Set<String>
    var categories: [FileCategory]
    var newestFirst: Bool

    init(query: String, extensions: [String], categories: [FileCategory], newestFirst: Bool) {
        words = query.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        self.extensions = Set(extensions.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) })
        self.categories = categories
        self.newestFirst = newestFirst
    }

    /// The entries of a listing (sorted by path) that match, in the order asked for.
    func results(_ listing: [Metadata]) -> [Metadata] {
        let found = listing.filter(matches)
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

    func matches(_ entry: Metadata) -> Bool {
        let name = entry.name.lowercased()
        let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) }
        if !extensions.isEmpty {
            guard case .file = entry, let ext, extensions.contains(ext) else { return false }
        }
        if !categories.isEmpty, !categories.contains(where: { Self.entry(entry, extension: ext, isIn: $0) }) { return false }
        return words.allSatisfy { name.contains($0) }
    }

    /// Whether an entry belongs to a Dropbox file category, judged by its extension.
    static func entry(_ entry: Metadata, extension ext: String?, isIn category: FileCategory) -> Bool {
        switch (entry, category) {
        case (.folder, .folder): return true
        case (.folder, _), (_, .folder), (.deleted, _): return false
        case (.file, .others): return !FileCategory.allCases.contains { ext.map($0.extensions.contains) ?? false }
        case (.file, _): return ext.map(category.extensions.contains) ?? false
        }
    }
}

/// A delta: what changed under a folder, from journal records, as `list_folder/continue` pages it.
enum ListingDelta {
    /// One entry of a delta, with the key that orders (and pages) it.
    struct Entry {
        var pathLower: String
        /// 0 for a deletion, 1 for an entry: a path removed and written again within one delta
        /// (a folder deleted and made anew) is reported deleted first, so a client drops what
        /// was inside it.
        var rank: Int
        var metadata: Metadata
    }

    /// The entries that `records` change under `folder`, as current metadata (`current`, by
    /// display path; nil when nothing is there now) or deletions, ordered by `path_lower` (so
    /// a folder comes before what is in it) then rank.
    ///
    /// Several records of one path collapse into its state now: its metadata if it exists, a
    /// deletion if not. The folder itself (or an ancestor) removed is reported as the folder's
    /// deletion.
    static func entries(of folder: DropboxPath, recursive: Bool, records: [JournalRecord], current: (String) -> Metadata?) -> [Entry] {
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
        var entries: [Entry] = []
        if folderRemoved { entries.append(Entry(pathLower: folderLower, rank: 0, metadata: deleted(folder.display))) }
        for (lower, state) in paths {
            if state.removed { entries.append(Entry(pathLower: lower, rank: 0, metadata: deleted(state.display))) }
            guard state.last == .written else { continue }
            if let now = current(state.display), now.pathLower == lower {
                entries.append(Entry(pathLower: lower, rank: 1, metadata: now))
            } else if !state.removed {
                entries.append(Entry(pathLower: lower, rank: 0, metadata: deleted(state.display)))
            }
        }
        return entries.sorted { $0.pathLower != $1.pathLower ? $0.pathLower < $1.pathLower : $0.rank < $1.rank }
    }
}

/// When a listing's page was last asked for, readable without the store's actor. A server's
/// first start builds the content index from the whole folder (every note read and written to
/// SQLite, seconds of both cores) while its first listings are asked for; the build's reads give
/// way to a listing being paged, which a member is waiting to see (a first `ls` of 100,000
/// notes shared its cores with the build).
final class ListingActivity: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)
    private let lastBig = Mutex<ContinuousClock.Instant?>(nil)

    /// A page was asked for now; `big`: of a listing bigger than ``ListingCache/metadataKept``.
    func touch(big: Bool = false) {
        last.withLock { $0 = .now }
        if big { lastBig.withLock { $0 = .now } }
    }

    /// Whether a page of a big listing was asked for within `quiet`.
    func isPagingBig(within quiet: Duration = .seconds(1)) -> Bool {
        lastBig.withLock { $0.map { ContinuousClock.now - $0 < quiet } ?? false }
    }

    /// Returns once no page has been asked for within `quiet`.
    func giveWay(quiet: Duration = .seconds(1)) async throws {
        while let last = last.withLock({ $0 }) {
            let since = ContinuousClock.now - last
            guard since < quiet else { return }
            try await Task.sleep(for: quiet - since)
        }
    }
}
