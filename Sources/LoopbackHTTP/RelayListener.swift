#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The listening side of a loopback relay (``WebDAVProxy``, ``CuttingRelay``): a socket on
/// 127.0.0.1 at a port the OS picks, an accept loop on a thread of its own, and the set of
/// every socket the relay has open, so ``stop()`` can cut them all at once.
final class RelayListener: Sendable {
    let port: Int
    private let listener: Int32
    private let sockets = Mutex(Sockets())

    private struct Sockets {
        var open = Set<Int32>()
        var stopped = false
    }

    /// Listens; nil if the socket could not be made.
    init?() {
        guard let (fd, port) = LoopbackSocket.listen() else { return nil }
        listener = fd
        self.port = port
    }

    /// Accepts connections until ``stop()``, handing each (already tracked) to `connection`.
    func start(_ connection: @escaping @Sendable (Int32) -> Void) {
        let listener = self.listener
        Thread.detachNewThread { [self] in
            defer { close(listener) }
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                guard track(client) else {
                    close(client)
                    return
                }
                connection(client)
            }
        }
    }

    /// Remembers open sockets for ``stop()``; false (and nothing remembered) once stopped.
    func track(_ fds: Int32...) -> Bool {
        sockets.withLock { sockets in
            guard !sockets.stopped else { return false }
            sockets.open.formUnion(fds)
            return true
        }
    }

    /// Forgets sockets about to be closed by their owner.
    func forget(_ fds: Int32...) {
        sockets.withLock { $0.open.subtract(fds) }
    }

    /// Stops accepting and shuts every open socket down, which wakes the threads blocked on
    /// them; each closes its own. Safe to call more than once.
    func stop() {
        let open: Set<Int32>? = sockets.withLock { sockets in
            guard !sockets.stopped else { return nil }
            sockets.stopped = true
            return sockets.open
        }
        guard let open else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }
}
