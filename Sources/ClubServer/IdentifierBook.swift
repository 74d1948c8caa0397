/// Ids by `path_lower`: the `ids.json` a `FolderStore` keeps, and its rules, with no disk.
///
/// An id survives restarts and follows its entry (and the entries under a folder) on a move.
/// Another server over the same folder may write `ids.json` too: `merge(disk:)` keeps what that
/// server wrote except where this one changed a path since it last read or wrote the file
/// (`base`), so both servers' new ids land and neither undoes the other's.
struct IdentifierBook: Sendable, Equatable {
    /// Ids by path_lower, as this server sees them.
    private(set) var ids: [String: String]
    /// `ids.json` as this server last read or wrote it.
    private var base: [String: String]
    /// Changed since the last merge.
    private(set) var isDirty = false

    init(_ onDisk: [String: String] = [:]) {
        ids = onDisk
        base = onDisk
    }

    subscript(pathLower: String) -> String? { ids[pathLower] }

    /// The id of `pathLower`, making one with `newID` if it has none yet.
    mutating func identifier(for pathLower: String, newID: () -> String) -> String {
        if let id = ids[pathLower] { return id }
        let id = newID()
        assign(id, to: pathLower)
        return id
    }

    /// Gives `pathLower` an id it had before (a restore, a file back where one was deleted).
    mutating func assign(_ id: String, to pathLower: String) {
        ids[pathLower] = id
        isDirty = true
    }

    /// The path that holds `id`, if any.
    func path(of id: String) -> String? {
        ids.first { $0.value == id }?.key
    }

    /// `prefix` and everything under it, with their ids.
    func entries(under prefix: String) -> [(pathLower: String, id: String)] {
        ids.filter { Self.isAt($0.key, orUnder: prefix) }.map { ($0.key, $0.value) }
    }

    /// The ids of `prefix` and of everything under it.
    func ids(under prefix: String) -> [String] { entries(under: prefix).map(\.id) }

    /// Forgets `prefix` and everything under it (a delete).
    mutating func forget(under prefix: String) {
        ids = ids.filter { !Self.isAt($0.key, orUnder: prefix) }
        isDirty = true
    }

    /// Moves the ids of `oldPrefix` and everything under it to `newPrefix`.
    mutating func move(from oldPrefix: String, to newPrefix: String) {
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
        isDirty = true
    }

    /// What to write over `disk` (the file as it is now): the other server's entries, with this
    /// server's changes since `base` where the other left that path alone. Where both gave one
    /// new path an id, the one on disk stands and this server takes it too. Afterwards the
    /// book is that merge, clean.
    mutating func merge(disk: [String: String]) -> [String: String] {
        var merged = disk
        for key in Set(ids.keys).union(base.keys) where ids[key] != base[key] && disk[key] == base[key] {
            merged[key] = ids[key]
        }
        ids = merged
        base = merged
        isDirty = false
        return merged
    }

    /// The base this server last read or wrote, when the file on disk is known to be unchanged.
    var lastWritten: [String: String] { base }

    private static func isAt(_ key: String, orUnder prefix: String) -> Bool {
        key == prefix || key.hasPrefix(prefix + "/")
    }
}
