import Foundation
import Remote

/// The app's cached listing, an ``EntryTable``'s bytes as the disk gives them back: a damaged
/// file must be refused or read whole, every field of every entry readable, and the entries
/// written again must come back the same.
enum EntryTableTarget {
    static func run(_ data: Data) {
        data.withUnsafeBytes { raw in
            guard let table = EntryTable(validating: raw) else { return }
            let entries = Array(table)
            FuzzCheck.expect(entries.count == table.count, "every entry read")
            let again = EntryTable(entries)
            FuzzCheck.expect(Array(again) == entries, "the entries written again come back the same")
            let half = table.count / 2
            let parts = table.split(into: 2) { $0 < half ? 0 : 1 }
            FuzzCheck.expect(parts.map(\.count) == [half, table.count - half], "a split keeps every entry")
        }
    }
}
