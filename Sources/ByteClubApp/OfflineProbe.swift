/// When the offline app asks the server again whether it is back: a policy as a value, used by
/// ``OutboxRunner`` and measured by `app-bench outbox`.
///
/// The first probe waits 1 s, each later one a tenth of the time offline so far, and never more
/// than 4 s: the outbox is sending within about 4 s of the server's return, whenever that is
/// (issue 23 asks ≤ 5 s after any outage up to an hour). Waiting longer would save little, as
/// each probe is cheap for a server that is down or behind a proxy: one `get_metadata` of the
/// club folder (a `stat` to a club server, a PROPFIND of depth 0 to WebDAV), a few hundred bytes
/// each way, on a connection curl keeps open to a proxy, or refused by the kernel of a host whose
/// server is down, before anything is sent. An hour offline costs 914 of them (docs/benchmarks.md).
public enum OfflineProbe {
    public static let first: Double = 1
    public static let longest: Double = 4
    public static let share: Double = 0.1

    /// The longest `Retry-After` a probe waits for: a proxy asking for an hour (or a year) must
    /// not keep the app offline long after the server is back.
    public static let longestRetryAfter: Double = 300

    /// How long the next probe waits after `offline` seconds without the server.
    public static func wait(offlineFor offline: Double) -> Double {
        min(longest, max(first, offline * share))
    }

    /// The same, when the last answer came from a proxy that asked us to wait `retryAfter`
    /// seconds (its `Retry-After`): never sooner than it asked, up to ``longestRetryAfter``.
    public static func wait(offlineFor offline: Double, retryAfter: Double?) -> Double {
        max(wait(offlineFor: offline), min(longestRetryAfter, max(0, retryAfter ?? 0)))
    }

    /// How many probes an outage of `seconds` costs (each wait counted from the last probe's
    /// answer, which a dead server or a proxy gives at once).
    public static func count(during seconds: Double) -> Int {
        var elapsed = 0.0, count = 0
        while true {
            elapsed += wait(offlineFor: elapsed)
            if elapsed > seconds { return count }
            count += 1
        }
    }

    /// The longest time from a server's return to the probe that notices it, after an outage of
    /// `seconds` (the wait then in force).
    public static func noticeDelay(after seconds: Double) -> Double { wait(offlineFor: seconds) }
}
