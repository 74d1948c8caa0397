import Foundation
import LoopbackHTTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on 127.0.0.1 in front of a server, counting what crosses it: bytes each way and
/// requests (request heads, told by the blank line that ends them). What the WebDAV polling
/// benchmark reads the server's cost from. Plain sockets, two threads per connection.
final class CountingProxy: Sendable {
    struct Counts: Sendable {
        var requests = 0
        var bytesUp: Int64 = 0
        var bytesDown: Int64 = 0
        var connections = 0
    }

    let port: Int
    private let listener: Int32
    private let counts = Mutex(Counts())

    init(upstreamPort: Int) throws {
        guard let (fd, port) = LoopbackSocket.listen() else { throw BenchError("cannot listen for the proxy") }
        listener = fd
        self.port = port
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard LoopbackSocket.connect(server, toPort: upstreamPort) else {
                    close(client)
                    close(server)
                    continue
                }
                counts.withLock { $0.connections += 1 }
                let pair = SocketPair(client, server)
                pump(from: client, to: server, up: true, pair: pair)
                pump(from: server, to: client, up: false, pair: pair)
            }
        }
    }

    /// Stops accepting (connections already relayed end with their peers).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    var snapshot: Counts { counts.withLock { $0 } }

    func reset() {
        counts.withLock { $0 = Counts() }
    }

    /// Copies one direction until either side closes; `up` (client to server) also counts
    /// request heads by their ending "\r\n\r\n" (the requests measured carry no such bytes in
    /// their bodies: PROPFIND's XML and a note's text).
    private func pump(from source: Int32, to target: Int32, up: Bool, pair: SocketPair) {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var tail: [UInt8] = []
            let marker: [UInt8] = [13, 10, 13, 10]
            while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                var heads = 0
                if up {
                    let window = tail + buffer[0..<count]
                    if window.count >= 4 {
                        for index in 0...(window.count - 4) where window[index] == 13 && Array(window[index..<index + 4]) == marker { heads += 1 }
                    }
                    tail = Array(window.suffix(3))
                }
                counts.withLock {
                    if up { $0.bytesUp += Int64(count); $0.requests += heads } else { $0.bytesDown += Int64(count) }
                }
                var sent = 0
                while sent < count {
                    let wrote = buffer.withUnsafeBytes { send(target, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                    if wrote <= 0 { break }
                    sent += wrote
                }
                if sent < count { break }
            }
            shutdown(target, Int32(SHUT_WR))
            shutdown(source, Int32(SHUT_RD))
            pair.oneDirectionDone()
        }
    }
}

/// A relayed connection's two sockets, closed once both directions have ended (not before:
/// the other direction's thread may still be using them).
private final class SocketPair: Sendable {
    private let sockets: (Int32, Int32)
    private let directionsLeft = Mutex(2)

    init(_ first: Int32, _ second: Int32) { sockets = (first, second) }

    func oneDirectionDone() {
        let left = directionsLeft.withLock { left -> Int in
            left -= 1
            return left
        }
        if left == 0 {
            close(sockets.0)
            close(sockets.1)
        }
    }
}
