import ByteClubApp
import Dispatch
import Remote
import Synchronization

/// The UI queue of a member's app in the simulation (issue 70): the app's ``UIEffects`` with
/// time a number the history moves and work off the queue run one piece at a time, when the
/// history says, in the order it was asked for. So an app's debounces, retries, backoffs and
/// clock ticks fall due on simulated time, and a seed gives the same interleaving every run.
///
/// - `perform`: its work waits in ``ready``; ``settle()`` runs each piece whole (the work, then
///   its delivery on the main actor) before the next starts.
/// - `after` and `repeating`: timers on ``clock``, run by ``advance(by:)`` in the order they fall
///   due (ties in the order they were set).
/// - `hop`: work the app's own queues (a draft's write, a note's own document started) hand back
///   arrives from their threads; ``settle()`` waits for those queues (``ClubApp/waitForBackgroundWork()``)
///   and runs what they handed back in the order each queue handed it.
/// - A kill (``isKilled``, asked after each piece of work): what the work heard is never
///   delivered, and nothing of this app runs again, as a process killed -9 runs nothing more.
@MainActor
final class SimulatedEffects: UIEffects {
    /// Seconds since this app started, on the history's clock.
    private(set) var clock: Double = 0
    /// Work asked for and not yet run, oldest first.
    private var ready: [(run: @MainActor () async -> Void, done: Completion?)] = []
    private var timers: [Timer] = []
    private var order = 0
    /// Whether the member's process died: asked after every piece of work.
    let isKilled: @Sendable () -> Bool
    /// Set once the process died: nothing more runs.
    private(set) var dead = false
    /// Work handed back by the app's own queues, from their threads, in the order it came.
    private let handedBack = HandedBack()

    final class Handle: UIRepeating {
        var isCancelled = false
        func cancel() { isCancelled = true }
    }

    struct Timer {
        let due: Double
        let order: Int
        let interval: Double?
        let body: @MainActor () -> Void
        let handle: Handle
    }

    init(isKilled: @escaping @Sendable () -> Bool) {
        self.isKilled = isKilled
    }

    func perform<T: Sendable>(_ work: @escaping @Sendable () async throws(RemoteError) -> T,
                              then deliver: @escaping @MainActor (Result<T, RemoteError>) -> Void) -> Task<Void, Never> {
        let done = Completion()
        ready.append(({ [weak self] in
            defer { done.finish() }
            let result: Result<T, RemoteError>
            do throws(RemoteError) {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            guard let self, !self.dead else { return }
            if self.isKilled() {
                self.dead = true
                return
            }
            deliver(result)
        }, done))
        // The caller's handle: it ends when the work has been delivered (or dropped by a kill).
        return Task { await done.wait() }
    }

    func after(_ delay: Duration, _ body: @escaping @MainActor () -> Void) {
        schedule(after: Self.seconds(delay), interval: nil, body, Handle())
    }

    func repeating(every interval: Duration, _ body: @escaping @MainActor () -> Void) -> any UIRepeating {
        let handle = Handle()
        schedule(after: Self.seconds(interval), interval: Self.seconds(interval), body, handle)
        return handle
    }

    private func schedule(after delay: Double, interval: Double?, _ body: @escaping @MainActor () -> Void, _ handle: Handle) {
        order += 1
        timers.append(Timer(due: clock + delay, order: order, interval: interval, body: body, handle: handle))
    }

    func relay(_ body: @escaping @MainActor @Sendable (Int64, Int64) -> Void) -> ProgressHandler {
        // Progress from a transfer's thread: handed back as the app's queues hand work back.
        let handedBack = self.handedBack
        return { done, expected in handedBack.add(.zero, { body(done, expected) }) }
    }

    func now() -> Double { clock }

    nonisolated var hop: UIHop {
        let handedBack = self.handedBack
        return UIHop { delay, body in handedBack.add(delay, body) }
    }

    /// Runs everything that can run now: the work asked for, one piece at a time, and what the
    /// app's own queues hand back, until nothing is left (timers wait for ``advance(by:)``).
    func settle() async {
        var rounds = 0
        while !dead {
            if !ready.isEmpty {
                let next = ready.removeFirst()
                await next.run()
                continue
            }
            // The app's own queues finish what they were given; what they hand back runs next.
            await Task.detached { ClubApp.waitForBackgroundWork() }.value
            let back = handedBack.take()
            if back.isEmpty { return }
            for (delay, body) in back {
                if delay <= .zero { ready.append(({ body() }, nil)) } else { schedule(after: Self.seconds(delay), interval: nil, body, Handle()) }
            }
            rounds += 1
            precondition(rounds < 100_000, "an app in the simulation never settles")
        }
    }

    /// Moves the clock on by `seconds`, running each timer that falls due on the way (and
    /// settling after each), in the order they fall due.
    func advance(by seconds: Double) async {
        let end = clock + seconds
        await settle()
        while !dead {
            timers.removeAll { $0.handle.isCancelled }
            guard let index = timers.indices.filter({ timers[$0].due <= end })
                .min(by: { (timers[$0].due, timers[$0].order) < (timers[$1].due, timers[$1].order) }) else { break }
            let timer = timers.remove(at: index)
            clock = max(clock, timer.due)
            if let interval = timer.interval {
                order += 1
                timers.append(Timer(due: timer.due + interval, order: order, interval: interval, body: timer.body, handle: timer.handle))
            }
            timer.body()
            await settle()
        }
        if !dead { clock = end }
    }

    /// The process is killed: nothing of it runs again.
    func kill() {
        dead = true
        // Work never run ends for whoever holds its handle.
        for job in ready { job.done?.finish() }
        ready.removeAll()
        timers.removeAll()
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The end of one piece of work, for the handle ``SimulatedEffects/perform(_:then:)`` returns.
final class Completion: Sendable {
    private let state = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func finish() {
        let waiters = state.withLock { state in
            state.done = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// Work the app's own queues hand back to its UI queue, from their threads, in the order it came.
final class HandedBack: Sendable {
    private let items = Mutex<[(delay: Duration, body: @MainActor @Sendable () -> Void)]>([])

    func add(_ delay: Duration, _ body: @escaping @MainActor @Sendable () -> Void) {
        items.withLock { $0.append((delay, body)) }
    }

    func take() -> [(delay: Duration, body: @MainActor @Sendable () -> Void)] {
        items.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }
}
