import Crypto
import Foundation
import Logging
import Remote

/// The club folder on disk, seen through Dropbox's data model.
///
/// An actor, so that every metadata change (commit, move, delete) is serialized: a rev check
/// and the rename that follows it are atomic with respect to other writers. Upload bodies are
/// streamed to temp files outside the actor; only the commit comes in here.
actor FolderStore {
    /// The root's real path (symlinks resolved), the confinement boundary.
    let root: String
    /// `.byteclub/` inside the root: ids, temp files and upload sessions.
    let metaDirectory: String
    let tempDirectory: String
    let sessionDirectory: String
    private var ids: [String: String] = [:]
    private var idsDirty = false
    private var hashCache: [FileKey: String] = [:]
    /// Hashes computed since the cache file was last written, and the keys this run has used
    /// (the file keeps only those once it grows large, so stale versions do not pile up).
    private var hashesDirty = false
    private var hashesUsed = Set<FileKey>()
    private let logger: Logger

    /// What identifies one version of a file on disk: a write is a rename of a new inode.
    struct FileKey: Hashable, Sendable {
        var inode: UInt64
        var size: Int64
        var ctimeNanoseconds: Int64
        var mtimeNanoseconds: Int64
    }

    init(root rootPath: String, logger: Logger) throws {
        try FileManager.default.createDirectory(atPath: rootPath, withIntermediateDirectories: true)
        guard let real = realpath(rootPath, nil) else {
            throw ClubServerError.badRoot(rootPath, String(cString: strerror(errno)))
        }
        root = String(cString: real)
        free(real)
        metaDirectory = root + "/" + DropboxPath.reservedName
        tempDirectory = metaDirectory + "/tmp"
        sessionDirectory = metaDirectory + "/sessions"
        self.logger = logger
        for directory in [metaDirectory, tempDirectory, sessionDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // Leftovers of uploads cut off by a crash are never visible; clear them out.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tempDirectory)) ?? [] {
            unlink(tempDirectory + "/" + name)
        }
        if let data = FileManager.default.contents(atPath: metaDirectory + "/ids.json"),
           let stored = try? JSONDecoder().decode([String: String].self, from: data) {
            ids = stored
        }
        hashCache = Self.readHashes(metaDirectory + "/content-hashes")
    }

    // MARK: - The content-hash cache

    /// Content hashes survive restarts in `.byteclub/content-hashes`, one line per file
    /// version: "inode size ctime-ns mtime-ns hash". Without it, the first listing after a start
    /// reads every file to hash it (0.75 s for 10,000 small notes). A damaged line is skipped;
    /// a file whose key changed is hashed again, so a stale line can never give a wrong hash.
    static func readHashes(_ path: String) -> [FileKey: String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        var cache: [FileKey: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let inode = UInt64(fields[0]), let size = Int64(fields[1]),
                  let ctime = Int64(fields[2]), let mtime = Int64(fields[3]), fields[4].count == 64,
                  fields[4].allSatisfy(\.isHexDigit) else { continue }
            cache[FileKey(inode: inode, size: size, ctimeNanoseconds: ctime, mtimeNanoseconds: mtime)] = String(fields[4])
        }
        return cache
    }

    /// Writes the hash cache if it changed (temp file, then rename).
    func flushHashes() {
        guard hashesDirty else { return }
        hashesDirty = false
        if hashCache.count > 50_000 { hashCache = hashCache.filter { hashesUsed.contains($0.key) } }
        var text = ""
        text.reserveCapacity(hashCache.count * 110)
        for (key, hash) in hashCache {
            text += "\(key.inode) \(key.size) \(key.ctimeNanoseconds) \(key.mtimeNanoseconds) \(hash)\n"
        }
        let temp = tempDirectory + "/hashes-\(UUID().uuidString)"
        if FileManager.default.createFile(atPath: temp, contents: Data(text.utf8)) {
            rename(temp, metaDirectory + "/content-hashes")
        }
    }

    // MARK: - Resolving paths

    /// Where a Dropbox path lives on disk, and its on-disk spelling.
    struct Resolved: Sendable {
        var host: String
        var path: DropboxPath
        var exists: Bool
        var isDirectory: Bool
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
    private func existingEntry(named name: String, in directory: String, parent: DropboxPath) throws(APIError) -> (Resolved, stat) {
        let candidate = directory + "/" + name
        var info = stat()
        guard lstat(candidate, &info) == 0 else { throw .notFound }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            guard let target = realpath(candidate, nil) else { throw .notFound }
            let resolved = String(cString: target)
            free(target)
            guard resolved == root || resolved.hasPrefix(root + "/"), !resolved.hasPrefix(metaDirectory) else {
                // A link out of the club folder: refuse, never follow.
                throw .malformedPath()
            }
            guard stat(candidate, &info) == 0 else { throw .notFound }
        }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        return (Resolved(host: candidate, path: parent.appending(name), exists: true, isDirectory: isDirectory), info)
    }

    private func matchingName(in directory: String, for component: String) -> String? {
        var info = stat()
        if lstat(directory + "/" + component, &info) == 0 { return component }
        let lower = component.lowercased()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        return names.first { $0.lowercased() == lower && !(directory == root && $0.lowercased() == DropboxPath.reservedName) }
    }

    // MARK: - Metadata

    func metadata(_ path: DropboxPath) throws(APIError) -> Metadata {
        let resolved = try resolve(path)
        guard resolved.exists else { throw .notFound }
        return try metadata(resolved)
    }

    func metadata(_ resolved: Resolved) throws(APIError) -> Metadata {
        var info = stat()
        guard stat(resolved.host, &info) == 0 else { throw .notFound }
        return try metadata(resolved, info: info)
    }

    /// Metadata from a given `stat` (e.g. an `fstat` of an open file).
    func metadata(_ resolved: Resolved, info: stat) throws(APIError) -> Metadata {
        if resolved.path.isRoot {
            return .folder(FolderMetadata(name: "", id: "id:root", pathLower: "", pathDisplay: ""))
        }
        let pathLower = resolved.path.lower
        let id = identifier(for: pathLower)
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return .folder(FolderMetadata(name: resolved.path.name, id: id, pathLower: pathLower, pathDisplay: resolved.path.display))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notFound }
        let key = Self.key(info)
        let hash: String
        if let cached = hashCache[key] {
            hash = cached
        } else {
            hash = (try? ContentHasher.hash(fileAt: resolved.host)) ?? ""
            if !hash.isEmpty {
                hashCache[key] = hash
                hashesDirty = true
            }
        }
        hashesUsed.insert(key)
        return .file(FileMetadata(
            name: resolved.path.name, id: id, pathLower: pathLower, pathDisplay: resolved.path.display,
            clientModified: Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)),
            serverModified: Date(timeIntervalSince1970: TimeInterval(info.st_ctim.tv_sec)),
            rev: Self.rev(key), size: Int64(info.st_size), contentHash: hash))
    }

    static func key(_ info: stat) -> FileKey {
        FileKey(inode: UInt64(info.st_ino), size: Int64(info.st_size),
                ctimeNanoseconds: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec),
                mtimeNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// A rev that changes with every write: each write renames a fresh inode into place, which
    /// also sets a new ctime. 16 hex digits, like Dropbox's revs.
    static func rev(_ key: FileKey) -> String {
        // SplitMix64 over the four numbers: cheap, and any change of any of them changes the rev.
        var state = key.inode
        for value in [UInt64(bitPattern: key.ctimeNanoseconds), UInt64(bitPattern: key.mtimeNanoseconds), UInt64(bitPattern: key.size)] {
            state = (state ^ value) &+ 0x9E37_79B9_7F4A_7C15
            state = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            state = (state ^ (state >> 27)) &* 0x94D0_49BB_1331_11EB
            state ^= state >> 31
        }
        let hex = String(state, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private func identifier(for pathLower: String) -> String {
        if let id = ids[pathLower] { return id }
        let id = "id:" + Self.randomToken(bytes: 12)
        ids[pathLower] = id
        idsDirty = true
        return id
    }

    /// Writes the id index if it changed; ids survive restarts and renames.
    func flushIdentifiers() {
        guard idsDirty else { return }
        idsDirty = false
        guard let data = try? JSONEncoder().encode(ids) else { return }
        let temp = tempDirectory + "/ids-\(UUID().uuidString)"
        if FileManager.default.createFile(atPath: temp, contents: data) {
            rename(temp, metaDirectory + "/ids.json")
        }
    }

    static func randomToken(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    // MARK: - Listing and search

    /// The last non-recursive listing, reused while the folder's stamp is unchanged, so that
    /// paging through a big folder does not stat every file once per page.
    /// Entries are only reused for a few seconds: a file edited in place by another program
    /// does not touch the folder's mtime.
    private var listingCache: (key: String, time: ContinuousClock.Instant, entries: [Metadata])?

    /// Every entry under `path` (its children, or all descendants), sorted by lower-case path.
    func list(_ path: DropboxPath, recursive: Bool) throws(APIError) -> [Metadata] {
        let resolved = try resolve(path)
        guard resolved.exists else { throw .notFound }
        guard resolved.isDirectory else { throw .notFolder }
        // Adding or removing an entry changes the folder's mtime; rewriting a file in place
        // renames a new inode over it, which does too. Recursive listings are never cached.
        let key = recursive ? nil : resolved.host + "|" + folderStamp(path)
        if let key, let cache = listingCache, cache.key == key, ContinuousClock.now - cache.time < .seconds(5) { return cache.entries }
        var entries: [Metadata] = []
        walk(resolved, recursive: recursive) { entries.append($0) }
        flushIdentifiers()
        flushHashes()
        // Sorted by a key taken once per entry: comparing through the enum's computed
        // `pathLower` copied two strings per comparison (140,000 of them for 10,000 files).
        entries = entries.map { ($0.pathLower, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
        if let key { listingCache = (key, ContinuousClock.now, entries) }
        return entries
    }

    private func walk(_ directory: Resolved, recursive: Bool, _ visit: (Metadata) -> Void) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.host) else { return }
        for name in names {
            if directory.path.isRoot && name.lowercased() == DropboxPath.reservedName { continue }
            guard DropboxPath.isSafeComponent(name) else { continue }
            // The directory listing gave the exact name: no need to resolve from the root again.
            guard let (resolved, info) = try? existingEntry(named: name, in: directory.host, parent: directory.path),
                  let entry = try? metadata(resolved, info: info) else { continue }
            visit(entry)
            if recursive, resolved.isDirectory {
                walk(resolved, recursive: true, visit)
            }
        }
    }

    /// A version stamp of a folder: its mtime changes whenever an entry is added or removed.
    func folderStamp(_ path: DropboxPath) -> String {
        guard let resolved = try? resolve(path), resolved.exists else { return "gone" }
        var info = stat()
        guard stat(resolved.host, &info) == 0 else { return "gone" }
        return "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// Files and folders under `scope` whose names contain every word of `query`.
    func search(scope: DropboxPath, query: String, extensions: [String]) throws(APIError) -> [Metadata] {
        let words = query.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        let wanted = Set(extensions.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) })
        return try list(scope, recursive: true).filter { entry in
            let name = entry.name.lowercased()
            if !wanted.isEmpty {
                guard case .file = entry, let dot = name.lastIndex(of: "."), wanted.contains(String(name[name.index(after: dot)...])) else { return false }
            }
            return words.allSatisfy { name.contains($0) }
        }
    }

    // MARK: - Writes

    enum WriteMode: Sendable, Equatable {
        case add
        case overwrite
        case update(rev: String)
    }

    /// Moves a fully written, fsynced temp file into place, applying the write mode.
    ///
    /// The temp file lives in `.byteclub/tmp` on the same file system, so the final step is one
    /// atomic rename: readers see the old file or the new one, never a mix.
    /// - Parameter discardOnFailure: remove `temp` if the commit fails (a session's file stays,
    ///   so the client can finish it again with another commit).
    func commit(temp: String, contentHash: String, to path: DropboxPath, mode: WriteMode, autorename: Bool, clientModified: Date?, discardOnFailure: Bool) throws(APIError) -> Metadata {
        var committed = false
        defer { if discardOnFailure || committed { unlink(temp) } }
        let result = try commitChecked(temp: temp, contentHash: contentHash, to: path, mode: mode, autorename: autorename, clientModified: clientModified)
        committed = true
        return result
    }

    private func commitChecked(temp: String, contentHash: String, to path: DropboxPath, mode: WriteMode, autorename: Bool, clientModified: Date?) throws(APIError) -> Metadata {
        guard !path.isRoot else { throw .uploadPath(["malformed_path"]) }
        var target = try resolveForWrite(path)
        if target.exists {
            guard !target.isDirectory else {
                if autorename { target = try freeName(near: target, suffix: nil) } else { throw .uploadPath(["conflict", "folder"]) }
                return try place(temp, contentHash: contentHash, at: target, clientModified: clientModified)
            }
            let current = try metadata(target)
            guard case .file(let file) = current else { throw .uploadPath(["conflict", "file"]) }
            switch mode {
            case .overwrite:
                break
            case .add:
                // Dropbox treats re-adding identical content as a no-op, not a conflict.
                if file.contentHash == contentHash { return current }
                guard autorename else { throw .uploadPath(["conflict", "file"]) }
                target = try freeName(near: target, suffix: nil)
            case .update(let rev):
                if rev != file.rev {
                    if file.contentHash == contentHash { return current }
                    guard autorename else { throw .uploadPath(["conflict", "file"]) }
                    target = try freeName(near: target, suffix: "conflicted copy")
                }
            }
        } else if case .update = mode {
            // Updating a rev of a file that is gone is a conflict in Dropbox's model too.
            guard autorename else { throw .uploadPath(["conflict", "file"]) }
        }
        return try place(temp, contentHash: contentHash, at: target, clientModified: clientModified)
    }

    private func place(_ temp: String, contentHash: String, at target: Resolved, clientModified: Date?) throws(APIError) -> Metadata {
        try makeParents(of: target)
        if let clientModified {
            var times = [timespec(tv_sec: time(nil), tv_nsec: 0), timespec(tv_sec: Int(clientModified.timeIntervalSince1970), tv_nsec: 0)]
            times[0].tv_nsec = (1 << 30) - 2 // UTIME_OMIT: leave the access time alone
            _ = utimensat(AT_FDCWD, temp, &times, 0)
        }
        guard rename(temp, target.host) == 0 else {
            throw errno == ENOSPC ? .uploadPath(["insufficient_space"]) : .uploadPath(["no_write_permission"])
        }
        Self.syncDirectory(of: target.host)
        var placed = target
        placed.exists = true
        placed.isDirectory = false
        // We hashed the body as it streamed in; no need to read the file again.
        var info = stat()
        if stat(target.host, &info) == 0 {
            hashCache[Self.key(info)] = contentHash
            hashesDirty = true
        }
        let result = try metadata(placed)
        flushIdentifiers()
        return result
    }

    /// Resolves a path for writing: the parent chain may be missing (it is created), but it
    /// must not run through a file.
    private func resolveForWrite(_ path: DropboxPath) throws(APIError) -> Resolved {
        switch Result(catching: { () throws(APIError) in try resolve(path) }) {
        case .success(let resolved):
            return resolved
        case .failure(let error):
            // A file where a parent folder should be.
            throw error.body == APIError.notFolder.body ? .uploadPath(["conflict", "file"]) : error
        }
    }

    private func makeParents(of target: Resolved) throws(APIError) {
        let parent = (target.host as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .uploadPath(["conflict", "file"]) }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw .uploadPath(["no_write_permission"])
        }
    }

    /// "name (1).txt", "name (2).txt", … or "name (conflicted copy).txt", then numbered.
    private func freeName(near target: Resolved, suffix: String?) throws(APIError) -> Resolved {
        let name = target.path.name
        let ext = (name as NSString).pathExtension
        let base = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        let dotExt = ext.isEmpty ? "" : "." + ext
        var candidates: [String] = []
        if let suffix { candidates.append("\(base) (\(suffix))\(dotExt)") }
        for number in 1...10_000 {
            candidates.append(suffix.map { "\(base) (\($0) \(number))\(dotExt)" } ?? "\(base) (\(number))\(dotExt)")
        }
        for candidate in candidates {
            let resolved = try resolve(target.path.parent.appending(candidate))
            if !resolved.exists { return resolved }
        }
        throw .uploadPath(["conflict", "file"])
    }

    private var leases: Set<String> = []

    /// Claims an upload session for one append at a time; false if another append holds it.
    func lease(_ session: String) -> Bool {
        leases.insert(session).inserted
    }

    func release(_ session: String) {
        leases.remove(session)
    }

    func createFolder(_ path: DropboxPath, autorename: Bool) throws(APIError) -> Metadata {
        guard !path.isRoot else { throw .endpoint(["path", "conflict", "folder"]) }
        var target = try resolve(path)
        if target.exists {
            guard autorename else { throw .endpoint(["path", "conflict", target.isDirectory ? "folder" : "file"]) }
            target = try freeName(near: target, suffix: nil)
        }
        do {
            try FileManager.default.createDirectory(atPath: target.host, withIntermediateDirectories: true)
        } catch {
            throw .endpoint(["path", "no_write_permission"])
        }
        target.exists = true
        target.isDirectory = true
        let result = try metadata(target)
        flushIdentifiers()
        return result
    }

    func delete(_ path: DropboxPath) throws(APIError) -> Metadata {
        guard !path.isRoot else { throw .endpoint(["path_lookup", "malformed_path"]) }
        let target: Resolved
        do { target = try resolve(path) } catch { throw Self.relabel(error, as: "path_lookup") }
        guard target.exists else { throw .endpoint(["path_lookup", "not_found"]) }
        let result = try metadata(target)
        do {
            try FileManager.default.removeItem(atPath: target.host)
        } catch {
            throw .endpoint(["path_write", "no_write_permission"])
        }
        let prefix = target.path.lower
        ids = ids.filter { $0.key != prefix && !$0.key.hasPrefix(prefix + "/") }
        idsDirty = true
        flushIdentifiers()
        return result
    }

    func move(from: DropboxPath, to: DropboxPath, autorename: Bool) throws(APIError) -> Metadata {
        guard !from.isRoot else { throw .endpoint(["from_lookup", "malformed_path"]) }
        guard !to.isRoot else { throw .endpoint(["to", "malformed_path"]) }
        let source: Resolved
        do { source = try resolve(from) } catch { throw Self.relabel(error, as: "from_lookup") }
        guard source.exists else { throw .endpoint(["from_lookup", "not_found"]) }
        if to.lower.hasPrefix(source.path.lower + "/") { throw .endpoint(["cant_move_folder_into_itself"]) }
        var target: Resolved
        do { target = try resolve(to) } catch { throw Self.relabel(error, as: "to") }
        // A case-only rename of the same entry is allowed.
        if target.exists && target.path.lower != source.path.lower {
            guard autorename else { throw .endpoint(["to", "conflict", target.isDirectory ? "folder" : "file"]) }
            target = try freeName(near: target, suffix: nil)
        }
        do {
            try makeParents(of: target)
        } catch {
            throw .endpoint(["to", "conflict", "file"])
        }
        guard rename(source.host, target.host) == 0 else { throw .endpoint(["to", "no_write_permission"]) }
        Self.syncDirectory(of: target.host)
        // The id follows the entry, and its descendants' ids follow too.
        let oldPrefix = source.path.lower
        let newPrefix = target.path.lower
        var moved: [String: String] = [:]
        for (key, value) in ids {
            if key == oldPrefix {
                moved[newPrefix] = value
            } else if key.hasPrefix(oldPrefix + "/") {
                moved[newPrefix + key.dropFirst(oldPrefix.count)] = value
            } else {
                moved[key] = value
            }
        }
        ids = moved
        idsDirty = true
        target.exists = true
        target.isDirectory = source.isDirectory
        let result = try metadata(target)
        flushIdentifiers()
        return result
    }

    /// Re-tags a lookup error for endpoints whose errors sit under another field.
    private static func relabel(_ error: APIError, as field: String) -> APIError {
        for tag in ["not_found", "not_folder", "not_file", "malformed_path"] where error.body == APIError.endpoint(["path", tag]).body {
            return .endpoint([field, tag])
        }
        return error
    }

    static func syncDirectory(of path: String) {
        let fd = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}

public enum ClubServerError: Error, CustomStringConvertible {
    case badRoot(String, String)
    case cannotBind(String)

    public var description: String {
        switch self {
        case .badRoot(let path, let reason): return "Cannot use \(path) as the club folder: \(reason)"
        case .cannotBind(let reason): return "Cannot start the server: \(reason)"
        }
    }
}
