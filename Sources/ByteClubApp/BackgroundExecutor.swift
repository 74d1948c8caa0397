import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Work the user does not wait on, run on one thread of its own at a lower priority: the search
/// index's sync (each batch of notes parsed, then written to SQLite's full-text index).
///
/// On 2 cores a first sync of 100,000 notes kept both of the concurrency pool's threads busy
/// beside the server's, and a key typed meanwhile waited behind them for its turn (the echo's
/// p99 was 34 ms). Here the sync's tasks (its batches, a task group's children, inherit the
/// preference) run one at a time on a thread with a nice value of 10: at most one core for it,
/// and the UI's threads first within the app. A nice value cannot be raised again without
/// privileges, so the thread is the executor's own and never returns to a pool.
final class BackgroundExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is read and written only with `condition` locked; the rest is let.
    static let shared = BackgroundExecutor(name: "byteclub.background", nice: 10)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init(name: String, nice: Int32) {
        let thread = Thread { [self] in run(nice: nice) }
        thread.name = name
        thread.start()
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
        var running: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            swap(&running, &jobs)
            condition.unlock()
            for job in running { job.runSynchronously(on: asUnownedTaskExecutor()) }
            running.removeAll(keepingCapacity: true)
        }
    }
}
