import ServiceLifecycle

// The services that keep a running server's folder in order, each a loop of calls into the
// ``FolderStore`` actor: they end with the server.

/// Sweeps expired upload sessions while the server runs; ends with the server.
struct SessionSweeper: Service {
    let store: FolderStore
    let expiry: Duration

    func run() async throws {
        let interval = SessionSweep.interval(for: expiry)
        // Cancelled (or told to shut down gracefully) in its sleep: nothing to finish.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await store.uploads.sweepSessions(olderThan: expiry)
            }
        }
    }
}

/// Rescans the tree every `interval` (or, when a rescan takes longer than a tenth of that, ten
/// times the rescan's time) while the server runs: changes made on disk behind the server's back
/// reach the journal within about that long. Each tick also takes in what another server over
/// the folder journalled (``ChangeJournal/takeInForeignRecords()``), so its changes wake this
/// server's longpolls as soon: a tag changed by a command on the embedded club writes no file
/// the rescan would see. It saves the snapshot at most every five seconds when it changed, and
/// once more at shutdown.
///
/// While a member's batch commits arrive, and their sessions start (``BatchCommits/isUploading``),
/// or a listing of more than ``ListingCache/metadataKept`` entries is paged,
/// it neither walks nor saves, up to
/// ``busyRescanLimit``: the server journals what it writes itself as it writes it, and during a
/// `put -r` into a 100,000-note folder the walks (interrupted by commits, then done inside the
/// actor, holding commits back) and the snapshot's saves were 7% of the server's time (issue 56).
/// A change made on disk meanwhile is journaled by the first rescan after the burst.
struct ChangeWatcher: Service {
    let store: FolderStore
    let interval: Duration
    /// The longest a burst of batch commits puts rescans off.
    static let busyRescanLimit: Duration = .seconds(30)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var interrupted = 0
            // The start walked the folder as a rescan does: a 100,000-file folder's first rescan,
            // a second after it, shared the cores with a first search's scan.
            var took = store.startWalking
            var lastRescan = ContinuousClock.now
            while !Task.isCancelled {
                // At most a tenth of a core rescanning: a 100,000-file folder takes a few tenths
                // of a second of CPU to walk, and walked every second it took half a core.
                try await Task.sleep(for: max(interval, took * 10))
                store.journal.takeInForeignRecords()
                // A big listing being paged walks its folder itself, and a member waits for its
                // pages: the rescan's walk beside it was a seventh of a 100,000-file `ls`'s
                // server time.
                if store.batchCommits.isUploading || store.listingActivity.isPagingBig(),
                   ContinuousClock.now - lastRescan < Self.busyRescanLimit { continue }
                if !store.batchCommits.isUploading { UploadSessionFiles.removeForgottenMarkers() }
                lastRescan = .now
                let (applied, walking) = await store.rescanConcurrently()
                took = walking
                if applied {
                    interrupted = 0
                } else {
                    // Busy with commits: after three tries, walk inside the actor once.
                    interrupted += 1
                    if interrupted >= 3 {
                        await store.rescan()
                        interrupted = 0
                    }
                }
                await store.saveTreeIfDirty(minimumAge: .seconds(5))
            }
        }
        await store.saveTreeIfDirty()
        UploadSessionFiles.removeForgottenMarkers()
    }
}

/// Runs `pruneHistory` as the server starts and then daily.
struct HistoryPruner: Service {
    let store: FolderStore
    let days: Int
    var interval: Duration = .seconds(86_400)

    func run() async throws {
        guard days > 0 else {
            // Everything is kept: nothing to prune, but a service that returns ends the whole
            // server, so this one waits for the server's end.
            try? await gracefulShutdown()
            return
        }
        // Cancelled (or told to shut down gracefully) in its sleep: nothing to finish.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await store.pruneHistory(days: days)
                try await Task.sleep(for: interval)
            }
        }
    }
}
