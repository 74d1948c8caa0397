/// Ids by `path_lower`: the `ids.json` (and its `ids.log`) a `FolderStore` keeps, and its
/// rules, with no disk.
///
/// An id survives restarts and follows its entry (and the entries under a folder) on a move.
/// Another server over the same folder may write the ids too: `merge(disk:)` keeps what that
/// server wrote except where this one changed a path since it last read or wrote them, so both
/// servers' new ids land and neither undoes the other's.
///
/// The book remembers only the paths it changed since then (``changes``), each with the id it
/// had on disk: writing a few new ids into a 100,000-note club's book costs those few, not a
/// look at every path (CacheFiles appends them to `ids.log`).
struct IdentifierBook: Sendable, Equatable {
    /// Ids by path_lower, as this server sees them.
    private(set) var ids: [String: String]
    /// The paths changed since the last read or write, each with the id it had then (nil: none).
    private var changedFrom: [String: String?] = [:]

    init(_ onDisk: [String: String] = [:]) {
        ids = onDisk
    }

    /// Changed since the last merge.
    var isDirty: Bool { !changedFrom.isEmpty }

    /// The paths changed since the last read or write, with their ids now (nil: forgotten), in
    /// no order: each path is named once. (Sorted, they were a thirtieth of a first listing of
    /// 100,000 new files.)
    var changes: [(pathLower: String, id: String?)] {
        changedFrom.keys.map { ($0, ids[$0]) }
    }

    /// How many paths changed since the last read or write.
    var changeCount: Int { changedFrom.count }

    /// The changes are on disk as they are (appended where the disk was as this server left it).
    mutating func settle() { changedFrom = [:] }

    private mutating func set(_ pathLower: String, _ id: String?) {
        // Noted with the id it had unless already changed: one lookup, the default (the id it
        // had) taken only when the path is not there.
        Self.keep(&changedFrom[pathLower, default: ids[pathLower]])
        ids[pathLower] = id
    }

    private static func keep(_: inout String?) {}

    subscript(pathLower: String) -> String? { ids[pathLower] }

    /// Room for `count` ids in all (a listing of that many entries), and for as many new ones
    /// as that may make among the changes: a first listing of 100,000 new files grew both
    /// tables by doubling, each string hashed again at each step.
    mutating func reserve(_ count: Int) {
        guard count > ids.count else { return }
        changedFrom.reserveCapacity(changedFrom.count + count - ids.count)
        ids.reserveCapacity(count)
    }

    /// The id of `pathLower`, making one with `newID` if it has none yet.
    mutating func identifier(for pathLower: String, newID: () -> String) -> String {
        if let id = ids[pathLower] { return id }
        let id = newID()
        assign(id, to: pathLower)
        return id
    }

    /// Gives `pathLower` an id it had before (a restore, a file back where one was deleted).
    mutating func assign(_ id: String, to pathLower: String) {
        set(pathLower, id)
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
        for key in ids.keys where Self.isAt(key, orUnder: prefix) { set(key, nil) }
    }

    /// Moves the ids of `oldPrefix` and everything under it to `newPrefix`.
    mutating func move(from oldPrefix: String, to newPrefix: String) {
        let moving = ids.filter { Self.isAt($0.key, orUnder: oldPrefix) }
        for key in moving.keys { set(key, nil) }
        for (key, value) in moving { set(newPrefix + key.dropFirst(oldPrefix.count), value) }
    }

    /// What to write over `disk` (the ids as they are on disk now): the other server's entries,
    /// with this server's changes where the other left that path alone. Where both gave one
    /// new path an id, the one on disk stands and this server takes it too. Afterwards the
    /// book is that merge, clean.
    mutating func merge(disk: [String: String]) -> [String: String] {
        var merged = disk
        for (key, was) in changedFrom where ids[key] != was && disk[key] == was {
            merged[key] = ids[key]
        }
        ids = merged
        changedFrom = [:]
        return merged
    }

    private static func isAt(_ key: String, orUnder prefix: String) -> Bool {
        key == prefix || key.hasPrefix(prefix + "/")
    }
}
