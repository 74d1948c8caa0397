import CAgentShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A connected Unix stream socket: blocking writes of whole lines, blocking reads of lines.
///
/// Each side of the agent reads on its own thread (a connection's reader, a client's waiter),
/// so blocking calls are the simple truth here; writes from several threads are serialized by
/// `writeLock`, so lines never interleave.
public final class UnixConnection: @unchecked Sendable {
    // @unchecked Sendable: `fd` is immutable; `buffer` is touched only by the one reading
    // thread (readLine's callers never read concurrently, documented there); writes hold
    // `writeLock`; `closed` is guarded by `writeLock` too.
    public let fd: Int32
    private var buffer = Data()
    private let writeLock = NSLock()
    private var closed = false

    init(fd: Int32) { self.fd = fd }

    deinit { close() }

    /// The uid at the other end (SO_PEERCRED), or nil when the kernel will not say.
    public var peerUID: uid_t? {
        var uid: UInt32 = 0
        return bc_agent_peer_uid(fd, &uid) == 0 ? uid_t(uid) : nil
    }

    /// Writes `data` whole; false once the other side has gone.
    @discardableResult
    public func write(_ data: Data) -> Bool {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard !closed else { return false }
        return data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return true }
            var sent = 0
            while sent < raw.count {
                let n = send(fd, base + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                sent += n
            }
            return true
        }
    }

    /// The next line without its newline, or nil at the end of the stream. One reader at a time.
    public func readLine(limit: Int = 4 << 20) -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[(newline + 1)...])
                return Data(line)
            }
            guard buffer.count < limit else { return nil }
            var chunk = [UInt8](repeating: 0, count: 16384)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// Ends a connection after a last line: our side is shut for writing, what the peer had
    /// sent is read and dropped (for at most a second), then it is closed, so the peer reads
    /// the line rather than a reset (closing with its request unread would send one).
    public func finish() {
        shutdown(fd, Int32(SHUT_WR))
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var chunk = [UInt8](repeating: 0, count: 4096)
        while recv(fd, &chunk, chunk.count, 0) > 0 {}
        close()
    }

    /// Ends the connection both ways; a blocked reader wakes with end of stream.
    public func close() {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard !closed else { return }
        closed = true
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }
}

/// Making, binding and connecting Unix stream sockets.
public enum UnixSocket {
    /// Connects to `path`; throws with errno (ENOENT: no socket, ECONNREFUSED: a dead agent's).
    public static func connect(_ path: String) throws(UnixSocketError) -> UnixConnection {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw UnixSocketError(code: errno) }
        var address = try self.address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw UnixSocketError(code: code)
        }
        return UnixConnection(fd: fd)
    }

    /// Binds and listens on `path` with mode 0600 (made so under a umask of 0177, so it is never
    /// open to others, not even for a moment). The caller removed any stale socket first.
    public static func listen(_ path: String) throws(UnixSocketError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw UnixSocketError(code: errno) }
        var address = try self.address(path)
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0, chmod(path, 0o600) == 0, Glibc.listen(fd, 64) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw UnixSocketError(code: code)
        }
        return fd
    }

    /// Waits for the next connection on a listening socket; nil once it is closed.
    public static func accept(_ listener: Int32) -> UnixConnection? {
        while true {
            let fd = Glibc.accept(listener, nil, nil)
            if fd >= 0 {
                // Close-on-exec, so a transfer's child (none today) never inherits a client.
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                return UnixConnection(fd: fd)
            }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    private static func address(_ path: String) throws(UnixSocketError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw UnixSocketError(code: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }
}

public struct UnixSocketError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32
    public var description: String { String(cString: strerror(code)) }
}
