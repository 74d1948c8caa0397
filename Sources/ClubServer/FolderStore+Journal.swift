import DropboxWire
import Foundation
import Logging
import ServiceLifecycle
import Durable

/// What the server last saw of the tree: one `stat` signature per entry, by `path_lower`.
///
/// The journal is fed by comparing this with the disk: after each commit for the paths it
/// touched (`recordChanges(at:)`), and for the whole tree by a periodic rescan, which is how
/// changes made behind the server's back (an editor saving into the folder) are noticed. Owned by
/// the `FolderStore` actor and touched only there.
final class TreeSnapshot {
    struct Entry: Equatable {
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
}

extension FolderStore {
    /// How often the whole tree is compared with the snapshot by default.
    static let defaultRescanInterval: Duration = .seconds(1)

    /// Loads (or starts) the journal and the snapshot, and records what changed on disk while
    /// the server was not running (against the snapshot saved when it last ran).
    static func startChangeTracking(root: String, metaDirectory: String, limit: Int, logger: Logger) -> (ChangeJournal, TreeSnapshot) {
        let journal = ChangeJournal(path: metaDirectory + "/journal", limit: limit)
        let scan = scanTree(root: root, metaDirectory: metaDirectory)
        let saved = readTree(metaDirectory + "/tree")
        let current = scan.entries(keepingUnreadFrom: saved ?? [:])
        let tree = TreeSnapshot(entries: current)
        if let saved {
            let changes = diff(old: saved, new: current)
            if !changes.isEmpty { logger.info("\(changes.count) change(s) made in the folder while the server was stopped") }
            journal.append(changes)
        }
        saveTree(tree, metaDirectory: metaDirectory)
        return (journal, tree)
    }

    // MARK: - Recording commits

    /// Records in the journal what a commit did at `paths`: call it after every commit, with
    /// each path the commit wrote or removed (both paths of a move; the target of a restore or
    /// a copy). It compares the disk at each path (and below it) with the snapshot, so it works
    /// out itself whether an entry appeared, changed, vanished or is unchanged (an upload of
    /// identical content records nothing), and records parents a write created. Longpolls on
    /// those folders wake. Cheap for a file; a folder's subtree is walked.
    func recordChanges(at paths: DropboxPath...) {
        var changes: [(JournalRecord.Kind, String)] = []
        for path in paths where !path.isRoot {
            let resolved = (try? resolve(path))?.path ?? path
            // Parents an upload or a move created on the way.
            for depth in 1..<resolved.components.count {
                let ancestor = DropboxPath(components: Array(resolved.components.prefix(depth)))
                guard tree.entries[ancestor.lower] == nil,
                      let entry = Self.treeEntry(root + ancestor.display, display: ancestor.display, root: root, metaDirectory: metaDirectory)
                else { continue }
                tree.entries[ancestor.lower] = entry.0
                changes.append((.written, ancestor.display))
            }
            let lower = resolved.lower
            var scan = TreeScan()
            if let (entry, enter) = Self.treeEntry(root + resolved.display, display: resolved.display, root: root, metaDirectory: metaDirectory) {
                scan.entries[lower] = entry
                if enter { Self.walkTree(host: root + resolved.display, display: resolved.display, depth: resolved.components.count, root: root, metaDirectory: metaDirectory, into: &scan) }
            }
            let fresh = scan.entries(keepingUnreadFrom: tree.entries)
            var stale: [String: TreeSnapshot.Entry] = [:]
            stale[lower] = tree.entries[lower]
            if stale[lower]?.isDirectory == true || fresh[lower]?.isDirectory == true {
                for (key, entry) in tree.entries where key.hasPrefix(lower + "/") { stale[key] = entry }
            }
            changes += Self.diff(old: stale, new: fresh)
            for key in stale.keys { tree.entries[key] = nil }
            tree.entries.merge(fresh) { _, new in new }
        }
        tree.generation += 1
        guard !changes.isEmpty else { return }
        tree.dirty = true
        journal.append(changes)
    }

    /// The periodic rescan, with the walk (a `stat` per entry) done outside the actor so that
    /// commits and listings do not wait for it; false if a commit came in meanwhile (the walk
    /// may have seen half of it) and nothing was applied.
    nonisolated func rescanConcurrently() async -> Bool {
        let generation = await snapshotGeneration()
        let current = Self.scanTree(root: root, metaDirectory: metaDirectory)
        return await applyRescan(current, generation: generation)
    }

    private func snapshotGeneration() -> Int { tree.generation }

    private func applyRescan(_ current: TreeScan, generation: Int) -> Bool {
        guard tree.generation == generation else { return false }
        applyRescan(current)
        return true
    }

    /// Compares the whole tree with the snapshot and records the differences, all inside the
    /// actor, so it never interleaves with a commit (used when commits keep interrupting
    /// `rescanConcurrently`).
    func rescan() {
        applyRescan(Self.scanTree(root: root, metaDirectory: metaDirectory))
    }

    private func applyRescan(_ scan: TreeScan) {
        let current = scan.entries(keepingUnreadFrom: tree.entries)
        let changes = Self.diff(old: tree.entries, new: current)
        tree.entries = current
        guard !changes.isEmpty else { return }
        logger.debug("rescan: \(changes.count) change(s) made on disk")
        tree.dirty = true
        journal.append(changes)
    }

    /// Saves the snapshot if it changed and `minimumAge` has passed since the last save.
    func saveTreeIfDirty(minimumAge: Duration = .zero) {
        guard tree.dirty, ContinuousClock.now - tree.savedAt >= minimumAge else { return }
        Self.saveTree(tree, metaDirectory: metaDirectory)
    }

    /// The records that turn `old` into `new`: `+` for each entry that appeared or changed, `-`
    /// for each that vanished (only the topmost of a removed subtree: a deleted folder implies
    /// its contents, as in Dropbox's deltas).
    static func diff(old: [String: TreeSnapshot.Entry], new: [String: TreeSnapshot.Entry]) -> [(JournalRecord.Kind, String)] {
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

    // MARK: - The walk

    /// What one walk found: the entries it saw, and the folders it could not read.
    struct TreeScan {
        /// By `path_lower`.
        var entries: [String: TreeSnapshot.Entry] = [:]
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

    /// A folder's identity on the host.
    struct FolderIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Every entry under the root that a listing would show, by `path_lower`.
    static func scanTree(root: String, metaDirectory: String) -> TreeScan {
        var scan = TreeScan()
        walkTree(host: root, display: "", depth: 0, root: root, metaDirectory: metaDirectory, into: &scan)
        return scan
    }

    /// Adds the entries below a folder, by the rules of the listing walk: names a path may hold,
    /// symlinks only when they stay inside the root and never entered, each folder (by device
    /// and inode) entered once, at most `maxWalkDepth`.
    static func walkTree(host: String, display: String, depth: Int, root: String, metaDirectory: String,
                         into scan: inout TreeScan) {
        guard depth < maxWalkDepth else { return }
        guard let directory = opendir(host) else {
            // Gone (or replaced by a file) since its entry was read: its contents are gone too.
            // Any other failure says nothing about them.
            if errno != ENOENT && errno != ENOTDIR { scan.unread.append(display.lowercased()) }
            return
        }
        defer { closedir(directory) }
        // The identity of what was opened, not of what the path names now.
        var info = stat()
        guard fstat(dirfd(directory), &info) == 0 else {
            scan.unread.append(display.lowercased())
            return
        }
        guard scan.visited.insert(FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else { return }
        while let item = readdir(directory) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw -> String? in
                let bytes = raw.prefix { $0 != 0 }
                return String(validating: bytes, as: UTF8.self)
            }
            guard let name, name != ".", name != "..", DropboxPath.isSafeComponent(name) else { continue }
            if depth == 0 && name.lowercased() == DropboxPath.reservedName { continue }
            let childDisplay = display + "/" + name
            guard let (entry, enter) = treeEntry(host + "/" + name, display: childDisplay, root: root, metaDirectory: metaDirectory) else { continue }
            scan.entries[childDisplay.lowercased()] = entry
            if enter { walkTree(host: host + "/" + name, display: childDisplay, depth: depth + 1, root: root, metaDirectory: metaDirectory, into: &scan) }
        }
    }

    /// One entry's signature, and whether a walk enters it (a real folder, not a link); nil for
    /// what a listing leaves out (gone, a link leaving the root, not a file or folder).
    static func treeEntry(_ host: String, display: String, root: String, metaDirectory: String) -> (TreeSnapshot.Entry, Bool)? {
        var info = stat()
        guard lstat(host, &info) == 0 else { return nil }
        let isLink = (info.st_mode & S_IFMT) == S_IFLNK
        if isLink {
            guard let target = realpath(host, nil) else { return nil }
            let resolved = String(cString: target)
            free(target)
            guard resolved == root || resolved.hasPrefix(root + "/"), resolved != metaDirectory, !resolved.hasPrefix(metaDirectory + "/"),
                  stat(host, &info) == 0 else { return nil }
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFDIR || kind == S_IFREG else { return nil }
        let key = Self.key(info)
        let entry = TreeSnapshot.Entry(display: display, isDirectory: kind == S_IFDIR, inode: key.inode, size: key.size,
                                       mtime: key.mtimeNanoseconds, ctime: key.ctimeNanoseconds)
        return (entry, kind == S_IFDIR && !isLink)
    }

    // MARK: - Saving the snapshot

    /// `.byteclub/tree`: one line per entry, `<d|f> inode size mtime-ns ctime-ns path_display`.
    static func saveTree(_ tree: TreeSnapshot, metaDirectory: String) {
        var text = ""
        text.reserveCapacity(tree.entries.count * 80)
        for entry in tree.entries.values {
            text += "\(entry.isDirectory ? "d" : "f") \(entry.inode) \(entry.size) \(entry.mtime) \(entry.ctime) \(entry.display)\n"
        }
        // A cache: a crash that rolls it back costs a rescan, so no flush on this hot path.
        try? DurableFile.write(Data(text.utf8), to: metaDirectory + "/tree", permissions: 0o644,
                               temporaryDirectory: metaDirectory + "/tmp", flush: false)
        tree.dirty = false
        tree.savedAt = .now
    }

    static func readTree(_ path: String) -> [String: TreeSnapshot.Entry]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        var entries: [String: TreeSnapshot.Entry] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
            guard fields.count == 6, fields[0] == "d" || fields[0] == "f", let inode = UInt64(fields[1]), let size = Int64(fields[2]),
                  let mtime = Int64(fields[3]), let ctime = Int64(fields[4]), fields[5].hasPrefix("/") else { continue }
            let display = String(fields[5])
            entries[display.lowercased()] = TreeSnapshot.Entry(display: display, isDirectory: fields[0] == "d", inode: inode, size: size,
                                                               mtime: mtime, ctime: ctime)
        }
        return entries
    }
}

/// Rescans the tree every `interval` while the server runs (changes made on disk behind the
/// server's back reach the journal within about that long), saves the snapshot at most every
/// five seconds when it changed, and once more at shutdown.
struct ChangeWatcher: Service {
    let store: FolderStore
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var interrupted = 0
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                if await store.rescanConcurrently() {
                    interrupted = 0
                } else {
                    // Busy with commits: after three tries, walk inside the actor once.
                    interrupted += 1
                    if interrupted >= 3 {
                        await store.rescan()
                        interrupted = 0
                    }
                }
                await store.saveTreeIfDirty(minimumAge: .seconds(5))
            }
        }
        await store.saveTreeIfDirty()
    }
}
