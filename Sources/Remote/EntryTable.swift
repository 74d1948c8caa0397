import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A list of entries held as one block of bytes: a fixed-size record per entry and the texts
/// after them, read into a ``RemoteEntry`` only when one is asked for.
///
/// Why: a 100,000-note club held as `[RemoteEntry]` costs seven strings per note, about 120 MiB
/// of heap for the list alone (issue 56). A table costs a record of 80 bytes and the texts'
/// bytes once (a name is found inside its path, and a path already lowercase is its own
/// `pathLower`), in two allocations; and the app's cache file holds the same bytes, so a start
/// from the cache maps the file and reads only the pages the screen asks for
/// (``EntryTable/init(mapping:offset:)``).
///
/// A table is a value: it never changes once made, and a change makes a new one
/// (``Builder``, ``edited(_:)``). Its positions are those of its entries, from 0.
///
/// The bytes (all numbers little-endian, as this machine's are; a table in another order reads
/// as damaged):
/// ```
/// 0   "BCTABLE1"            8 bytes
/// 8   entry count           UInt64
/// 16  texts' length         UInt64
/// 24  0                     UInt64 (reserved)
/// 32  records               80 bytes each
///     texts                 UTF-8, the records point into them
/// ```
/// A record: size (Int64), modified (the `Double` of `timeIntervalSinceReferenceDate`), seven
/// texts as (offset, length) UInt32 pairs: name, path, pathLower, id, rev, contentHash,
/// modifiedBy (length `UInt32.max`: nil), then kind (0 file, 1 folder), readOnly (0 nil, 1
/// false, 2 true), whether there is a modified time (0 or 1), and five bytes of padding.
public struct EntryTable: Sendable {
    let storage: Storage
    /// The records of ``storage`` this table shows (a part of a cached listing, say).
    let records: Range<Int>

    public init() {
        self = Builder().build()
    }

    public init(_ entries: some Sequence<RemoteEntry>) {
        var builder = Builder()
        for entry in entries { builder.append(entry) }
        self = builder.build()
    }

    init(storage: Storage, records: Range<Int>) {
        self.storage = storage
        self.records = records
    }

    /// The records `range` of this table, sharing its bytes.
    public func part(_ range: Range<Int>) -> EntryTable {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "a part beyond the table")
        return EntryTable(storage: storage, records: (records.lowerBound + range.lowerBound)..<(records.lowerBound + range.upperBound))
    }

    /// How many bytes the table's records and texts take (what the list costs in memory).
    public var byteCount: Int { storage.byteCount }

    // MARK: Fields

    /// The texts of a record, in their order.
    public enum Field: Int, Sendable {
        case name, path, pathLower, id, rev, contentHash, modifiedBy
    }

    static let header = 32
    static let recordSize = 80
    static let magic: UInt64 = 0x3145_4C42_4154_4342  // "BCTABLE1"
    static let nilLength = UInt32.max

    func record(_ position: Int) -> UnsafeRawPointer {
        precondition(position >= 0 && position < count, "a position beyond the table")
        return storage.records + (records.lowerBound + position) * Self.recordSize
    }

    /// The bytes of text `field` of the entry at `position`, nil for a nil text.
    public func withBytes<T>(_ field: Field, at position: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        let slot = record(position) + 16 + field.rawValue * 8
        let length = slot.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        guard length != Self.nilLength else { return nil }
        let offset = Int(slot.loadUnaligned(as: UInt32.self))
        return body(UnsafeRawBufferPointer(start: storage.texts + offset, count: Int(length)))
    }

    public func text(_ field: Field, at position: Int) -> String? {
        withBytes(field, at: position) { String(decoding: $0, as: UTF8.self) }
    }

    public func pathLower(at position: Int) -> String { text(.pathLower, at: position) ?? "" }
    public func path(at position: Int) -> String { text(.path, at: position) ?? "" }
    public func name(at position: Int) -> String { text(.name, at: position) ?? "" }

    public func kind(at position: Int) -> RemoteEntry.Kind {
        record(position).load(fromByteOffset: 72, as: UInt8.self) == 1 ? .folder : .file
    }

    public func size(at position: Int) -> Int64 { record(position).loadUnaligned(as: Int64.self) }

    /// Whether the server said the caller may not change the entry at `position` (nil: it did not say).
    public func readOnly(at position: Int) -> Bool? {
        switch record(position).load(fromByteOffset: 73, as: UInt8.self) {
        case 1: false
        case 2: true
        default: nil
        }
    }

    public func modified(at position: Int) -> Date? {
        let base = record(position)
        guard base.load(fromByteOffset: 74, as: UInt8.self) == 1 else { return nil }
        return Date(timeIntervalSinceReferenceDate: base.loadUnaligned(fromByteOffset: 8, as: Double.self))
    }

    /// Whether text `field` of the entry at `position` is `text`'s bytes, without making a string.
    public func field(_ field: Field, at position: Int, is text: String) -> Bool {
        var text = text
        return text.withUTF8 { wanted in
            withBytes(field, at: position) { have in
                have.count == wanted.count && (wanted.isEmpty || memcmp(have.baseAddress!, wanted.baseAddress!, have.count) == 0)
            } ?? false
        }
    }

    /// Whether text `field` of the entry at `position` starts with `prefix`'s bytes.
    public func field(_ field: Field, at position: Int, hasPrefix prefix: String) -> Bool {
        var prefix = prefix
        return prefix.withUTF8 { wanted in
            withBytes(field, at: position) { have in
                have.count >= wanted.count && (wanted.isEmpty || memcmp(have.baseAddress!, wanted.baseAddress!, wanted.count) == 0)
            } ?? false
        }
    }

    /// The position of the entry whose `pathLower` is `pathLower`, by a pass over the table.
    public func firstPosition(ofPathLower pathLower: String) -> Int? {
        indices.first { field(.pathLower, at: $0, is: pathLower) }
    }

    /// The table with `body`'s changes to its entries (a pass that makes every entry: for what a
    /// user does, not for every change page).
    public func edited(_ body: (inout [RemoteEntry]) throws -> Void) rethrows -> EntryTable {
        var entries = Array(self)
        try body(&entries)
        return EntryTable(entries)
    }

    public mutating func edit(_ body: (inout [RemoteEntry]) throws -> Void) rethrows {
        self = try edited(body)
    }

    /// The entries at `positions`, in that order, as a table (their bytes copied, not remade).
    public func picking(_ positions: some Sequence<Int>) -> EntryTable {
        var builder = Builder()
        for position in positions { builder.append(from: self, at: position) }
        return builder.build()
    }

    /// The entries at `positions`, in that order, as a table that shares this one's texts: only
    /// the 80-byte records are copied (a listing sorted after it was built, at a tenth of a copy).
    public func reordered(_ positions: [Int]) -> EntryTable {
        let size = Self.recordSize
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(1, positions.count * size), alignment: 16)
        for (at, position) in positions.enumerated() {
            (bytes + at * size).copyMemory(from: record(position), byteCount: size)
        }
        let source = storage
        let shared = Storage(records: UnsafeRawPointer(bytes), recordCount: positions.count, texts: source.texts,
                             textLength: source.textLength) {
            bytes.deallocate()
            withExtendedLifetime(source) {}
        }
        return EntryTable(storage: shared, records: 0..<positions.count)
    }

    /// The table's positions newest first (``RemoteEntry/modified``, none being the oldest), the
    /// same time by `pathLower`: `ClubLayout.newestFirst`'s order, read from the records.
    public func positionsNewestFirst() -> [Int] {
        let past = Date.distantPast.timeIntervalSinceReferenceDate
        func time(_ position: Int) -> Double {
            let record = record(position)
            return record.load(fromByteOffset: 74, as: UInt8.self) == 0 ? past : record.loadUnaligned(fromByteOffset: 8, as: Double.self)
        }
        return indices.sorted { a, b in
            let ta = time(a), tb = time(b)
            return ta != tb ? ta > tb : pathLowerPrecedes(a, b)
        }
    }

    /// Whether the entry at `a`'s `pathLower` sorts before `b`'s as Swift's `String` `<` does:
    /// by bytes when both are ASCII, as strings otherwise (`String` compares canonically).
    func pathLowerPrecedes(_ a: Int, _ b: Int) -> Bool {
        let ascii = withBytes(.pathLower, at: a) { x in
            withBytes(.pathLower, at: b) { y -> Bool? in
                guard !x.contains(where: { $0 >= 0x80 }), !y.contains(where: { $0 >= 0x80 }) else { return nil }
                let common = Swift.min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            } ?? nil
        } ?? nil
        return ascii ?? (pathLower(at: a) < pathLower(at: b))
    }

    /// The table cut into `parts` by `classify(position)` (in `0..<parts`): parts of this table
    /// when each part's entries are together and in order (a cached listing written part after
    /// part), copies otherwise.
    public func split(into parts: Int, by classify: (Int) -> Int) -> [EntryTable] {
        let of = indices.map(classify)
        var starts = Array(repeating: count, count: parts + 1)
        var inOrder = true
        for (position, which) in of.enumerated() {
            if position > 0, which < of[position - 1] { inOrder = false }
            starts[which] = Swift.min(starts[which], position)
        }
        guard inOrder else {
            return (0..<parts).map { which in picking(of.indices.filter { of[$0] == which }) }
        }
        // An empty part starts where the next one does.
        for which in stride(from: parts - 1, through: 0, by: -1) { starts[which] = Swift.min(starts[which], starts[which + 1]) }
        return (0..<parts).map { self.part(starts[$0]..<starts[$0 + 1]) }
    }

    /// The entries for which `isIncluded` is true, as a table; the table itself (no copy) when all are.
    public func filtered(_ isIncluded: (Int) -> Bool) -> EntryTable {
        let kept = indices.filter(isIncluded)
        return kept.count == count ? self : picking(kept)
    }
}

extension EntryTable: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    /// The entry at `position`, made now from its record.
    public subscript(position: Int) -> RemoteEntry {
        var entry = RemoteEntry(kind: kind(at: position), name: name(at: position), path: path(at: position),
                                pathLower: pathLower(at: position), id: text(.id, at: position), rev: text(.rev, at: position),
                                size: size(at: position), modified: modified(at: position),
                                contentHash: text(.contentHash, at: position), modifiedBy: text(.modifiedBy, at: position))
        entry.readOnly = readOnly(at: position)
        return entry
    }
}

extension EntryTable: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: RemoteEntry...) {
        self.init(elements)
    }
}

extension EntryTable: Equatable {
    /// Equal when they hold equal entries, compared byte for byte without making them.
    public static func == (a: EntryTable, b: EntryTable) -> Bool {
        if a.storage === b.storage && a.records == b.records { return true }
        guard a.count == b.count else { return false }
        for position in a.indices {
            let ra = a.record(position), rb = b.record(position)
            // Size, kind, readOnly, whether modified, and the time when there is one.
            guard memcmp(ra, rb, 8) == 0, memcmp(ra + 72, rb + 72, 3) == 0,
                  ra.load(fromByteOffset: 74, as: UInt8.self) == 0 || memcmp(ra + 8, rb + 8, 8) == 0 else { return false }
            for raw in 0..<7 {
                let field = Field(rawValue: raw)!
                let same = a.withBytes(field, at: position) { x in
                    b.withBytes(field, at: position) { y in
                        x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
                    } ?? false
                } ?? (b.withBytes(field, at: position) { _ in true } == nil)
                guard same else { return false }
            }
        }
        return true
    }
}

extension EntryTable: CustomStringConvertible {
    public var description: String { "EntryTable(\(Array(self)))" }
}

// MARK: - Storage

extension EntryTable {
    /// The records and texts of one or more tables. Immutable once made.
    ///
    /// `@unchecked Sendable`: the pointers are to memory that is written only before `init`
    /// returns (a ``Builder``'s buffers, handed over) or is a read-only private mapping of a file,
    /// and freed only in `deinit`, when no table holds this storage any more.
    final class Storage: @unchecked Sendable {
        let records: UnsafeRawPointer
        let texts: UnsafeRawPointer
        /// How many records, and how many bytes of text, there are.
        let recordCount: Int
        let textLength: Int
        private let release: () -> Void

        init(records: UnsafeRawPointer, recordCount: Int, texts: UnsafeRawPointer, textLength: Int, release: @escaping () -> Void) {
            self.records = records
            self.recordCount = recordCount
            self.texts = texts
            self.textLength = textLength
            self.release = release
        }

        var byteCount: Int { recordCount * EntryTable.recordSize + textLength }

        deinit { release() }
    }
}
