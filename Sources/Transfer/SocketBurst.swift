/// Whether one writable-socket event may run curl again at once, instead of going back to
/// Dispatch for the next event.
///
/// curl 7.88 sends at most one upload buffer per `curl_multi_socket_action`. Through Dispatch
/// every further buffer then costs a hand-off between threads: Dispatch's event-loop thread
/// sees the socket writable again and wakes a worker to drain the session queue, while the
/// socket sits idle. On a loaded machine that hop was where uploads spent their time (an upload
/// of 512 MiB made 586 futex waits of about 1.1 ms for 257 buffers of 2 MiB), whereas the curl
/// CLI loops `poll` and `send` on one thread and never waits on another. So after a round that
/// moved bytes, while curl still wants to write, the driver polls the socket itself and calls
/// curl again as soon as it is ready. When the socket is the session's only one, the poll may
/// wait for the rest of the budget, as curl's own loop does; with others, it only looks.
///
/// The burst ends after `budget` nanoseconds or `maxRounds` rounds, whichever comes first, so
/// work queued on the session queue (a suspend, a progress timer, another task's start) waits
/// no longer than about that; one poll waits at most `maxWait`. A cancel does not wait for
/// the budget: curl's read callback pauses the transfer at once, and a round that moves nothing
/// ends the burst. On a loaded machine one round of curl can itself take longer than `maxWait`
/// (a 2 MiB `read` and `send` starved of CPU), so the budget is not spent by one slow round.
/// A value with no clock of its own: the time comes in as uptime nanoseconds, so tests run it
/// on a fake clock.
struct SocketBurst: Sendable, Equatable {
    enum Decision: Sendable, Equatable {
        /// Poll the socket for up to this many nanoseconds (0: only look) and run curl again
        /// if it is ready; back to Dispatch if it is not.
        case poll(timeout: UInt64)
        /// Return to Dispatch; the next event continues.
        case yield
    }

    /// Nanoseconds one event may keep the session queue.
    let budget: UInt64
    /// Nanoseconds one poll may wait for the socket.
    let maxWait: UInt64
    /// Rounds of curl one event may run, the first included.
    let maxRounds: Int
    /// Rounds run so far in this event.
    private(set) var rounds = 0
    private let start: UInt64

    /// 20 ms is some 40 MiB on a quiet loopback, about 650 buffers of 64 KiB: the rounds are
    /// bounded by the time, not the count (64 rounds made a hand-off every 4 MiB, 1.07× curl's
    /// upload time). 5 ms of waiting is long for a socket that a fast reader drains, and short
    /// for anything queued behind it.
    init(now: UInt64, budget: UInt64 = 20_000_000, maxWait: UInt64 = 5_000_000, maxRounds: Int = 1024) {
        self.budget = budget
        self.maxWait = maxWait
        self.maxRounds = max(1, maxRounds)
        start = now
    }

    /// A round of curl ended.
    /// - Parameters:
    ///   - moved: the round sent or received bytes (curl's progress counters changed).
    ///   - wantsWrite: curl still asks to be told when the socket is writable.
    ///   - mayWait: the socket is the only one the session watches, so waiting on it holds up
    ///     no other transfer.
    mutating func roundEnded(moved: Bool, wantsWrite: Bool, mayWait: Bool, now: UInt64) -> Decision {
        rounds += 1
        guard moved, wantsWrite, rounds < maxRounds else { return .yield }
        let spent = now >= start ? now - start : 0
        guard spent < budget else { return .yield }
        return .poll(timeout: mayWait ? min(maxWait, budget - spent) : 0)
    }
}
