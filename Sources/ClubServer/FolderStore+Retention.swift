import Foundation

/// History retention (`serve --history-days N`), carried out: what goes is
/// ``HistoryRetention``'s decision; this extension reads the logs and removes it, at start and
/// then daily (``HistoryPruner``). What was pruned is remembered (``HistoryFiles/rememberPruned(_:)``),
/// so `restore`, `list_revisions` and `rev:` downloads say a revision or a deleted file is past
/// retention rather than unknown.
extension FolderStore {
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
        let keys = self.histories.keys()
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
        let (expired, changed) = revisions.expireTombstones(cutoff: cutoff)
        let keys = expired.compactMap(RevisionLog.historyKey)
        let prunedLines = keys.flatMap { key in
            defer { revisions.forget(key) }
            return histories.removeHistory(key).map { "\($0.rev) \(key)" }
        }
        if changed { saveTombstones() }
        return (prunedLines, keys.count)
    }

    private func rememberPruned(_ lines: [String]) { histories.rememberPruned(lines) }

    /// Prunes the revisions of `keys` replaced before `cutoff`; the pruned revs' lines.
    private func pruneRevisions(of keys: ArraySlice<String>, cutoff: Int64) -> [String] {
        var prunedLines: [String] = []
        for key in keys {
            prunedLines += histories.prune(key, cutoff: cutoff).map { "\($0.rev) \(key)" }
        }
        return prunedLines
    }
}
