import Foundation
import Logging
import Synchronization

extension RetryPolicy {
    /// How long to wait before trying again after `error` failed try number `tries` (counted from
    /// 1), or nil when the failure is final.
    ///
    /// Rate limits are always tried again (the server did nothing), as long as the wait asked for
    /// is bearable; other transient failures only when the call is `idempotent`. Either way no
    /// more than `maxAttempts` tries in all, and a refused connection `refusedAttempts`.
    func wait(after error: RemoteError, tries: Int, idempotent: Bool) -> TimeInterval? {
        guard tries < maxAttempts else { return nil }
        switch error {
        case .rateLimited(let seconds):
            return seconds <= maxRetryAfter ? seconds : nil
        case .stalled:
            // The idle timeout is the user's own limit: a second try would double it.
            return nil
        case _ where error.isUnreachable && !retriesUnreachable:
            // Refused, stalled, or a gateway saying the server behind it is gone (502/503/504).
            return nil
        case _ where error.isRefused && tries >= refusedAttempts:
            // Nothing listens there: said now, as it is, not after a long wait.
            return nil
        default:
            guard idempotent, error.isTransient else { return nil }
            // A proxy that says when to come back is not asked before then.
            let asked = error.retryAfter ?? 0
            return asked <= maxRetryAfter ? max(asked, delay(afterAttempt: tries - 1)) : nil
        }
    }

    /// Sleeps before the next try after `error` failed try number `tries`, or rethrows `error`
    /// when ``wait(after:tries:idempotent:)`` says it is final. A cancelled sleep throws
    /// `.cancelled`. Both stores' retry loops end each failed try here.
    ///
    /// A failure's wait (a rate limit's aside) is taken from ``budget``: once the waits since the
    /// stores last had an answer would pass ``maxWaiting``, the failure is final.
    /// A refusal is tried again only until one request met it for good: after that, until an
    /// answer, the server is known to be down and every request says so at once.
    func pause(after error: RemoteError, tries: Int, idempotent: Bool, logger: Logger) async throws(RemoteError) {
        if error.isRefused, budget.refusedForGood { throw error }
        guard let wait = wait(after: error, tries: tries, idempotent: idempotent) else {
            if error.isRefused { budget.refused() }
            throw error
        }
        if case .rateLimited = error {} else {
            guard budget.take(wait, within: maxWaiting) else { throw error }
        }
        logger.debug("retrying after \(error.message) in \(String(format: "%.2f", wait)) s")
        do { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) } catch { throw .cancelled }
    }
}

/// How long the tries of a command (the requests of the stores one ``RetryPolicy`` was given
/// to) have gone on since the first failure after the last answer, and whether one met a refused
/// connection for good (the others then give up at once): every request that keeps failing draws
/// on it, so a server that fails at once to each of a command's requests in turn (connecting,
/// then listing) is given up on within ``RetryPolicy/maxWaiting`` in all, not that much per
/// request. The clock counts the tries' own time as well as the waits between them: on a busy
/// machine each failed try of a 502 took a few tenths of a second, and ten of them (a `get`'s
/// two requests) took 7 s under `--timeout 2` when only the waits were counted. An answer refills it.
final class RetryBudget: Sendable, Equatable {
    /// One budget is one command's: the same object, not the same sums.
    static func == (a: RetryBudget, b: RetryBudget) -> Bool { a === b }

    private struct Spent {
        /// When the first failure since the last answer asked to wait.
        var since: ContinuousClock.Instant?
        /// When the last wait ended: the failed try after it began then.
        var resumed: ContinuousClock.Instant?
        /// A request gave up on a refused connection (nothing listens there).
        var refused = false
    }

    private let spent = Mutex(Spent())

    /// Takes a wait of `seconds` if the tries, with it, end within `limit` of the first failure
    /// since the last answer; false when not. A try that ran longer than `limit` before it
    /// failed was moving bytes (one that moves none is cut at the idle limit, and a stall is
    /// not tried again): the clock starts again from its failure, so a long upload cut once in a
    /// while is tried again as before.
    func take(_ seconds: TimeInterval, within limit: TimeInterval, now: ContinuousClock.Instant = .now) -> Bool {
        guard !limit.isInfinite else { return true }
        let bound = Duration.milliseconds(Int(limit * 1000))
        return spent.withLock { spent in
            var since = spent.since ?? now
            if let resumed = spent.resumed, now - resumed > bound { since = now }
            let after = now + .milliseconds(Int((seconds * 1000).rounded(.up)))
            guard after <= since + bound else { return false }
            spent.since = since
            spent.resumed = after
            return true
        }
    }

    /// A request gave up on a refused connection.
    func refused() { spent.withLock { $0.refused = true } }

    /// Whether a request gave up on a refused connection since the last answer.
    var refusedForGood: Bool { spent.withLock { $0.refused } }

    /// A request had an answer: the server is there.
    func answered() { spent.withLock { $0 = Spent() } }
}
