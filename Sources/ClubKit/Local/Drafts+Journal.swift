import Foundation
import Durable
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A draft whose text is a journal's (``Draft/liveJournal``): a live note's journal
/// (``LiveJournals``), or a note's own journal while it is edited alone or on a backend with no
/// live channel (``localJournals``, ``LiveNote/local(in:seededWith:)``). Either way each key is
/// journalled once, as the editor made it, and the draft's file only says which note and rev
/// the text is of.
extension DraftStore {
    /// Where the notes edited here keep their own journals: `DRAFTS/local/`. A journal there
    /// belongs to the draft that names it, and goes with it (``dropLocalJournal(_:)``).
    public var localJournals: URL { directory.appendingPathComponent("local") }

    /// Whether `draft`, whose text is its journal's, needs no write: its file is this process's
    /// and says the same of the note. The journal is then flushed, which a write of the file did
    /// before (the keys are in it already); a journal that cannot be flushed (gone, or a failing
    /// disk) answers false, and the draft is written, with its text if it must be.
    func wroteAlready(_ draft: Draft) -> Bool {
        let file = url(draft.id)
        guard let journal = draft.liveJournal, let written = Self.ours[mine(file)], written.note == draft.onlyNote,
              written.stamp == FileStamp(file), DurableFile.flushData(atPath: journal) else { return false }
        Self.ours[mine(file)]?.body = draft.body
        Self.ours[mine(file)]?.journalLength = draft.journalLength
        return true
    }

    /// Removes the note's own journal at `path` (with its `.base`), which no draft names any more.
    /// A live note's journal (anywhere else) is the room's history here and stays.
    func dropLocalJournal(_ path: String) {
        let folder = localJournals.standardizedFileURL.path + "/"
        guard URL(fileURLWithPath: path).standardizedFileURL.path.hasPrefix(folder) else { return }
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + ".base")
    }

    /// Removes the notes' own journals no draft names that are older than `age` (a crash
    /// between a journal's start and its draft's first write; a draft taken whole by another
    /// shell). A journal younger than that may be an editor's, open now, whose draft is not yet written.
    public func dropUnnamedJournals(olderThan age: TimeInterval = 24 * 3600) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: localJournals.path) else { return }
        Self.writes.sync {
            crossProcess {
                let named = Set(((try? manager.contentsOfDirectory(atPath: directory.path)) ?? [])
                    .filter { $0.hasSuffix(".json") }
                    .compactMap { file(String($0.dropLast(5)))?.liveJournal }
                    .map { URL(fileURLWithPath: $0).lastPathComponent })
                for name in names where !name.hasSuffix(".base") && !named.contains(name) {
                    let path = localJournals.appendingPathComponent(name).path
                    guard let changed = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                          Date().timeIntervalSince(changed) > age else { continue }
                    dropLocalJournal(path)
                }
            }
        }
    }
}
