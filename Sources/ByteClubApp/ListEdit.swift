import Foundation
import ClubKit
import Remote

/// A change page applied to a list's ``EntryTable``: what it removes, replaces and adds is
/// kept beside the table, and a new table is made once at the end, the table's order kept and
/// the changed entries merged into it (``table(order:)``). A page of a few changes to a
/// 100,000-note list makes a few entries, not 100,000 (issue 56).
struct ListEdit {
    let base: EntryTable
    /// How many of ``base``'s entries have each hash of a lowercased path, when the list keeps
    /// them (``Listing/pathCounts``): a path whose hash is not there is not in the table, so a
    /// page of new notes (a `put -r` seen live) looks none of them up in the table's bytes.
    private let known: PathCounts?
    /// Positions of ``base`` that are gone (deleted, or replaced: see ``replaced``).
    private var removed = Set<Int>()
    /// Positions of ``base`` whose entry is now another (same path).
    private var replaced: [Int: RemoteEntry] = [:]
    private var added: [RemoteEntry] = []
    /// ``base``'s positions by a hash of their lowercased paths, sorted, made when a page looks
    /// up many paths.
    private var byHash: [(hash: Int, position: Int)]?
    private var lookups = 0
    /// The lowercased paths a change touched, for ``outcome()``.
    private var touched = Set<String>()

    /// Positions by lowercased path of the entries ``added`` holds.
    private var addedAt: [String: Int] = [:]

    init(_ base: EntryTable, known: PathCounts? = nil) {
        self.base = base
        self.known = known
    }

    /// Removes the entry at `pathLower` and everything inside it (`inFolder`: only when it may be
    /// a folder with entries, which takes a pass over the table) and returns what went, in the
    /// list's order.
    mutating func removeAll(pathLower: String, inFolder: Bool) -> [RemoteEntry] {
        let inside = pathLower + "/"
        var gone: [RemoteEntry] = []
        if inFolder {
            for position in base.indices where isListed(position) {
                guard base.field(.pathLower, at: position, is: pathLower) || base.field(.pathLower, at: position, hasPrefix: inside)
                else { continue }
                gone.append(replaced[position] ?? base[position])
                remove(position)
            }
        } else if let position = position(of: pathLower) {
            gone.append(replaced[position] ?? base[position])
            remove(position)
        }
        let (leaving, staying) = added.reduce(into: ([RemoteEntry](), [RemoteEntry]())) { split, entry in
            if entry.pathLower == pathLower || entry.pathLower.hasPrefix(inside) { split.0.append(entry) } else { split.1.append(entry) }
        }
        if !leaving.isEmpty {
            added = staying
            addedAt = Dictionary(uniqueKeysWithValues: added.enumerated().map { ($1.pathLower, $0) })
        }
        for entry in gone + leaving { touched.insert(entry.pathLower) }
        return gone + leaving
    }

    /// The entry listed at `pathLower` now, if any.
    mutating func entry(at pathLower: String) -> RemoteEntry? {
        if let position = position(of: pathLower) { return replaced[position] ?? base[position] }
        return addedAt[pathLower].map { added[$0] }
    }

    /// Puts `entry` in place of the one at its path, or adds it.
    mutating func put(_ entry: RemoteEntry) {
        touched.insert(entry.pathLower)
        if let position = position(of: entry.pathLower) {
            replaced[position] = entry
            removed.insert(position)
        } else if let index = addedAt[entry.pathLower] {
            added[index] = entry
        } else {
            addedAt[entry.pathLower] = added.count
            added.append(entry)
        }
    }

    /// What the page did, path by path: the entries now at the paths it touched, and the paths
    /// it left empty (what the search index takes in, ``ListingChange``).
    mutating func outcome() -> (changed: [RemoteEntry], removed: [String]) {
        var changed: [RemoteEntry] = [], removed: [String] = []
        for path in touched.sorted() {
            if let entry = entry(at: path) { changed.append(entry) } else { removed.append(path) }
        }
        return (changed, removed)
    }

    /// Every entry as the list has it now (for what needs them all: a folder's move).
    var current: [RemoteEntry] {
        base.indices.compactMap { isRemoved($0) ? replaced[$0] : base[$0] } + added
    }

    /// The new table: ``base``'s remaining entries in their order, with the replaced and added
    /// ones that `order` keeps (it filters and sorts, as ``ClubLayout/sortedNotes(_:)``) merged in
    /// where `order` puts them.
    func table(order: ([RemoteEntry]) -> [RemoteEntry]) -> EntryTable {
        var none: PathCounts?
        return table(order: order, counts: &none)
    }

    /// ``table(order:)``, with `counts` (``base``'s, when kept) made the new table's.
    func table(order: ([RemoteEntry]) -> [RemoteEntry], counts: inout PathCounts?) -> EntryTable {
        let moved = order(replaced.keys.sorted().compactMap { replaced[$0] } + added)
        if var kept = counts {
            for position in removed { kept.remove(Self.hash(base, position)) }
            for entry in moved { kept.add(Self.hash(entry.pathLower)) }
            counts = kept
        }
        return table(moved: moved)
    }

    private func table(moved: [RemoteEntry]) -> EntryTable {
        var builder = EntryTable.Builder(capacity: base.count - removed.count + moved.count)
        var next = moved.startIndex
        for position in base.indices where !removed.contains(position) {
            while next < moved.endIndex, Self.isNewer(moved[next], than: position, of: base) {
                builder.append(moved[next])
                next += 1
            }
            builder.append(from: base, at: position)
        }
        for entry in moved[next...] { builder.append(entry) }
        return builder.build()
    }

    /// Whether `entry` goes before the entry at `position` newest first (``ClubLayout/newestFirst(_:)``'s order).
    private static func isNewer(_ entry: RemoteEntry, than position: Int, of table: EntryTable) -> Bool {
        let a = entry.modified ?? .distantPast, b = table.modified(at: position) ?? .distantPast
        return a != b ? a > b : entry.pathLower < table.pathLower(at: position)
    }

    private func isRemoved(_ position: Int) -> Bool { removed.contains(position) }

    /// Whether the entry at `position` is still listed, as it was or replaced.
    private func isListed(_ position: Int) -> Bool { !removed.contains(position) || replaced[position] != nil }

    private mutating func remove(_ position: Int) {
        removed.insert(position)
        replaced[position] = nil
    }

    /// The position in ``base`` of the entry at `pathLower` still listed (replaced or not).
    private mutating func position(of pathLower: String) -> Int? {
        if let known, !known.contains(Self.hash(pathLower)) { return nil }
        lookups += 1
        // A few look-ups pass over the table; more make the hash index first.
        guard lookups > 4 else {
            return base.indices.first { base.field(.pathLower, at: $0, is: pathLower) && isListed($0) }
        }
        if byHash == nil {
            byHash = base.indices.map { (Self.hash(base, $0), $0) }.sorted { $0.hash < $1.hash || ($0.hash == $1.hash && $0.position < $1.position) }
        }
        guard let index = byHash else { return nil }
        let wanted = Self.hash(pathLower)
        var low = 0, high = index.count
        while low < high {
            let middle = (low + high) / 2
            if index[middle].hash < wanted { low = middle + 1 } else { high = middle }
        }
        while low < index.count, index[low].hash == wanted {
            let position = index[low].position
            if base.field(.pathLower, at: position, is: pathLower), isListed(position) { return position }
            low += 1
        }
        return nil
    }

    static func hash(_ table: EntryTable, _ position: Int) -> Int {
        table.withBytes(.pathLower, at: position) { bytes in
            var hasher = Hasher()
            hasher.combine(bytes: bytes)
            return hasher.finalize()
        } ?? 0
    }

    static func hash(_ text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var hasher = Hasher()
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            return hasher.finalize()
        }
    }
}

/// How many entries of a table have each hash of a lowercased path (``ListEdit``'s quick "not
/// there"), kept with the list from one change page to the next: made once per list (a pass
/// hashing every path), then changed by what each page removed and added. Counts, not a set: two
/// paths of one hash stay known until both are gone.
struct PathCounts: Sendable, Equatable {
    private var counts: [Int: Int32]

    init(_ table: EntryTable) {
        counts = Dictionary(minimumCapacity: table.count)
        for position in table.indices { add(ListEdit.hash(table, position)) }
    }

    func contains(_ hash: Int) -> Bool { counts[hash] != nil }

    mutating func add(_ hash: Int) { counts[hash, default: 0] += 1 }

    mutating func remove(_ hash: Int) {
        guard let count = counts[hash] else { return }
        counts[hash] = count > 1 ? count - 1 : nil
    }
}

/// The list's ``PathCounts``, a cache of its entries that never makes two listings unequal.
struct PathCountsSlot: Equatable, Sendable {
    var counts: PathCounts?
    static func == (_: PathCountsSlot, _: PathCountsSlot) -> Bool { true }
}
