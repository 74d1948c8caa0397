import Foundation
import Logging

extension RetryPolicy {
    /// How long to wait before trying again after `error` failed try number `tries` (counted from
    /// 1), or nil when the failure is final.
    ///
    /// Rate limits are always tried again (the server did nothing), as long as the wait asked for
    /// is bearable; other transient failures only when the call is `idempotent`. Either way no
    /// more than `maxAttempts` tries in all.
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
    func pause(after error: RemoteError, tries: Int, idempotent: Bool, logger: Logger) async throws(RemoteError) {
        guard let wait = wait(after: error, tries: tries, idempotent: idempotent) else { throw error }
        logger.debug("retrying after \(error.message) in \(String(format: "%.2f", wait)) s")
        do { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) } catch { throw .cancelled }
    }
}
