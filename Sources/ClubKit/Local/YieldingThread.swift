import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A queue of work on threads of its own that give way to the UI: they run at a lower scheduling
/// priority (nice ``niceness``), so while the user types, the UI queue's threads get the CPU
/// first and the work takes what is left; on an idle machine it runs at full speed. With one
/// thread (the default) the queue is serial; with more, jobs start in order and run side by side.
///
/// For the CPU-heavy work a big note makes behind the typing: its draft's text and JSON, its
/// Markdown parse. As a `TaskExecutor`, for async work the user does not wait on (the search
/// index's sync, a whole list's tags): `withTaskExecutorPreference` runs its tasks, and a task
/// group's children, here. On two cores, with both running beside the UI at the same priority, a key in a
/// 1 MiB note waited for the scheduler: key echo p99 6.6–9.7 ms against 2.1–3.4 ms without them
/// (`app-bench markdown`). A dispatch queue's threads are shared, and a thread once made nicer
/// cannot be made less nice again without privilege (RLIMIT_NICE is 0 here), so the work has
/// threads of its own, each made once for the process.
public final class YieldingThread: TaskExecutor, @unchecked Sendable {
    // Safe to share: `jobs` is read and written only while `condition` is locked; a thread
    // runs each job after taking it out under the lock.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []

    /// How much nicer than the process the thread runs (CFS gives a nice-10 thread about a
    /// tenth of the CPU a nice-0 one gets when both want it).
    public static let niceness: Int32 = 10

    public init(name: String, threads: Int = 1) {
        for number in 0..<max(1, threads) {
            let thread = Thread { [self] in run() }
            thread.name = threads > 1 ? "\(name)-\(number)" : name
            thread.start()
        }
    }

    /// A task's job, run on one of the threads after the jobs before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    /// Runs `job` on a thread once the jobs before it have started (with one thread: ended).
    public func async(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on a thread and waits for its result. Never call it from a job.
    public func sync<T>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        async {
            box.value = body()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    private func run() {
        // On Linux a thread is a task of its own: `who` 0 with PRIO_PROCESS is this thread alone.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

/// A result handed from a ``YieldingThread`` job to the thread waiting in ``YieldingThread/sync(_:)``.
// Safe to share: written once by the job before it signals, read once by the waiter after it
// wakes; the semaphore orders the two.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
