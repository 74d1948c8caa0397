import Foundation
import Synchronization

/// Whether `finish_batch_v2` commits are running now or ended less than ``quiet`` ago: a
/// longpoll that wakes on a change then asks its client for a ``backoff`` (Dropbox's own
/// field of `list_folder/longpoll`'s answer), so a client watching the folder takes a burst of
/// commits a page a second. One change at a time (a note saved) is answered as before.
final class BatchCommits: Sendable {
    static let backoff = 1
    static let quiet: Duration = .seconds(1)

    private struct State {
        var running = 0
        var lastEnded: ContinuousClock.Instant?
        var lastSessionStart: ContinuousClock.Instant?
    }

    /// How long after an upload session's start the change watcher still holds its rescans
    /// (``isUploading``): a `put -r` starts the next batch's sessions between its batches.
    static let uploadQuiet: Duration = .seconds(3)

    /// An upload session started (a `put -r`'s files arrive as sessions, then a batch commits them).
    func sessionStarted() { state.withLock { $0.lastSessionStart = .now } }

    /// Batch commits run or ended, or sessions started, lately: a `put -r` is under way.
    var isUploading: Bool {
        if isBusy { return true }
        return state.withLock { state in state.lastSessionStart.map { ContinuousClock.now - $0 < Self.uploadQuiet } ?? false }
    }

    private let state = Mutex(State())

    func began() { state.withLock { $0.running += 1 } }

    func ended() {
        state.withLock {
            $0.running = max(0, $0.running - 1)
            $0.lastEnded = .now
        }
    }

    var isBusy: Bool {
        state.withLock { state in
            if state.running > 0 { return true }
            guard let lastEnded = state.lastEnded else { return false }
            return ContinuousClock.now - lastEnded < Self.quiet
        }
    }
}
