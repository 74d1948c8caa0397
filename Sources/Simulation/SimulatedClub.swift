import ClubServer
import DropboxWire
import Foundation
import Remote
import Synchronization

/// A club's folder in memory, answering as the club server does (``Kind/club``: every write by
/// the server's own ``CommitRule``, revisions kept and restorable) or as a WebDAV server does
/// (``Kind/webdav``: `If-Match`/`If-None-Match` only, no revisions), for the simulation: no
/// socket, no disk, no clock but the one it is handed, and every rev and id from a counter, so
/// the same calls in the same order give the same answers, byte for byte.
public final class SimulatedClub: RemoteStore, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case club, webdav
    }

    public let kind: Kind
    public let displayName: String
    public var keepsHistory: Bool { kind == .club }
    /// The simulated time a write is stamped with.
    let now: @Sendable () -> Date

    struct File {
        var path: String
        var id: String
        var rev: String
        var data: Data
        var modified: Date
        var author: String?
    }

    struct State {
        var files: [String: File] = [:]
        /// Folders by lowercased path, with the path as made.
        var folders: [String: String] = ["": ""]
        /// Every revision ever written, by rev: its path then and its bytes (club only).
        var revisions: [String: File] = [:]
        /// Each path's revisions, oldest first (club only).
        var histories: [String: [String]] = [:]
        var counter = 0

        mutating func next(_ prefix: String) -> String {
            counter += 1
            return prefix + String(counter, radix: 16)
        }
    }

    let state = Mutex(State())

    public init(kind: Kind, name: String, now: @escaping @Sendable () -> Date) {
        self.kind = kind
        displayName = name
        self.now = now
    }

    // MARK: - Reading

    public func read(_ path: String) async throws(RemoteError) -> (data: Data, entry: RemoteEntry) {
        try state.withLock { state throws(RemoteError) in
            if path.hasPrefix("rev:") {
                guard kind == .club, var file = state.revisions[String(path.dropFirst(4))] else { throw RemoteError.notFound(path) }
                // As the club server answers it: the revision's bytes, named by the file it
                // belongs to as it is now (where it was moved), if it is still there.
                if let now = state.files.values.first(where: { $0.id == file.id }) { file.path = now.path }
                return (file.data, Self.entry(file))
            }
            guard let file = state.files[path.lowercased()] else { throw RemoteError.notFound(path) }
            return (file.data, Self.entry(file))
        }
    }

    public func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try state.withLock { state throws(RemoteError) in
            if let file = state.files[path.lowercased()] { return Self.entry(file) }
            if let folder = state.folders[path.lowercased()] { return Self.folderEntry(folder) }
            throw RemoteError.notFound(path)
        }
    }

    public func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        try state.withLock { state throws(RemoteError) in
            let lower = folder.lowercased()
            guard state.folders[lower] != nil else { throw RemoteError.notFound(folder) }
            // In the order they were made (an id's number; folders by name first): never by a
            // name an encrypted club draws at random, so a seed lists the same each run.
            let files = state.files.values.filter { Self.parent(of: $0.path.lowercased()) == lower }
                .sorted { Self.born($0.id) < Self.born($1.id) }.map(Self.entry)
            let folders = state.folders.filter { !$0.key.isEmpty && Self.parent(of: $0.key) == lower }.map { Self.folderEntry($0.value) }
            return (folders.sorted { $0.pathLower < $1.pathLower } + files, nil)
        }
    }

    public func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        throw .notSupported("search in the simulated club")
    }

    public func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                         onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        let (data, entry) = try await read(path)
        do {
            try data.write(to: destination, options: .atomic)
        } catch {
            throw .local("cannot write \(destination.path): \(error.localizedDescription)")
        }
        return entry
    }

    public func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data {
        throw .notSupported("thumbnails in the simulated club")
    }

    // MARK: - Writing

    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        guard let data = FileManager.default.contents(atPath: file.path) else { throw .local("cannot read \(file.path)") }
        return try await upload(data: data, to: path, mode: mode, autorename: autorename)
    }

    public func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try write(data, to: path, mode: mode, autorename: autorename, author: nil)
    }

    /// A write as the server decides it: the club server's ``CommitRule``, or WebDAV's
    /// preconditions (an `add` is `If-None-Match: *`, an `update` is `If-Match` its ETag; neither
    /// knows that the bytes are the same).
    func write(_ data: Data, to path: String, mode: WriteMode, autorename: Bool, author: String?) throws(RemoteError) -> RemoteEntry {
        let hash = Self.hash(data)
        return try state.withLock { state throws(RemoteError) in
            let lower = path.lowercased()
            // Dropbox and the club server make the folders a file goes into.
            if state.folders[Self.parent(of: lower)] == nil { try Self.makeParents(of: path, in: &state) }
            let target: CommitRule.Target
            if let file = state.files[lower] {
                target = .file(rev: file.rev, contentHash: Self.hash(file.data))
            } else if state.folders[lower] != nil {
                target = .folder
            } else {
                target = .nothing
            }
            switch kind {
            case .club:
                switch CommitRule.decide(target, mode: mode, autorename: autorename, contentHash: hash) {
                case .place:
                    return try place(data, at: path, author: author, in: &state)
                case .unchanged:
                    return Self.entry(state.files[lower]!)
                case .placeBeside(let suffix):
                    let name = (path as NSString).lastPathComponent
                    let folder = (path as NSString).deletingLastPathComponent
                    for candidate in CommitRule.freeNames(near: name, suffix: suffix, count: 100) {
                        let beside = (folder as NSString).appendingPathComponent(candidate)
                        if state.files[beside.lowercased()] == nil, state.folders[beside.lowercased()] == nil {
                            return try place(data, at: beside, author: author, in: &state)
                        }
                    }
                    throw RemoteError.conflict(path)
                case .conflict:
                    throw RemoteError.conflict(path)
                }
            case .webdav:
                switch (target, mode) {
                case (.nothing, .update):
                    throw RemoteError.conflict(path)
                case (.nothing, _), (.file, .overwrite):
                    return try place(data, at: path, author: author, in: &state)
                case (.file(let rev, _), .update(let wanted)) where rev == wanted:
                    return try place(data, at: path, author: author, in: &state)
                default:
                    throw RemoteError.conflict(path)
                }
            }
        }
    }

    private func place(_ data: Data, at path: String, author: String?, in state: inout State) throws(RemoteError) -> RemoteEntry {
        let lower = path.lowercased()
        let id = state.files[lower]?.id ?? state.next("id:")
        let file = File(path: state.files[lower]?.path ?? path, id: id, rev: state.next(kind == .club ? "r" : "etag-"),
                        data: data, modified: now(), author: author)
        state.files[lower] = file
        if kind == .club {
            state.revisions[file.rev] = file
            state.histories[lower, default: []].append(file.rev)
        }
        return Self.entry(file)
    }

    public func delete(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try state.withLock { state throws(RemoteError) in
            let lower = path.lowercased()
            if let file = state.files.removeValue(forKey: lower) { return Self.entry(file) }
            guard let folder = state.folders[lower], !lower.isEmpty else { throw RemoteError.notFound(path) }
            for key in state.files.keys where key.hasPrefix(lower + "/") { state.files.removeValue(forKey: key) }
            for key in state.folders.keys where key == lower || key.hasPrefix(lower + "/") { state.folders.removeValue(forKey: key) }
            return Self.folderEntry(folder)
        }
    }

    public func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try state.withLock { state throws(RemoteError) in
            let (old, new) = (from.lowercased(), to.lowercased())
            guard state.files[old] != nil || (state.folders[old] != nil && !old.isEmpty) else { throw RemoteError.notFound(from) }
            // A change of case only is a move to the same name.
            if new != old, state.files[new] != nil || state.folders[new] != nil { throw RemoteError.conflict(to) }
            guard state.folders[Self.parent(of: new)] != nil else { throw RemoteError.notFound((to as NSString).deletingLastPathComponent) }
            if var file = state.files.removeValue(forKey: old) {
                file.path = to
                state.files[new] = file
                if kind == .club {
                    // A move keeps the file's id and rev, and its history goes with it.
                    state.histories[new] = state.histories.removeValue(forKey: old)
                }
                return Self.entry(file)
            }
            for (key, var file) in state.files where key.hasPrefix(old + "/") {
                state.files.removeValue(forKey: key)
                file.path = to + file.path.dropFirst(from.count)
                state.files[file.path.lowercased()] = file
            }
            for (key, folder) in state.folders where key == old || key.hasPrefix(old + "/") {
                state.folders.removeValue(forKey: key)
                let moved = to + folder.dropFirst(from.count)
                state.folders[moved.lowercased()] = moved
            }
            return Self.folderEntry(to)
        }
    }

    public func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try state.withLock { state throws(RemoteError) in
            let lower = path.lowercased()
            if state.files[lower] != nil || state.folders[lower] != nil { throw RemoteError.conflict(path) }
            try Self.makeParents(of: path + "/x", in: &state)
            return Self.folderEntry(path)
        }
    }

    // MARK: - Revisions (club only)

    public func revisions(_ path: String, limit: Int, before: String?) async throws(RemoteError) -> RemoteRevisions {
        guard kind == .club else { throw .notSupported("revisions") }
        return try state.withLock { state throws(RemoteError) in
            let lower = path.lowercased()
            guard let revs = state.histories[lower], !revs.isEmpty else { throw RemoteError.notFound(path) }
            let entries = revs.reversed().prefix(limit).compactMap { state.revisions[$0] }.map { file in
                var entry = Self.entry(file)
                entry.path = path
                entry.pathLower = lower
                return entry
            }
            return RemoteRevisions(entries: entries, isDeleted: state.files[lower] == nil)
        }
    }

    public func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry {
        guard kind == .club else { throw .notSupported("restore") }
        let old = try state.withLock { state throws(RemoteError) in
            guard let file = state.revisions[rev], state.histories[path.lowercased()]?.contains(rev) == true else { throw RemoteError.notFound(rev) }
            return file
        }
        return try write(old.data, to: path, mode: .overwrite, autorename: false, author: old.author)
    }

    public func copy(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        let (data, _) = try await read(from)
        return try write(data, to: to, mode: .add, autorename: autorename, author: nil)
    }

    // MARK: - Looking without a network (the checker's)

    /// Every file's path and text, sorted by path.
    public var everyFile: [(path: String, data: Data)] {
        state.withLock { $0.files.values.map { ($0.path, $0.data) }.sorted { $0.path < $1.path } }
    }

    // MARK: - Helpers

    static func entry(_ file: File) -> RemoteEntry {
        RemoteEntry(kind: .file, name: (file.path as NSString).lastPathComponent, path: file.path, id: file.id, rev: file.rev,
                    size: Int64(file.data.count), modified: file.modified, contentHash: hash(file.data), modifiedBy: file.author)
    }

    static func folderEntry(_ path: String) -> RemoteEntry {
        RemoteEntry(kind: .folder, name: (path as NSString).lastPathComponent, path: path)
    }

    /// The counter an id was made from ("id:1f" → 31).
    static func born(_ id: String) -> Int { Int(id.dropFirst(3), radix: 16) ?? 0 }

    static func parent(of lower: String) -> String {
        let parent = (lower as NSString).deletingLastPathComponent
        return parent == "/" ? "" : parent
    }

    /// Makes every folder above `path` that is not there (a file in the way is a conflict).
    static func makeParents(of path: String, in state: inout State) throws(RemoteError) {
        var folder = ""
        for part in path.split(separator: "/").dropLast() {
            folder += "/" + part
            if state.files[folder.lowercased()] != nil { throw RemoteError.conflict(folder) }
            if state.folders[folder.lowercased()] == nil { state.folders[folder.lowercased()] = folder }
        }
    }

    /// Dropbox's content hash of the bytes (DropboxWire's ``ContentHasher``).
    static func hash(_ data: Data) -> String {
        var hasher = ContentHasher()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }
}
