/// The idle timeout (`timeoutIntervalForRequest`): a transfer that moves no byte, up or down,
/// for longer than the limit has stalled.
///
/// curl's low-speed check averages the speed over several seconds, so on its own a 1 s
/// timeout fired after about 6 s. curl calls the progress callback at least once a second,
/// and that callback asks `check`, so the timeout fires within a second of the limit. Time
/// spent held back by our own receive limit, or suspended by the caller, is not idle time.
/// Time comes in as uptime nanoseconds, so tests run it on a fake clock.
struct IdleWatchdog: Sendable, Equatable {
    enum Decision: Sendable, Equatable {
        case fine
        /// Stalled for longer than the limit: abort with `.timedOut(.idle, seconds: limit)`.
        case expired
    }

    /// Seconds; zero or less never expires.
    let limit: Double
    /// Bytes moved (down and up) when it last looked; -1 before the first look.
    private(set) var lastMoved: Int64 = -1
    /// When the transfer last moved a byte, or last had an excuse for not moving one.
    private(set) var lastActivity: UInt64

    init(limit: Double, now: UInt64) {
        self.limit = limit
        lastActivity = now
    }

    /// - Parameters:
    ///   - moved: bytes received plus bytes sent, as curl counts them.
    ///   - throttled: our receive limit holds the transfer paused.
    ///   - isRunning: asked only once the limit has passed (it takes a lock), so a task
    ///     that is suspended or being cancelled, which waits for its caller, is not idle.
    mutating func check(moved: Int64, throttled: Bool, now: UInt64, isRunning: @autoclosure () -> Bool) -> Decision {
        if moved != lastMoved || throttled {
            lastMoved = moved
            lastActivity = now
            return .fine
        }
        let idle = now >= lastActivity ? now - lastActivity : 0
        guard limit > 0, Double(idle) / 1e9 > limit else { return .fine }
        guard isRunning() else {
            lastActivity = now
            return .fine
        }
        return .expired
    }
}
