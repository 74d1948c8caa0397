import Foundation

/// What history retention (`serve --history-days N`) decides, as values with the time passed in:
/// which revisions of a history go, what becomes of a deleted file's tombstone, and what the
/// `revisions/pruned` memory keeps. The ``FolderStore`` actor reads the logs and carries the
/// decisions out (FolderStore+Retention); the rules live here, with tests that need no disk.
enum HistoryRetention {
    /// Pruned revisions remembered at most, so their file stays small.
    static let prunedMemory = 100_000
    /// How long an expired tombstone is kept to say so, past the retention itself.
    static let expiredTombstoneMemory: Int64 = 365 * 86_400

    /// The cutoff `days` days before `now`, in seconds since 1970; nil when `days` keeps all.
    static func cutoff(days: Int, now: Date) -> Int64? {
        guard days > 0 else { return nil }
        return Int64(now.timeIntervalSince1970) - Int64(days) * 86_400
    }

    /// A history's records split into those kept and those pruned: record i was replaced when
    /// record i + 1 was made, so it goes once that is before `cutoff`; the newest always stays.
    static func split(_ records: [RevisionRecord], cutoff: Int64) -> (kept: [RevisionRecord], dropped: [RevisionRecord]) {
        var kept: [RevisionRecord] = []
        var dropped: [RevisionRecord] = []
        for (index, record) in records.enumerated() {
            if index + 1 < records.count, records[index + 1].server < cutoff { dropped.append(record) } else { kept.append(record) }
        }
        return (kept, dropped)
    }

    /// What becomes of a tombstone at `cutoff`.
    enum TombstoneFate: Equatable {
        /// Deleted within the retention: its history stays.
        case keep
        /// Deleted before the cutoff: its history goes, and the tombstone stays, marked
        /// expired, to say so.
        case expire
        /// Expired a year and more before the cutoff: forgotten.
        case forget
    }

    static func fate(of tombstone: Tombstone, cutoff: Int64) -> TombstoneFate {
        if tombstone.expired == true {
            return tombstone.deleted < cutoff - expiredTombstoneMemory ? .forget : .keep
        }
        return tombstone.deleted < cutoff ? .expire : .keep
    }

    /// When each record but the first was made (so when the one before it was replaced), read
    /// straight from the log's lines: `"server":N` cannot occur inside a JSON string (its
    /// quotes would be escaped there), so the first one in a line is the field.
    static func replacedTimes(_ log: String) -> [Int64] {
        log.split(separator: "\n").dropFirst().compactMap { line in
            guard let field = line.range(of: "\"server\":") else { return nil }
            return Int64(line[field.upperBound...].drop { $0 == " " }.prefix { $0.isNumber || $0 == "-" })
        }
    }

    /// The `revisions/pruned` lines (`<rev> <history>`) after `added`: the newest
    /// ``prunedMemory`` of them.
    static func remembered(_ old: String, adding added: [String]) -> [String] {
        var all = old.split(separator: "\n").map(String.init) + added
        if all.count > prunedMemory { all.removeFirst(all.count - prunedMemory) }
        return all
    }

    /// The history a pruned `rev` belonged to, from the `revisions/pruned` text: the newest line
    /// that names it.
    static func prunedHistory(ofRev rev: String, in text: String) -> String? {
        for line in text.split(separator: "\n").reversed() {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == rev { return String(parts[1]) }
        }
        return nil
    }
}
