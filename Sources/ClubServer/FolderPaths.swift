import DropboxWire
import Foundation
import Synchronization

/// The club folder's paths on disk: Dropbox paths to host paths (matched case-insensitively,
/// confined to the root), free names beside taken ones, parents made for a write, and the
/// listing's walk. It keeps no state (its paths are fixed), so the ``FolderStore`` actor calls
/// it for every lookup and decides what to do with the answers.
struct FolderPaths: Sendable {
    /// The root's real path (symlinks resolved), the confinement boundary.
    let root: String
    /// `.byteclub/` inside the root, never reached through a path.
    let metaDirectory: String
    /// Big folders' names by lower case, so a new name's case twin is not looked for by listing
    /// the whole folder at each file a `put -r` writes into it.
    let bigFolders = FolderNameCache()

    /// Where a Dropbox path lives on disk, and its on-disk spelling.
    struct Resolved: Sendable {
        var host: String
        var path: DropboxPath
        var exists: Bool
        var isDirectory: Bool
        /// Reached through a symlink (inside the root): followed when asked for by name, never
        /// entered by a walk.
        var isLink = false
    }

    /// Maps a Dropbox path to the host, component by component, matching names
    /// case-insensitively. Symlinks are followed only if they stay inside the root.
    func resolve(_ path: DropboxPath) throws(APIError) -> Resolved {
        var host = root
        var display: [String] = []
        for (index, component) in path.components.enumerated() {
            let isLast = index == path.components.count - 1
            guard let name = matchingName(in: host, for: component) else {
                // Missing: the rest of the path keeps the client's spelling.
                display.append(contentsOf: path.components[index...])
                let rest = path.components[index...].joined(separator: "/")
                return Resolved(host: host + "/" + rest, path: DropboxPath(components: display), exists: false, isDirectory: false)
            }
            let (entry, _) = try existingEntry(named: name, in: host, parent: DropboxPath(components: display))
            if !isLast && !entry.isDirectory { throw .notFolder }
            if isLast { return entry }
            host = entry.host
            display.append(name)
        }
        return Resolved(host: root, path: .root, exists: true, isDirectory: true)
    }

    /// An entry that exists in `directory` under exactly `name`, with its `stat` (links followed).
    /// A symlink is followed only if its real target stays inside the root.
    /// `descriptor`: `directory` open, when a walk has it: the entry is `stat`ed by its name in
    /// it, not by its whole path from `/` again (the kernel's path walk was a tenth of a
    /// 100,000-file listing's server time).
    func existingEntry(named name: String, in directory: String, descriptor: Int32? = nil,
                       parent: DropboxPath) throws(APIError) -> (Resolved, stat) {
        let candidate = directory + "/" + name
        var info = stat()
        let found = descriptor.map { fstatat($0, name, &info, AT_SYMLINK_NOFOLLOW) } ?? lstat(candidate, &info)
        guard found == 0 else { throw .notFound }
        let isLink = (info.st_mode & S_IFMT) == S_IFLNK
        if isLink {
            guard let target = realpath(candidate, nil) else { throw .notFound }
            let resolved = String(cString: target)
            free(target)
            guard resolved == root || resolved.hasPrefix(root + "/"), resolved != metaDirectory, !resolved.hasPrefix(metaDirectory + "/") else {
                // A link out of the club folder (or into the server's own): refuse, never follow.
                throw .malformedPath()
            }
            guard stat(candidate, &info) == 0 else { throw .notFound }
        }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        return (Resolved(host: candidate, path: parent.appending(name), exists: true, isDirectory: isDirectory, isLink: isLink), info)
    }

    private func matchingName(in directory: String, for component: String) -> String? {
        var info = stat()
        if lstat(directory + "/" + component, &info) == 0 { return component }
        let lower = component.lowercased()
        let isReserved = { (name: String) in directory == self.root && name.lowercased() == DropboxPath.reservedName }
        // A big folder listed a moment ago knows: no case twin (a new note of a `put -r`, an
        // encrypted club's marker looked for), or the twin's name (a client asking by `path_lower`).
        let known = bigFolders.name(lower, in: directory)
        if case .missing = known { return nil }
        if case .named(let name) = known, !isReserved(name), lstat(directory + "/" + name, &info) == 0 { return name }
        // Gone or renamed since (a case-only rename, a write that failed), or not known: the folder says.
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        bigFolders.listed(names, in: directory, keepingNames: known.isTwin)
        return names.first { $0.lowercased() == lower && !isReserved($0) }
    }

    /// Resolves a path for writing: the parent chain may be missing (it is created), but it
    /// must not run through a file.
    func resolveForWrite(_ path: DropboxPath) throws(APIError) -> Resolved {
        do {
            let target = try resolve(path)
            // About to be made with this spelling: a big folder's names know it from now on.
            if !target.exists { bigFolders.adding(target.path.components.last ?? "", in: (target.host as NSString).deletingLastPathComponent) }
            return target
        } catch {
            // A file where a parent folder should be.
            throw error.isEndpoint([.path, .notFolder]) ? .uploadPath([.conflict, .file]) : error
        }
    }

    func makeParents(of target: Resolved) throws(APIError) {
        let parent = (target.host as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .uploadPath([.conflict, .file]) }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw .uploadPath([.noWritePermission])
        }
    }

    /// Readies a filled temp file to be placed at `target`: private (0600) while it filled, it
    /// gets the mode of the file it replaces, or a new file's mode under the umask, and the
    /// client's modification time. Whether it replaces a file.
    func prepare(_ temp: String, toReplace target: Resolved, newFileMode: mode_t, clientModified: Date?) -> Bool {
        var current = stat()
        let replaced = target.exists && stat(target.host, &current) == 0 && (current.st_mode & S_IFMT) == S_IFREG
        chmod(temp, replaced ? current.st_mode & 0o1777 : newFileMode) // never set-id bits
        if let clientModified {
            var times = [timespec(tv_sec: time(nil), tv_nsec: 0), timespec(tv_sec: Int(clientModified.timeIntervalSince1970), tv_nsec: 0)]
            times[0].tv_nsec = (1 << 30) - 2 // UTIME_OMIT: leave the access time alone
            _ = utimensat(AT_FDCWD, temp, &times, 0)
        }
        return replaced
    }

    /// A free name beside `target` (``CommitRule/freeNames(near:suffix:count:)``).
    func freeName(near target: Resolved, suffix: String?) throws(APIError) -> Resolved {
        for candidate in CommitRule.freeNames(near: target.path.name, suffix: suffix) {
            let resolved = try resolve(target.path.parent.appending(candidate))
            if !resolved.exists { return resolved }
        }
        throw .uploadPath([.conflict, .file])
    }

    /// `target`, or a free name near it when it is taken and `autorename` allows; else the
    /// conflict, under `field`.
    func freeTarget(_ target: Resolved, autorename: Bool, field: ErrorTag) throws(APIError) -> Resolved {
        guard target.exists else { return target }
        guard autorename else { throw .endpoint([field, .conflict, (target.isDirectory ? .folder : .file)]) }
        return try freeName(near: target, suffix: nil)
    }

    /// Whether two host paths name one directory entry (a case-insensitive disk finds "A.txt"
    /// under "a.txt" too).
    static func sameEntry(_ a: String, _ b: String) -> Bool {
        var x = stat()
        var y = stat()
        return lstat(a, &x) == 0 && lstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// A version stamp of a folder: its mtime changes whenever an entry is added or removed.
    func folderStamp(_ path: DropboxPath) -> String {
        guard let resolved = try? resolve(path), resolved.exists else { return "gone" }
        var info = stat()
        guard stat(resolved.host, &info) == 0 else { return "gone" }
        return "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// Visits every entry of `start` (and, if `recursive`, of the folders `visit` listed), each
    /// once; true if it stopped at the depth limit somewhere.
    ///
    /// The walk never enters a symlinked folder (it is listed, and reachable by name) and never
    /// enters a folder it has already seen by device and inode (a bind mount of an ancestor), so
    /// `ln -s . loop` costs one entry, not an endless descent. It stops at ``TreeWalker/maxDepth``
    /// and when its task is cancelled (the server shutting down, the client gone).
    func walk(_ start: Resolved, recursive: Bool, _ visit: (Resolved, stat) -> Bool) throws(APIError) -> Bool {
        var visited = Set<TreeScan.FolderIdentity>()
        var info = stat()
        guard stat(start.host, &info) == 0 else { return false }
        visited.insert(TreeScan.FolderIdentity(info))
        var pending = [start]
        var truncated = false
        while let directory = pending.popLast() {
            if Task.isCancelled { throw .cancelled }
            guard let handle = opendir(directory.host) else { continue }
            defer { closedir(handle) }
            while let item = readdir(handle) {
                guard let name = DirectoryEntryName.of(item) else { continue }
                if directory.path.isRoot && name.lowercased() == DropboxPath.reservedName { continue }
                guard DropboxPath.isSafeComponent(name) else { continue }
                // The directory listing gave the exact name: no need to resolve from the root again.
                guard let (resolved, info) = try? existingEntry(named: name, in: directory.host, descriptor: dirfd(handle), parent: directory.path),
                      visit(resolved, info) else { continue }
                guard recursive, resolved.isDirectory, !resolved.isLink else { continue }
                guard resolved.path.components.count < TreeWalker.maxDepth else {
                    truncated = true
                    continue
                }
                if visited.insert(TreeScan.FolderIdentity(info)).inserted { pending.append(resolved) }
            }
        }
        return truncated
    }
}

/// A name `readdir` gave: nil for `.`, `..` and a name that is not UTF-8 (no Dropbox path can
/// name it).
enum DirectoryEntryName {
    static func of(_ item: UnsafeMutablePointer<dirent>) -> String? {
        let name = withUnsafeBytes(of: item.pointee.d_name) { raw -> String? in
            String(validating: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard let name, name != ".", name != ".." else { return nil }
        return name
    }
}

/// What folders of at least ``bigFolder`` entries hold, as listed less than ``freshness`` ago:
/// a new name's case twin is looked up here, not by listing the folder again (a `put -r` of
/// 10,000 notes listed the growing folder 10,000 times). Each folder keeps the hashes of its
/// names' lower case (8 bytes a name: the names themselves were 8 MiB for a 100,000-note folder,
/// kept after `byteclub ls` looked for an encryption marker there), so a name with no twin is
/// told missing at once. The names themselves are kept only once a twin was asked for (a client
/// asking by `path_lower` asks again and again), and let go a moment later. Names this server is
/// about to write are added as they are resolved; one another process made in the last second
/// may be missed, and the exact name is always tried first (``FolderPaths``).
final class FolderNameCache: Sendable {
    static let bigFolder = 2_000
    static let freshness: Duration = .seconds(1)

    private struct Folder {
        var listed: ContinuousClock.Instant
        var lowerHashes: Set<Int>
        /// The names by lower case, when a case twin was asked for since the last listing.
        var byLower: [String: String]?
    }

    /// What ``name(_:in:)`` knows of a lower-case name in a folder.
    enum Known {
        /// Not listed a moment ago: list it.
        case unknown
        /// No name there has this lower case.
        case missing
        /// A name there may have it (its hash is there): list the folder, keeping its names.
        case twin
        case named(String)

        var isTwin: Bool { if case .twin = self { true } else { false } }
    }

    private let folders = Mutex<[String: Folder]>([:])

    func name(_ lower: String, in directory: String) -> Known {
        folders.withLock { folders -> Known in
            guard let folder = folders[directory] else { return .unknown }
            guard ContinuousClock.now - folder.listed < Self.freshness else {
                folders[directory] = nil
                return .unknown
            }
            guard folder.lowerHashes.contains(lower.hashValue) else { return .missing }
            guard let byLower = folder.byLower else { return .twin }
            return byLower[lower].map(Known.named) ?? .missing
        }
    }

    /// `keepingNames`: a twin was asked for, and may be again (its names kept for a moment).
    func listed(_ names: [String], in directory: String, keepingNames: Bool = false) {
        guard names.count >= Self.bigFolder else { return }
        var lowerHashes = Set<Int>(minimumCapacity: names.count)
        var byLower: [String: String]? = keepingNames ? [:] : nil
        byLower?.reserveCapacity(names.count)
        for name in names {
            let lower = name.lowercased()
            lowerHashes.insert(lower.hashValue)
            if byLower != nil, byLower?[lower] == nil { byLower?[lower] = name }
        }
        let now = ContinuousClock.now
        folders.withLock { folders in
            // Folders not looked in for a second go: memory holds the ones being written to.
            folders = folders.filter { now - $0.value.listed < Self.freshness }
            folders[directory] = Folder(listed: now, lowerHashes: lowerHashes, byLower: byLower)
        }
        guard keepingNames else { return }
        // Names kept are let go once they are stale, even if nothing looks in the folder again.
        Task { [weak self] in
            try? await Task.sleep(for: Self.freshness * 2)
            self?.forgetStale()
        }
    }

    private func forgetStale() {
        let now = ContinuousClock.now
        folders.withLock { folders in folders = folders.filter { now - $0.value.listed < Self.freshness } }
    }

    func adding(_ name: String, in directory: String) {
        folders.withLock { folders in
            guard var folder = folders[directory], !name.isEmpty else { return }
            folders[directory] = nil
            let lower = name.lowercased()
            folder.lowerHashes.insert(lower.hashValue)
            if folder.byLower?[lower] == nil { folder.byLower?[lower] = name }
            folders[directory] = folder
        }
    }
}
