import Foundation

/// How long to wait before trying again after failures in a row: doubling from `first`, never
/// more than `longest`, back to nothing after a success.
///
/// The one formula for every loop that keeps trying (the live feeds, `byteclub watch`, the
/// search index's sync, the outbox): a value, so callers and tests step it without a clock.
/// Request-level retries (``RetryPolicy``) add jitter on top; loops that wait one at a time
/// per tab or folder do not need it.
public struct Backoff: Sendable, Equatable {
    /// The wait after the first failure.
    public var first: TimeInterval
    /// The longest wait, however many failures.
    public var longest: TimeInterval
    /// Failures since the last success.
    public private(set) var failures = 0

    public init(first: TimeInterval = 0.5, longest: TimeInterval = 30) {
        self.first = first
        self.longest = longest
    }

    /// Counts a failure and returns how long to wait before the next try.
    public mutating func failed() -> TimeInterval {
        failures += 1
        return wait
    }

    /// The wait the failures so far call for (0 before any): `first × 2^(failures-1)`, capped.
    public var wait: TimeInterval {
        guard failures > 0 else { return 0 }
        // Capped before the power, so a long outage cannot overflow to infinity.
        return min(longest, first * pow(2, Double(min(failures - 1, 62))))
    }

    /// A success: the next failure waits `first` again.
    public mutating func succeeded() { failures = 0 }
}
