/// When a task's progress goes to its delegate: at most once per interval, the latest value
/// never left behind, and the final value always.
///
/// A value with no side effects and no clock of its own: every method takes the time (uptime
/// in nanoseconds) and returns what its owner must do. Counting from `now` at creation, the
/// first report comes one interval in, so a transfer that ends sooner reports only its final
/// value. Curl calls back for every 16 KiB, so this is on the hot path: it does arithmetic only.
struct ProgressCoalescer: Sendable, Equatable {
    enum Decision: Sendable, Equatable {
        /// Report what changed, now.
        case deliver
        /// Too soon after the last report: call `timerFired(now:)` at this uptime, so the
        /// latest value still goes out when the burst stops.
        case schedule(at: UInt64)
        /// Too soon, and a timer is already on its way; or the final report has gone.
        case wait
    }

    /// Nanoseconds between two reports.
    let interval: UInt64
    private(set) var lastDelivery: UInt64
    private(set) var timerPending = false
    private(set) var isFinished = false

    init(interval seconds: Double, now: UInt64) {
        interval = UInt64(max(0, seconds) * 1e9)
        lastDelivery = now
    }

    /// The counters changed.
    mutating func progressed(now: UInt64) -> Decision {
        guard !isFinished else { return .wait }
        let due = lastDelivery &+ interval
        if now >= due {
            lastDelivery = now
            return .deliver
        }
        if timerPending { return .wait }
        timerPending = true
        return .schedule(at: due)
    }

    /// The timer asked for by `.schedule` went off. It decides afresh: a busy queue may
    /// already have delivered on time meanwhile.
    mutating func timerFired(now: UInt64) -> Decision {
        timerPending = false
        return progressed(now: now)
    }

    /// The task is ending: its last value goes out whatever the interval says, and nothing after it.
    mutating func finish(now: UInt64) -> Decision {
        guard !isFinished else { return .wait }
        isFinished = true
        lastDelivery = now
        return .deliver
    }
}
