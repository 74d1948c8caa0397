import Foundation

/// Work the user does not wait on, run on threads of its own at a lower priority: the search
/// index's sync (each batch of notes parsed, an encrypted club's opened, then written to SQLite's
/// full-text index) and the tags of a whole list.
///
/// On 2 cores a first sync of 100,000 notes kept both of the concurrency pool's threads busy
/// beside the server's, and a key typed meanwhile waited behind them (the echo's p99 was 34 ms).
/// Here the sync's tasks (its batches: a task group's children inherit the preference) run on
/// up to two threads that give way to the UI (``YieldingThread``, nice 10), so the UI's threads
/// come first within the app. One thread was tried: it made an encrypted club's first sync 2.27×
/// a plain one's (1.64× with two), each note's opening then waiting for a single core.
enum BackgroundExecutor {
    static let shared = YieldingThread(name: "byteclub.background",
                                       threads: min(2, max(1, ProcessInfo.processInfo.activeProcessorCount)))
}
