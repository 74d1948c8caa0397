#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A plain TCP relay on a random loopback port in front of a server, that cuts one connection
/// once that many bytes went through it one way (from the client: a request body; from the
/// server: an answer) (both sides shut down at once, as a
/// dropped network does mid-request), and counts how many connections were open together.
///
/// It knows nothing of HTTP: with keep-alive, a connection's count runs across its requests, so
/// the cut lands wherever that byte falls, typically inside a request body. Blocking sockets,
/// two threads per connection: a test fixture, never the product.
public final class CuttingRelay: Sendable {
    public let port: Int
    public let upstreamPort: Int
    private let listener: RelayListener
    private let state = Mutex(State())

    /// Which way the bytes counted for a cut go.
    public enum Direction: Sendable {
        case fromClient
        case fromServer
    }

    private struct State {
        var cutAfter: Int?
        var cutDirection = Direction.fromClient
        var cuts = 0
        var connections = 0
        var peak = 0
        var fromClient = 0
    }

    public init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        guard let listener = RelayListener() else { throw FixtureError("the relay could not listen") }
        self.listener = listener
        port = listener.port
        listener.start { [self] client in relay(client) }
    }

    deinit { stop() }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The next connection to carry `bytes` one way is cut there; once.
    public func cutOneConnection(after bytes: Int, _ direction: Direction) {
        state.withLock {
            $0.cutAfter = bytes
            $0.cutDirection = direction
        }
    }

    public var cuts: Int { state.withLock { $0.cuts } }
    /// The most connections open at the same time so far.
    public var peakConnections: Int { state.withLock { $0.peak } }
    /// Bytes passed on to the server so far, over every connection (requests: headers and bodies).
    public var bytesFromClient: Int { state.withLock { $0.fromClient } }

    public func stop() { listener.stop() }

    /// One accepted connection: a socket to the server, and a pump each way.
    private func relay(_ client: Int32) {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0, LoopbackSocket.connect(upstream, toPort: upstreamPort), listener.track(upstream) else {
            listener.forget(client)
            close(client)
            if upstream >= 0 { close(upstream) }
            return
        }
        state.withLock { state in
            state.connections += 1
            state.peak = max(state.peak, state.connections)
        }
        let ends = Ends()
        // Answers flow back on their own thread; the request side counts and may cut.
        Thread.detachNewThread { [self] in pump(from: upstream, to: client, direction: .fromServer, ends: ends) }
        Thread.detachNewThread { [self] in pump(from: client, to: upstream, direction: .fromClient, ends: ends) }
    }

    /// Copies bytes one way until either side ends, cutting both ways when this direction's
    /// count reaches the cut.
    /// How many of a connection's two pumps have ended: the second closes the sockets, so
    /// neither pump can touch a descriptor number already reused by a newer connection.
    private final class Ends: Sendable {
        let count = Atomic<Int>(0)
    }

    private func pump(from source: Int32, to sink: Int32, direction: Direction, ends: Ends) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        loop: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var length = count
            var cutNow = false
            do {
                let limit = state.withLock { $0.cutDirection == direction ? $0.cutAfter : nil }
                if let limit, total + count >= limit {
                    cutNow = state.withLock { state in
                        guard state.cutAfter != nil, state.cutDirection == direction else { return false }
                        state.cutAfter = nil
                        state.cuts += 1
                        return true
                    }
                    if cutNow { length = max(0, limit - total) }
                }
                total += length
            }
            var sent = 0
            while sent < length {
                let written = buffer.withUnsafeBytes { send(sink, $0.baseAddress! + sent, length - sent, Int32(MSG_NOSIGNAL)) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { break loop }
                sent += written
                if direction == .fromClient { state.withLock { $0.fromClient += written } }
            }
            if cutNow { break }
        }
        // Either direction ending ends the connection: both sockets shut down, so the other
        // pump wakes from its read.
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(sink, Int32(SHUT_RDWR))
        guard ends.count.add(1, ordering: .acquiringAndReleasing).newValue == 2 else { return }
        listener.forget(source, sink)
        state.withLock { $0.connections -= 1 }
        close(source)
        close(sink)
    }
}
