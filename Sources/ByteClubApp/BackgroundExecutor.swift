import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Work the user does not wait on, run on threads of its own at a lower priority: the search
/// index's sync (each batch of notes parsed, an encrypted club's opened, then written to SQLite's
/// full-text index) and the tags of a whole list.
///
/// On 2 cores a first sync of 100,000 notes kept both of the concurrency pool's threads busy
/// beside the server's, and a key typed meanwhile waited behind them (the echo's p99 was 34 ms).
/// Here the sync's tasks (its batches: a task group's children inherit the preference) run on
/// up to two threads with a nice value of 10, so the UI's threads come first within the app.
/// One thread was tried: it made an encrypted club's first sync 2.27× a plain one's (1.64× with
/// two), each note's opening then waiting for a single core. A nice value cannot be raised
/// again without privileges, so the threads are the executor's own and never return to a pool.
final class BackgroundExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is read and written only with `condition` locked; the rest is let.
    static let shared = BackgroundExecutor(name: "byteclub.background", nice: 10,
                                           threads: min(2, max(1, ProcessInfo.processInfo.activeProcessorCount)))

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init(name: String, nice: Int32, threads: Int) {
        for number in 0..<threads {
            let thread = Thread { [self] in run(nice: nice) }
            thread.name = "\(name)-\(number)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run(nice: Int32) {
        // On Linux a nice value is the calling thread's (who 0), not the whole process's.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
