/// Our own receive limit (`maxReceiveBytesPerSecond`), decided chunk by chunk.
///
/// curl 7.88 reads everything a socket has in one go before it checks its own limit, so on a
/// fast link its limit does nothing. Instead the write callback asks `admit` about each chunk;
/// on `.pause` it pauses the transfer (curl keeps the chunk and hands it back later) and
/// unpauses after the given time, when the average rate since the first byte is back under the
/// limit. A tenth of a second's worth may arrive as a burst. Time comes in as uptime
/// nanoseconds, so tests run it on a fake clock.
struct ReceiveThrottle: Sendable, Equatable {
    enum Decision: Sendable, Equatable {
        /// Take the chunk.
        case accept
        /// Refuse the chunk and pause; unpause after this many nanoseconds, then call `pauseEnded()`.
        case pause(nanoseconds: UInt64)
        /// Refuse the chunk; the pause under way ends by itself.
        case stayPaused
    }

    /// Seconds' worth of bytes allowed above the average.
    static let burst = 0.1

    /// Bytes per second; positive.
    let limit: Int64
    /// When the first chunk came.
    private(set) var start: UInt64?
    /// Bytes taken so far.
    private(set) var accepted: Int64 = 0
    /// A pause is under way: the idle watchdog must not count it against the transfer.
    private(set) var isPausing = false

    /// Nil when there is no limit to keep.
    init?(limit: Int64?) {
        guard let limit, limit > 0 else { return nil }
        self.limit = limit
    }

    mutating func admit(_ count: Int, now: UInt64) -> Decision {
        let first = start ?? now
        start = first
        let elapsed = Double(now >= first ? now - first : 0) / 1e9
        let allowance = Double(limit) * (elapsed + Self.burst)
        let total = accepted + Int64(count)
        // The first chunk always goes through: nothing to average yet.
        guard Double(total) > allowance, accepted > 0 else {
            accepted = total
            return .accept
        }
        guard !isPausing else { return .stayPaused }
        isPausing = true
        let wait = max(0.001, (Double(total) - allowance) / Double(limit))
        return .pause(nanoseconds: UInt64(wait * 1e9))
    }

    /// The pause from `.pause` is over; the next chunk is judged afresh.
    mutating func pauseEnded() {
        isPausing = false
    }
}
