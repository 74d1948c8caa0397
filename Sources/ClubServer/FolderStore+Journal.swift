import DropboxWire
import Foundation

/// The change journal's feed: the actor compares the disk with its ``TreeSnapshot`` after
/// each commit and on each rescan, and appends what changed to the ``ChangeJournal``.
extension FolderStore {
    /// Records in the journal what a commit did at `paths`: call it after every commit, with
    /// each path the commit wrote or removed (both paths of a move; the target of a restore or
    /// a copy), and parents a write created. Longpolls on those folders wake. Cheap for a
    /// file; a folder's subtree is walked.
    func recordChanges(at paths: DropboxPath...) {
        var changes: [TreeSnapshot.Change] = []
        for path in paths where !path.isRoot {
            let resolved = (try? resolve(path))?.path ?? path
            // Parents an upload or a move created on the way.
            for ancestor in TreeWalker.newAncestors(of: resolved, known: tree.entries, root: root, metaDirectory: metaDirectory) {
                tree.entries[ancestor.lower] = ancestor.entry
                changes.append((.written, ancestor.display))
            }
            let scan = TreeWalker.scan(resolved, root: root, metaDirectory: metaDirectory)
            changes += tree.record(at: resolved.lower, fresh: scan.entries(keepingUnreadFrom: tree.entries))
        }
        tree.generation += 1
        guard !changes.isEmpty else { return }
        tree.dirty = true
        // A group of commits journals its records once, after its flush (``PendingSync``).
        if pendingSync != nil {
            pendingSync?.journal(changes)
        } else {
            journal.append(changes)
        }
    }

    /// The periodic rescan, with the walk (a `stat` per entry) done outside the actor so that
    /// commits and listings do not wait for it; `applied` false if a commit came in meanwhile
    /// (the walk may have seen half of it) and nothing was applied. The walk is compared with the
    /// snapshot as it goes; one that finds something gone is followed by a whole walk, which
    /// tells what. `walking` is the CPU time the walks took on their thread: the work the change
    /// watcher paces itself by. Wall time is not: on a loaded machine it counted the waits for a
    /// core too, and the next rescan came ten times that later (changes made on disk went
    /// unnoticed for over 5 s in a loaded CI run).
    nonisolated func rescanConcurrently() async -> (applied: Bool, walking: Duration) {
        let (generation, entries) = await snapshotState()
        var began = ThreadCPUTime.now()
        var compared = TreeWalker.scan(root: root, metaDirectory: metaDirectory, against: consume entries)
        var walking = ThreadCPUTime.now() - began
        switch await takeInRescan(&compared, generation: generation) {
        case .some(let applied):
            return (applied, walking)
        case .none:
            began = ThreadCPUTime.now()
            let whole = TreeWalker.scan(root: root, metaDirectory: metaDirectory)
            walking += ThreadCPUTime.now() - began
            return (await applyRescan(whole, generation: generation), walking)
        }
    }

    private func snapshotState() -> (Int, [String: TreeSnapshot.Entry]) { (tree.generation, tree.entries) }

    /// Every entry a listing shows, by `path_lower` (a copy that shares the snapshot's storage
    /// until either changes): what a search reads before the content index covers the folder.
    func treeEntries() -> [String: TreeSnapshot.Entry] { tree.entries }

    /// False: a commit came in during the walk; nil: the walk missed something, walk it whole.
    private func takeInRescan(_ compared: inout TreeScan, generation: Int) -> Bool? {
        guard tree.generation == generation else { return false }
        guard let changes = tree.takeIn(&compared) else { return nil }
        record(rescanned: changes)
        return true
    }

    private func applyRescan(_ current: TreeScan, generation: Int) -> Bool {
        guard tree.generation == generation else { return false }
        applyRescan(current)
        return true
    }

    /// Compares the whole tree with the snapshot and records the differences, all inside the
    /// actor, so it never interleaves with a commit (used when commits keep interrupting
    /// `rescanConcurrently`).
    func rescan() {
        var compared = TreeWalker.scan(root: root, metaDirectory: metaDirectory, against: tree.entries)
        if let changes = tree.takeIn(&compared) { return record(rescanned: changes) }
        applyRescan(TreeWalker.scan(root: root, metaDirectory: metaDirectory))
    }

    private func applyRescan(_ scan: TreeScan) {
        record(rescanned: tree.replace(with: scan.entries(keepingUnreadFrom: tree.entries)))
    }

    private func record(rescanned changes: [TreeSnapshot.Change]) {
        guard !changes.isEmpty else { return }
        logger.debug("rescan: \(changes.count) change(s) made on disk")
        journal.append(changes)
    }

    /// Saves the snapshot if it changed and `minimumAge` has passed since the last save.
    func saveTreeIfDirty(minimumAge: Duration = .zero) {
        guard tree.dirty, ContinuousClock.now - tree.savedAt >= minimumAge else { return }
        TreeFile.save(&tree, metaDirectory: metaDirectory)
    }
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): what a stretch of
/// synchronous work cost, whatever the machine's load made it wait.
enum ThreadCPUTime {
    static func now() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
}
