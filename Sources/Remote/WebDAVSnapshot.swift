import Foundation

/// What a WebDAV folder held at one look: each item's path and fingerprint, and the ETag of
/// every folder listed. It is the WebDAV store's change cursor (``RemoteCursor/value``), so a
/// cursor the app cached on disk still says what changed after a restart, with no state kept
/// by the store or the server.
///
/// The fingerprint is the file's ETag, or its size and modification time on a server that
/// gives no ETag; folders have none (what is in them is listed on its own when recursive).
/// The cursor costs about 40 bytes per item (a 2,000-note folder makes an 80 KB cursor).
struct WebDAVSnapshot: Sendable, Equatable {
    struct Item: Sendable, Equatable {
        /// As displayed, e.g. "/byteclub/a.txt".
        var path: String
        var isFolder: Bool
        var fingerprint: String

        /// The same item in the same state: kind, fingerprint and name as spelled. Folders
        /// above it are compared by their lower-cased key only (a cursor spells its folder as
        /// it was asked for, the server perhaps otherwise).
        func isSame(as other: Item) -> Bool {
            isFolder == other.isFolder && fingerprint == other.fingerprint && path.split(separator: "/").last == other.path.split(separator: "/").last
        }
    }

    /// The folder the cursor is about.
    var folder: String
    var recursive: Bool
    /// By lower-cased path.
    var items: [String: Item] = [:]
    /// Each folder listed (the cursor's folder, and its subfolders when recursive), by
    /// lower-cased path: its ETag, or "" when the server gave none.
    var folders: [String: String] = [:]

    init(folder: String, recursive: Bool) {
        self.folder = folder
        self.recursive = recursive
    }

    static func fingerprint(_ entry: RemoteEntry) -> String {
        if entry.kind == .folder { return "" }
        if let rev = entry.rev, !rev.isEmpty { return rev }
        return "\(entry.size)@\(entry.modified.map { String(Int64($0.timeIntervalSince1970 * 1000)) } ?? "")"
    }

    mutating func add(_ entry: RemoteEntry) {
        items[entry.pathLower] = Item(path: entry.path, isFolder: entry.kind == .folder, fingerprint: Self.fingerprint(entry))
    }

    /// `sorted` (by `pathLower`) with each path once, as its last occurrence had it.
    static func lastOfEach(_ sorted: [RemoteEntry]) -> [RemoteEntry] {
        guard zip(sorted, sorted.dropFirst()).contains(where: { $0.pathLower == $1.pathLower }) else { return sorted }
        var kept: [RemoteEntry] = []
        kept.reserveCapacity(sorted.count)
        for entry in sorted {
            if kept.last?.pathLower == entry.pathLower { kept[kept.count - 1] = entry } else { kept.append(entry) }
        }
        return kept
    }

    /// "/a/b.txt" → "/a".
    static func parent(of pathLower: String) -> String {
        guard let slash = pathLower.lastIndex(of: "/") else { return "" }
        return String(pathLower[..<slash])
    }

    /// The items directly in the folder `folderLower`.
    func children(of folderLower: String) -> [(key: String, item: Item)] {
        items.filter { Self.parent(of: $0.key) == folderLower }.map { (key: $0.key, item: $0.value) }
    }

    /// Whether anything differs from `other`: an item added, gone, or with another fingerprint or spelling.
    func differs(from other: WebDAVSnapshot) -> Bool {
        items.count != other.items.count || items.contains { key, item in !(other.items[key].map { $0.isSame(as: item) } ?? false) }
    }

    /// What changed from `self` to `newer`, deletions first (parents before what was in them),
    /// then additions and changes, each by path. `fresh` holds the entries `newer` listed; an
    /// item not in it was carried over from `self` (its folder's ETag had not changed) and so is
    /// unchanged.
    func changes(to newer: WebDAVSnapshot, fresh: [String: RemoteEntry]) -> [RemoteChange] {
        var deletions: [RemoteChange] = []
        for (key, old) in items.sorted(by: { $0.key < $1.key }) {
            if let now = newer.items[key], now.isFolder == old.isFolder { continue }
            let name = old.path.split(separator: "/").last.map(String.init) ?? old.path
            deletions.append(.deleted(name: name, path: old.path, pathLower: key))
        }
        var updates: [RemoteChange] = []
        for (key, item) in newer.items.sorted(by: { $0.key < $1.key }) {
            if let old = items[key], old.isSame(as: item) { continue }
            guard let entry = fresh[key] else { continue }
            updates.append(.updated(entry))
        }
        return deletions + updates
    }

    // MARK: - The cursor

    static let prefix = "webdav1:"

    /// On the wire: paths relative to the cursor's folder ("a.txt", "sub/" for a folder), so a
    /// big folder's cursor stays small; the folder itself is "".
    private struct Wire: Codable {
        var folders: [String: String]
        var items: [String: String]
    }

    var cursor: RemoteCursor {
        let base = folder.count + 1
        var wire = Wire(folders: [:], items: [:])
        for (key, etag) in folders {
            wire.folders[key == folder.lowercased() ? "" : String(key.dropFirst(base))] = etag
        }
        for item in items.values {
            wire.items[String(item.path.dropFirst(base)) + (item.isFolder ? "/" : "")] = item.fingerprint
        }
        let text = (try? JSONEncoder().encode(wire)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return RemoteCursor(folder: folder, recursive: recursive, value: Self.prefix + text)
    }

    /// The snapshot a cursor holds; a cursor that is not one of ours (another store's, or a
    /// damaged cache) throws `.cursorReset`, so the caller lists again.
    init(cursor: RemoteCursor) throws(RemoteError) {
        guard cursor.value.hasPrefix(Self.prefix),
              let wire = try? JSONDecoder().decode(Wire.self, from: Data(cursor.value.dropFirst(Self.prefix.count).utf8)) else {
            throw .cursorReset
        }
        self.init(folder: cursor.folder, recursive: cursor.recursive)
        let folderLower = folder.lowercased()
        for (relative, etag) in wire.folders {
            guard relative.isEmpty || Self.isRelativePath(relative) else { throw .cursorReset }
            folders[relative.isEmpty ? folderLower : folderLower + "/" + relative] = etag
        }
        for (relative, fingerprint) in wire.items {
            let isFolder = relative.hasSuffix("/")
            let name = isFolder ? String(relative.dropLast()) : relative
            guard Self.isRelativePath(name), recursive || !name.contains("/") else { throw .cursorReset }
            let path = folder + "/" + name
            items[path.lowercased()] = Item(path: path, isFolder: isFolder, fingerprint: fingerprint)
        }
        guard folders[folderLower] != nil else { throw .cursorReset }
    }

    /// "a.txt" or "sub/b.jpg": no empty, "." or ".." component.
    private static func isRelativePath(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return !parts.isEmpty && !parts.contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }
}
