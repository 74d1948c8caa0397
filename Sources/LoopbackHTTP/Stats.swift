import NIOCore
import Synchronization

/// One request as the server saw it, recorded when its head arrived and updated as its body streams in.
public struct RecordedRequest: Sendable {
    /// The request method as sent, e.g. `GET`.
    public var method: String
    /// Path and query exactly as sent on the request line.
    public var uri: String
    /// Header fields in the order and spelling they were sent.
    public var headers: [(name: String, value: String)]
    /// Body bytes received so far.
    public var bodyBytes: Int64
    /// Whether the request's end was received (a cancelled upload leaves this `false`).
    public var completed: Bool

    /// Creates a record; the server makes these, the initializer is for building expectations in tests.
    public init(
        method: String,
        uri: String,
        headers: [(name: String, value: String)],
        bodyBytes: Int64 = 0,
        completed: Bool = false
    ) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.bodyBytes = bodyBytes
        self.completed = completed
    }

    /// The first value of header `name`, matched case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// A consistent snapshot of what the server has seen since it started or since the last `resetStats()`.
public struct LoopbackStats: Sendable {
    /// TCP connections accepted.
    public var connectionsAccepted: Int = 0
    /// Connections open right now; `resetStats()` leaves it alone because those sockets are still open.
    public var openConnections: Int = 0
    /// The most connections open at once.
    public var maxConcurrentConnections: Int = 0
    /// Request heads received.
    public var requestsStarted: Int = 0
    /// Requests whose end was received and whose response was handed to the socket in full.
    public var requestsCompleted: Int = 0
    /// Requests whose connection ended while their body was still arriving (client cancelled mid-upload).
    public var abortedRequests: Int = 0
    /// Request body bytes received, over all requests.
    public var bodyBytesReceived: Int64 = 0
    /// In arrival order (head received), at most the last `LoopbackStats.requestHistoryLimit`.
    public var requests: [RecordedRequest] = []

    /// How many recent requests `requests` keeps.
    public static let requestHistoryLimit = 10_000

    /// All zeros, no requests.
    public init() {}
}

/// Shared, lock-protected bookkeeping for one server.
///
/// Everything lives behind one `Mutex` so a snapshot is consistent across counters and requests.
final class StatsRecorder: Sendable {
    private struct State {
        var counters = LoopbackStats()
        /// Ring buffer of recorded requests; request `id` lives at `id % limit`.
        var ring: [RecordedRequest] = []
        /// Ids handed out so far; never reset so stale ids from before a reset can be recognised.
        var nextID = 0
        /// First id that belongs to the current stats epoch (set by `reset`).
        var epochStartID = 0
        var channels: [ObjectIdentifier: any Channel] = [:]

        func slot(of id: Int) -> Int? {
            let limit = LoopbackStats.requestHistoryLimit
            guard id >= epochStartID, id >= nextID - limit, id < nextID else { return nil }
            return id % limit
        }
    }

    private let state = Mutex(State())

    var snapshot: LoopbackStats {
        state.withLock { state in
            var stats = state.counters
            let limit = LoopbackStats.requestHistoryLimit
            let first = max(state.epochStartID, state.nextID - limit)
            var requests: [RecordedRequest] = []
            requests.reserveCapacity(state.nextID - first)
            for id in first..<state.nextID {
                requests.append(state.ring[id % limit])
            }
            stats.requests = requests
            return stats
        }
    }

    func reset() {
        state.withLock { state in
            let open = state.counters.openConnections
            state.counters = LoopbackStats()
            state.counters.openConnections = open
            state.counters.maxConcurrentConnections = open
            state.epochStartID = state.nextID
        }
    }

    func connectionOpened(_ channel: any Channel) {
        state.withLock { state in
            state.counters.connectionsAccepted += 1
            state.counters.openConnections += 1
            state.counters.maxConcurrentConnections = max(
                state.counters.maxConcurrentConnections,
                state.counters.openConnections
            )
            state.channels[ObjectIdentifier(channel)] = channel
        }
    }

    func connectionClosed(_ channel: any Channel) {
        state.withLock { state in
            state.counters.openConnections -= 1
            state.channels[ObjectIdentifier(channel)] = nil
        }
    }

    /// Channels still open, so shutdown can close idle keep-alive connections that would otherwise linger.
    var openChannels: [any Channel] {
        state.withLock { Array($0.channels.values) }
    }

    /// Records a new request and returns the id used to update it later.
    func requestStarted(_ request: RecordedRequest) -> Int {
        state.withLock { state in
            let limit = LoopbackStats.requestHistoryLimit
            let id = state.nextID
            state.nextID += 1
            if state.ring.count < limit {
                state.ring.append(request)
            } else {
                state.ring[id % limit] = request
            }
            state.counters.requestsStarted += 1
            return id
        }
    }

    func bodyReceived(id: Int, bytes: Int) {
        state.withLock { state in
            state.counters.bodyBytesReceived += Int64(bytes)
            if let slot = state.slot(of: id) {
                state.ring[slot].bodyBytes += Int64(bytes)
            }
        }
    }

    func requestEndReceived(id: Int) {
        state.withLock { state in
            if let slot = state.slot(of: id) {
                state.ring[slot].completed = true
            }
        }
    }

    func responseFinished() {
        state.withLock { $0.counters.requestsCompleted += 1 }
    }

    func requestAborted() {
        state.withLock { $0.counters.abortedRequests += 1 }
    }
}
