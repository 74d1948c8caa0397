import Foundation
import NIOCore

/// How long a connection may sit idle or stall, and how many connections the server holds open.
///
/// A hostile or broken client can open connections and then send nothing, half a request head or
/// half a body; without these limits each such connection keeps a file descriptor (and an upload's
/// temp file) forever, and about a thousand of them stop the server. Every number is a
/// `byteclub serve` option, listed in docs/server.md under "Limits and timeouts".
public struct ConnectionLimits: Sendable, Equatable {
    /// A connection with no request in progress (before its first request, or between kept-alive
    /// ones) is closed after this long. A request being answered is never idle: a slow search, or
    /// a longpoll waiting for changes, runs as long as it needs.
    public var idleTimeout: Duration = .seconds(30)
    /// A request head (request line and headers) must be complete this long after its first
    /// byte; otherwise the answer is 408 and the connection is closed.
    public var headerTimeout: Duration = .seconds(10)
    /// A request body that makes no progress for this long is dropped with its connection; an
    /// upload's temp file goes with it. Time the server itself spends not reading (while a handler
    /// is busy) does not count against the client.
    public var bodyTimeout: Duration = .seconds(30)
    /// Open connections at most; beyond that a new one is answered 503 with `Retry-After` and
    /// closed. Lowered at start when the process's file-descriptor limit is too small for it.
    public var maxConnections = 1024
    /// Open connections from one client address at most (0: no cap). Behind a reverse proxy all
    /// clients share the proxy's address: raise this or set it to 0 there.
    public var maxConnectionsPerClient = 64
    /// The request line and headers together, in bytes; a larger head is answered 431 and the
    /// connection closed.
    public var maxHeaderBytes = 64 * 1024
    /// The `Retry-After` seconds of a 503 for too many connections.
    public var retryAfterSeconds = 2
    /// How long a connection the server closes on its own keeps reading (and discarding) what
    /// the client is still sending, so that the client gets to read the answer instead of a reset.
    public var linger: Duration = .seconds(2)

    public init() {}
}

extension Duration {
    /// Whole nanoseconds, saturating, for NIO's `TimeAmount`.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return whole.addingReportingOverflow(attoseconds / 1_000_000_000).overflow ? .max : whole + attoseconds / 1_000_000_000
    }
}

extension TimeAmount {
    /// `duration` in NIO's terms, saturating.
    init(_ duration: Duration) {
        self = .nanoseconds(duration.nanoseconds)
    }
}

/// The process's file-descriptor limit, and the connection caps that fit inside it.
enum FileDescriptorBudget {
    /// Descriptors kept for everything that is not a client connection: the listening socket,
    /// logs, the hash cache and id files, and, in the app, its own HTTP client.
    static let reserve = 64

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (as Go's runtime does) and returns the
    /// soft limit now in force.
    static func raiseSoftLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
    }

    /// How many connections to serve, and how many to accept at all, within `descriptors`.
    ///
    /// A served connection may hold two descriptors (its socket and a file it streams); a refused
    /// one holds its socket for the short linger while it is answered 503. Past `accepted` the
    /// server stops accepting, and new connections wait in the kernel's backlog: descriptors
    /// never run out, whatever a client does.
    static func caps(wanted: Int, descriptors: Int) -> (served: Int, accepted: Int) {
        let budget = max(descriptors - reserve, 32)
        // 2 × served + served / 4 ≤ budget.
        let served = max(1, min(wanted, budget * 4 / 9))
        return (served, served + max(16, served / 4))
    }
}
