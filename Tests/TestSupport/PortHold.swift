import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a stopped server's port from every other process until it starts again: a socket bound
/// to it that never listens, so a client's connection is refused, as with nothing there.
///
/// Without it, the tests that stop a server and wait for the app to see it gone race the other
/// test processes of the pool: one of them binding port 0 can be handed the freed port, and its
/// server then answers the app's probe ("the server answers again" while ours is down). The
/// kernel hands port 0 only ports with no socket bound, so a bound socket keeps it ours.
public final class PortHold: Sendable {
    private let fd: Int32

    /// Binds `port` on 127.0.0.1. SO_REUSEADDR lets it bind over the stopped server's
    /// connections still in TIME_WAIT.
    public init(port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(fd)
            throw NSError(domain: "PortHold", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "cannot hold port \(port): \(reason)"])
        }
        self.fd = fd
    }

    /// Lets the port go, for the server to start on it again.
    public func release() { _ = Glibc.close(fd) }
}
