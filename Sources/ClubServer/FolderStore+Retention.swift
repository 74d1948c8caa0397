import DropboxWire
import Durable
import Foundation
import ServiceLifecycle

/// History retention (`serve --history-days N`, 30 by default): a club that runs for years
/// must not keep every version of every photo. At start and then daily:
///
/// - a revision is pruned once it has been *replaced* for longer than N days (a version that
///   was the file's until yesterday is kept, however old it is), with its bytes unless a kept
///   revision shares them; the newest revision of a history is never pruned;
/// - a deleted file's tombstone older than N days is expired and its whole history removed.
///
/// What was pruned is remembered (`revisions/pruned`: one `<rev> <history>` line each, the
/// newest 100,000; expired tombstones for a year), so `restore`, `list_revisions` and `rev:`
/// downloads say that a revision or a deleted file is past retention rather than unknown.
///
/// What goes is ``HistoryRetention``'s decision; this extension reads the logs and carries it out.
extension FolderStore {
    var prunedFile: String { revisionsDirectory + "/pruned" }

    /// Histories looked at per turn on the actor: a retention run over a big club lets the
    /// commits and listings that arrive meanwhile in between its turns.
    static let pruneBatch = 64

    /// Prunes what is older than `days` days at `now`; 0 days keeps everything. Returns how
    /// many revisions and whole histories went.
    ///
    /// Not isolated: it takes the actor in short turns (the tombstones, then `pruneBatch`
    /// histories at a time), so a run over thousands of histories never holds up a commit for
    /// more than one turn.
    @discardableResult
    nonisolated func pruneHistory(days: Int, now: Date = Date()) async -> (revisions: Int, histories: Int) {
        guard let cutoff = HistoryRetention.cutoff(days: days, now: now) else { return (0, 0) }
        var (lines, histories) = await expireTombstones(cutoff: cutoff)
        let keys = ((try? FileManager.default.contentsOfDirectory(atPath: revisionsDirectory)) ?? []).filter { Self.historyKey("id:" + $0) == $0 }
        var start = 0
        while start < keys.count, !Task.isCancelled {
            lines += await pruneRevisions(of: keys[start..<min(start + Self.pruneBatch, keys.count)], cutoff: cutoff)
            start += Self.pruneBatch
        }
        await rememberPruned(lines)
        if !lines.isEmpty || histories > 0 {
            logger.info("history retention (\(days) days): pruned \(lines.count) revision(s), \(histories) deleted file history(ies)")
        }
        return (lines.count, histories)
    }

    /// Expires the tombstones deleted before `cutoff`, removing their histories; forgets
    /// expired ones a year later. The pruned revs' lines, and how many histories went.
    private func expireTombstones(cutoff: Int64) -> ([String], Int) {
        loadTombstones()
        var prunedLines: [String] = []
        var histories = 0
        var tombstonesChanged = false
        for (id, tombstone) in revisions.tombstones ?? [:] {
            switch HistoryRetention.fate(of: tombstone, cutoff: cutoff) {
            case .keep:
                continue
            case .forget:
                revisions.tombstones?[id] = nil
                tombstonesChanged = true
                continue
            case .expire:
                break
            }
            revisions.tombstones?[id]?.expired = true
            tombstonesChanged = true
            guard let key = Self.historyKey(id) else { continue }
            let all = records(key)
            prunedLines += all.map { "\($0.rev) \(key)" }
            removeHistory(key, records: all)
            histories += 1
        }
        if tombstonesChanged { saveTombstones() }
        return (prunedLines, histories)
    }

    /// Prunes the revisions of `keys` replaced before `cutoff`; the pruned revs' lines.
    private func pruneRevisions(of keys: ArraySlice<String>, cutoff: Int64) -> [String] {
        var prunedLines: [String] = []
        for key in keys {
            // Most histories have nothing to prune: read their times without decoding them.
            guard let text = FolderFiles.readSmallFile(revisionsDirectory + "/" + key + "/log", limit: 16 << 20),
                  HistoryRetention.replacedTimes(text).contains(where: { $0 < cutoff }) else { continue }
            let (kept, dropped) = HistoryRetention.split(records(key), cutoff: cutoff)
            guard !dropped.isEmpty else { continue }
            rewriteLog(key, keeping: kept, dropping: dropped)
            prunedLines += dropped.map { "\($0.rev) \(key)" }
        }
        return prunedLines
    }

    /// Removes a history whole: its log, its bytes and the rev links pointing at it.
    private func removeHistory(_ key: String, records all: [RevisionRecord]) {
        for record in all where historyKey(ofRev: record.rev) == key { unlink(revLinksDirectory + "/" + record.rev) }
        try? FileManager.default.removeItem(atPath: revisionsDirectory + "/" + key)
        revisions.newest[key] = nil
    }

    func rememberPruned(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        let all = HistoryRetention.remembered(FolderFiles.readSmallFile(prunedFile, limit: 64 << 20) ?? "", adding: lines)
        try? DurableFile.write(Data((all.joined(separator: "\n") + "\n").utf8), to: prunedFile, temporaryDirectory: tempDirectory)
    }

    /// The history a pruned `rev` belonged to, if it was pruned (read only on the error path).
    func prunedHistoryKey(ofRev rev: String) -> String? {
        guard Self.isWellFormedRev(rev), let text = FolderFiles.readSmallFile(prunedFile, limit: 64 << 20) else { return nil }
        return HistoryRetention.prunedHistory(ofRev: rev, in: text)
    }

    func isPruned(_ rev: String, of key: String) -> Bool {
        prunedHistoryKey(ofRev: rev) == key
    }

    /// A revision asked for that retention removed: the error the endpoint gives an unknown
    /// rev, with a sentence saying why.
    func pastRetention(rev: String, of target: HistoryTarget, as error: APIError) -> APIError {
        let days = historyDays
        let what = target.pathDisplay.isEmpty ? "this file" : target.pathDisplay
        return error.saying("revision \(rev) of \(what) is past this club's history retention: revisions replaced more than \(days) day(s) ago are pruned (serve --history-days)")
    }

    /// A deleted file whose history retention removed.
    func pastRetention(_ tombstone: Tombstone, field: ErrorTag) -> APIError {
        let days = historyDays
        let when = DropboxTimestamp.format(Date(timeIntervalSince1970: TimeInterval(tombstone.deleted)))
        return APIError.endpoint([field, .notFound])
            .saying("\(tombstone.path) was deleted at \(when), more than \(days) day(s) ago: its history is past this club's retention (serve --history-days)")
    }
}

/// Runs `pruneHistory` as the server starts and then daily.
struct HistoryPruner: Service {
    let store: FolderStore
    let days: Int
    var interval: Duration = .seconds(86_400)

    func run() async throws {
        guard days > 0 else { return }
        // Cancelled (or told to shut down gracefully) in its sleep: nothing to finish.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await store.pruneHistory(days: days)
                try await Task.sleep(for: interval)
            }
        }
    }
}
