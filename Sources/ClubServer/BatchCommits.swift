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
