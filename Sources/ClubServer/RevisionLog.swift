import Foundation

/// A history's log as a value: its name, its format (one JSON line per revision, oldest
/// first), how long it grows, and how it is paged. ``HistoryFiles`` reads and writes it.
enum RevisionLog {
    /// Revisions kept per note; other files keep fewer, their bytes being larger.
    static let noteRevisionLimit = 100
    static let otherRevisionLimit = 3

    /// Notes (`.txt`, `.md`) are small, so their bytes are also copied at each commit.
    static func isNote(_ name: String) -> Bool {
        let ext = (name as NSString).pathExtension.lowercased()
        return ext == "txt" || ext == "md"
    }

    static func limit(for name: String) -> Int { isNote(name) ? noteRevisionLimit : otherRevisionLimit }

    /// The history folder's name for a file id ("id:abc" → "abc"); nil for ids that are not ours.
    static func historyKey(_ id: String) -> String? {
        guard id.hasPrefix("id:") else { return nil }
        let key = id.utf8.dropFirst(3)
        // Bytes, not Characters: this runs for every file of every listing page.
        guard !key.isEmpty, key.count <= 64, !key.elementsEqual("revs".utf8), key.allSatisfy({ byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }) else { return nil }
        return String(id.dropFirst(3))
    }

    /// A rev as we hand them out: hex digits (Dropbox's are at least 9).
    static func isWellFormedRev(_ rev: String) -> Bool {
        (9...64).contains(rev.count) && rev.allSatisfy(\.isHexDigit)
    }

    // MARK: - The format

    /// Every record of a log's text, oldest first; damaged lines are skipped.
    static func records(_ text: String) -> [RevisionRecord] {
        let decoder = JSONDecoder()
        return text.split(separator: "\n").compactMap { try? decoder.decode(RevisionRecord.self, from: Data($0.utf8)) }
    }

    /// One record's line, newline included: keys sorted, so equal records are equal bytes.
    static func line(_ record: RevisionRecord) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(record)).map { $0 + Data("\n".utf8) }
    }

    /// A whole log's bytes.
    static func text(_ records: [RevisionRecord]) -> Data {
        records.reduce(into: Data()) { text, record in text += line(record) ?? Data() }
    }

    // MARK: - Growth and pages

    /// A history after `record` is appended: at most `limit` records, the oldest dropped.
    static func appending(_ record: RevisionRecord, to all: [RevisionRecord], limit: Int) -> (kept: [RevisionRecord], dropped: [RevisionRecord]) {
        let all = all + [record]
        let excess = max(0, all.count - limit)
        return (Array(all.dropFirst(excess)), Array(all.prefix(excess)))
    }

    /// What dropping `dropped` frees: the bytes (by hash) and rev links no kept record shares.
    static func orphans(dropping dropped: [RevisionRecord], keeping kept: [RevisionRecord]) -> (hashes: [String], revs: [String]) {
        let keptHashes = Set(kept.map(\.hash))
        let keptRevs = Set(kept.map(\.rev))
        return (dropped.map(\.hash).filter { !keptHashes.contains($0) }, dropped.map(\.rev).filter { !keptRevs.contains($0) })
    }

    /// One page of `list_revisions`: newest first, older than `beforeRev` if given, at most
    /// `limit`; nil when `beforeRev` is not in the history.
    static func page(_ records: [RevisionRecord], beforeRev: String?, limit: Int) -> (page: [RevisionRecord], hasMore: Bool)? {
        var newestFirst = Array(records.reversed())
        if let beforeRev {
            guard let index = newestFirst.firstIndex(where: { $0.rev == beforeRev }) else { return nil }
            newestFirst.removeFirst(index + 1)
        }
        return (Array(newestFirst.prefix(limit)), newestFirst.count > limit)
    }
}
