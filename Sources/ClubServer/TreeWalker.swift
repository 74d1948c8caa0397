import DropboxWire
import Durable
import Foundation
import Logging

/// Walks the club folder on disk by the listing's rules, into a ``TreeScan``: names a path may
/// hold, symlinks only when they stay inside the root and never entered, each folder (by
/// device and inode) entered once, at most ``maxDepth`` levels. Reads only; called from the
/// ``FolderStore`` actor, or off it for a rescan (it touches no state of the actor's).
enum TreeWalker {
    /// How many levels below the root a walk enters; folders deeper than this are listed but
    /// not entered (their paths would be near Dropbox's 4096-byte limit anyway).
    static let maxDepth = 64

    /// Every entry under the root that a listing would show, by `path_lower`.
    /// With a `baseline`, only what is new or changed beside it is kept (``TreeScan/add(_:_:)``).
    static func scan(root: String, metaDirectory: String, against baseline: [String: TreeSnapshot.Entry]? = nil) -> TreeScan {
        var scan = TreeScan(baseline: baseline)
        walk(host: root, display: "", depth: 0, root: root, metaDirectory: metaDirectory, into: &scan)
        return scan
    }

    /// What is at `path` now, and below it if it is a folder.
    static func scan(_ path: DropboxPath, root: String, metaDirectory: String) -> TreeScan {
        var scan = TreeScan()
        guard let (entry, enter) = entry(root + path.display, display: path.display, root: root, metaDirectory: metaDirectory) else { return scan }
        scan.add(path.lower, entry)
        if enter { walk(host: root + path.display, display: path.display, depth: path.components.count, root: root, metaDirectory: metaDirectory, into: &scan) }
        return scan
    }

    /// Adds the entries below a folder.
    static func walk(host: String, display: String, depth: Int, root: String, metaDirectory: String, into scan: inout TreeScan) {
        guard depth < maxDepth else { return }
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
        guard scan.visited.insert(TreeScan.FolderIdentity(info)).inserted else { return }
        while let item = readdir(directory) {
            guard let name = DirectoryEntryName.of(item), DropboxPath.isSafeComponent(name) else { continue }
            if depth == 0 && name.lowercased() == DropboxPath.reservedName { continue }
            let childDisplay = display + "/" + name
            guard let (entry, enter) = self.entry(host + "/" + name, display: childDisplay, root: root, metaDirectory: metaDirectory,
                                                  named: name, in: dirfd(directory)) else { continue }
            scan.add(childDisplay.lowercased(), entry)
            if enter { walk(host: host + "/" + name, display: childDisplay, depth: depth + 1, root: root, metaDirectory: metaDirectory, into: &scan) }
        }
    }

    /// The folders above `path` that `known` does not hold (an upload or a move created them on
    /// the way), nearest the root first, by `path_lower`.
    static func newAncestors(of path: DropboxPath, known: [String: TreeSnapshot.Entry], root: String,
                             metaDirectory: String) -> [(lower: String, display: String, entry: TreeSnapshot.Entry)] {
        (1..<max(1, path.components.count)).compactMap { depth in
            let ancestor = DropboxPath(components: Array(path.components.prefix(depth)))
            guard known[ancestor.lower] == nil,
                  let (entry, _) = self.entry(root + ancestor.display, display: ancestor.display, root: root, metaDirectory: metaDirectory)
            else { return nil }
            return (ancestor.lower, ancestor.display, entry)
        }
    }

    /// One entry's signature, and whether a walk enters it (a real folder, not a link); nil for
    /// what a listing leaves out (gone, a link leaving the root, not a file or folder).
    /// A walk gives the entry's `name` in its folder, open as `descriptor`: it is `stat`ed there,
    /// not by its whole path.
    static func entry(_ host: String, display: String, root: String, metaDirectory: String,
                      named name: String? = nil, in descriptor: Int32? = nil) -> (TreeSnapshot.Entry, Bool)? {
        var info = stat()
        let found = if let name, let descriptor { fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) } else { lstat(host, &info) }
        guard found == 0 else { return nil }
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
        let key = FileKey(info)
        let entry = TreeSnapshot.Entry(display: display, isDirectory: kind == S_IFDIR, inode: key.inode, size: key.size,
                                       mtime: key.mtimeNanoseconds, ctime: key.ctimeNanoseconds)
        return (entry, kind == S_IFDIR && !isLink)
    }
}

/// `.byteclub/tree`, the ``TreeSnapshot`` as the server last saved it, read and written; and the
/// start of change tracking, which compares it with the disk.
enum TreeFile {
    /// Loads (or starts) the journal and the snapshot, and records what changed on disk while
    /// the server was not running (against the snapshot saved when it last ran).
    static func startTracking(root: String, metaDirectory: String, limit: Int, logger: Logger) -> (ChangeJournal, TreeSnapshot) {
        let journal = ChangeJournal(path: metaDirectory + "/journal", limit: limit)
        var saved = FileManager.default.contents(atPath: metaDirectory + "/tree").map { TreeSnapshot.entries(text: $0) }
        // The snapshot is saved now and then, the journal at every change: a server killed
        // between a change and the next save left the journal ahead of it (a renamed file's old
        // name written, never removed). Seen as the journal last said, every path it calls
        // written that is gone now, and every one it calls removed that is there, is recorded.
        if saved != nil {
            let position = journal.position
            var last: [String: (JournalRecord.Kind, String)] = [:]
            for record in journal.records(after: position.compactedThrough, through: position.head) ?? [] {
                last[record.lower] = (record.kind, record.display)
            }
            for (lower, (kind, display)) in last {
                switch kind {
                case .written where saved?[lower] == nil:
                    saved?[lower] = TreeSnapshot.Entry(display: display, isDirectory: false, inode: 0, size: -1, mtime: 0, ctime: 0)
                case .removed:
                    saved?[lower] = nil
                default:
                    break
                }
            }
        }
        guard let saved else {
            var tree = TreeSnapshot(entries: TreeWalker.scan(root: root, metaDirectory: metaDirectory).entries)
            save(&tree, metaDirectory: metaDirectory)
            return (journal, tree)
        }
        // The disk compared with the saved snapshot as it is walked; a walk that misses some of
        // it (removed while the server was stopped) is done again whole to tell what.
        // (`saved` goes into the walk, so that the snapshot is the entries' only other holder and
        // takes in the walk's in place, not in a copy.)
        var tree = TreeSnapshot(entries: saved)
        var compared = TreeWalker.scan(root: root, metaDirectory: metaDirectory, against: consume saved)
        let changes = tree.takeIn(&compared)
            ?? tree.replace(with: TreeWalker.scan(root: root, metaDirectory: metaDirectory).entries(keepingUnreadFrom: tree.entries))
        if !changes.isEmpty {
            logger.info("\(changes.count) change(s) made in the folder while the server was stopped")
            journal.append(changes)
            save(&tree, metaDirectory: metaDirectory)
        }
        return (journal, tree)
    }

    /// Writes the snapshot: a cache (a crash that rolls it back costs a rescan), so no flush on
    /// this hot path.
    static func save(_ tree: inout TreeSnapshot, metaDirectory: String) {
        try? DurableFile.write(tree.text, to: metaDirectory + "/tree", temporaryDirectory: metaDirectory + "/tmp", flush: false)
        tree.dirty = false
        tree.savedAt = .now
    }
}
