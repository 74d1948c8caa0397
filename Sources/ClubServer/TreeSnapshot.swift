import Foundation

/// What the server last saw of the tree: one `stat` signature per entry, by `path_lower`, as a
/// value, and the journal records that a look at the disk adds to it.
///
/// The journal is fed by comparing this with the disk: after each commit for the paths it
/// touched (``record(at:fresh:)``), and for the whole tree by a periodic rescan
/// (``replace(with:)``), which is how changes made behind the server's back (an editor saving
/// into the folder) are noticed. The ``FolderStore`` actor keeps one and walks the disk
/// (``TreeWalker``); the rules live here, with tests that need no disk.
struct TreeSnapshot: Sendable {
    struct Entry: Equatable, Sendable {
        var display: String
        var isDirectory: Bool
        var inode: UInt64
        var size: Int64
        var mtime: Int64
        var ctime: Int64

        /// Whether a listing would show the same thing: a folder's own times change with its
        /// children, which are entries of their own, so only its identity counts.
        func sameVersion(as other: Entry) -> Bool {
            display == other.display && isDirectory == other.isDirectory && inode == other.inode
                && (isDirectory || (size == other.size && mtime == other.mtime && ctime == other.ctime))
        }
    }

    /// A journal record's kind and path, as the journal appends them.
    typealias Change = (JournalRecord.Kind, String)

    var entries: [String: Entry]
    /// Changed since it was last saved to `.byteclub/tree`.
    var dirty = false
    /// Counts commits that updated the snapshot: a walk made outside the actor is applied only
    /// if none came in while it ran.
    var generation = 0
    var savedAt = ContinuousClock.now

    init(entries: [String: Entry]) {
        self.entries = entries
    }

    /// The records that turn `old` into `new`: `+` for each entry that appeared or changed, `-`
    /// for each that vanished (only the topmost of a removed subtree: a deleted folder implies
    /// its contents, as in Dropbox's deltas).
    static func diff(old: [String: Entry], new: [String: Entry]) -> [Change] {
        var removed: [String] = []
        for (key, entry) in old where new[key] == nil {
            let parent = String(key[..<(key.lastIndex(of: "/") ?? key.startIndex)])
            if !parent.isEmpty, old[parent] != nil, new[parent] == nil { continue }
            removed.append(entry.display)
        }
        var written: [String] = []
        for (key, entry) in new {
            if let before = old[key], before.sameVersion(as: entry) { continue }
            written.append(entry.display)
        }
        return removed.sorted().map { (.removed, $0) } + written.sorted().map { (.written, $0) }
    }

    /// Takes in what the disk holds now at `lower` and below it (`fresh`; nothing if it is
    /// gone), after a commit there, and returns what changed: an entry appeared, changed,
    /// vanished, or nothing (an upload of identical content records nothing). A folder's
    /// whole subtree is compared.
    mutating func record(at lower: String, fresh: [String: Entry]) -> [Change] {
        var stale: [String: Entry] = [:]
        stale[lower] = entries[lower]
        if stale[lower]?.isDirectory == true || fresh[lower]?.isDirectory == true {
            for (key, entry) in entries where key.hasPrefix(lower + "/") { stale[key] = entry }
        }
        for key in stale.keys { entries[key] = nil }
        entries.merge(fresh) { _, new in new }
        return Self.diff(old: stale, new: fresh)
    }

    /// Takes in a walk compared with ``entries`` as it went (a ``TreeScan`` with them as its
    /// baseline), and returns what changed: the common rescan, where the walk found every entry
    /// the snapshot holds, so that only what is new or changed was kept beside it (a 100,000-file
    /// tree walked into a second dictionary held 47 MiB more, every few seconds). Nil, and the
    /// snapshot untouched, when the walk missed an entry of it or could not read a folder: only a
    /// whole walk (``replace(with:)``) tells what was removed.
    mutating func takeIn(_ scan: inout TreeScan) -> [Change]? {
        guard scan.unread.isEmpty, scan.foundInBaseline.count == entries.count else { return nil }
        // The scan's reference to the entries goes first, or the merge below copied them whole.
        scan.baseline = nil
        let written = scan.entries.values.map(\.display).sorted()
        entries.merge(scan.entries) { _, new in new }
        if !written.isEmpty { dirty = true }
        return written.map { (.written, $0) }
    }

    /// Takes in a whole walk of the tree, and returns what changed since the last look.
    mutating func replace(with current: [String: Entry]) -> [Change] {
        let changes = Self.diff(old: entries, new: current)
        entries = current
        if !changes.isEmpty { dirty = true }
        return changes
    }

    // MARK: - `.byteclub/tree`

    /// The file's bytes: one line per entry, `<d|f> inode size mtime-ns ctime-ns path_display`,
    /// written straight into one buffer (a text first, then its bytes, held the tree twice).
    var text: Data {
        var data = Data()
        data.reserveCapacity(entries.count * 64)
        for entry in entries.values {
            data.append(contentsOf: "\(entry.isDirectory ? "d" : "f") \(entry.inode) \(entry.size) \(entry.mtime) \(entry.ctime) \(entry.display)\n".utf8)
        }
        return data
    }

    /// The entries the file's bytes hold, read a line at a time (no text of the whole file); a
    /// damaged line, or one that is not UTF-8, is skipped.
    static func entries(text: Data) -> [String: Entry] {
        var entries: [String: Entry] = [:]
        for bytes in text.split(separator: UInt8(ascii: "\n")) {
            guard let line = String(validating: bytes, as: UTF8.self) else { continue }
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
            guard fields.count == 6, fields[0] == "d" || fields[0] == "f", let inode = UInt64(fields[1]), let size = Int64(fields[2]),
                  let mtime = Int64(fields[3]), let ctime = Int64(fields[4]), fields[5].hasPrefix("/") else { continue }
            let display = String(fields[5])
            entries[display.lowercased()] = Entry(display: display, isDirectory: fields[0] == "d", inode: inode, size: size,
                                                  mtime: mtime, ctime: ctime)
        }
        return entries
    }
}

/// What one walk of the tree found: the entries it saw, and the folders it could not read.
struct TreeScan: Sendable {
    /// A folder's identity on the host.
    struct FolderIdentity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
    }


    /// By `path_lower`: every entry walked, or with a ``baseline`` only those new or changed.
    var entries: [String: TreeSnapshot.Entry] = [:]
    /// What the walk is compared with as it goes (a rescan's snapshot), or nil: every entry is
    /// kept.
    var baseline: [String: TreeSnapshot.Entry]?
    /// The hashes of the baseline's keys the walk found (8 bytes an entry, not a copy of each
    /// key). Two keys sharing a hash count once, which can only send the comparison to its
    /// whole walk (``TreeSnapshot/takeIn(_:)``), never hide a removal; and a name walked twice
    /// under one `path_lower` (case twins on a case-sensitive disk) counts once too.
    var foundInBaseline = Set<Int>()

    init(baseline: [String: TreeSnapshot.Entry]? = nil) {
        self.baseline = baseline
    }

    /// One entry the walk saw.
    mutating func add(_ lower: String, _ entry: TreeSnapshot.Entry) {
        if let before = baseline?[lower] {
            foundInBaseline.insert(lower.hashValue)
            if before.sameVersion(as: entry) { return }
        }
        entries[lower] = entry
    }
    /// Folders (`path_lower`, "" for the root) that exist but could not be opened this time
    /// (out of file descriptors, an I/O error, no permission): their contents are unknown,
    /// not gone.
    var unread: [String] = []
    /// Folders entered, by device and inode, so that one reached twice (a bind mount of an
    /// ancestor, a folder mounted in two places) is walked once.
    var visited = Set<FolderIdentity>()

    /// The entries, with what `previous` had below each unread folder kept as it was, so
    /// that a folder that failed to open is not recorded as emptied.
    func entries(keepingUnreadFrom previous: [String: TreeSnapshot.Entry]) -> [String: TreeSnapshot.Entry] {
        guard !unread.isEmpty else { return entries }
        var kept = entries
        for folder in unread {
            let prefix = folder + "/"
            for (key, entry) in previous where key.hasPrefix(prefix) && kept[key] == nil { kept[key] = entry }
        }
        return kept
    }
}

extension TreeScan.FolderIdentity {
    init(_ info: stat) {
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
