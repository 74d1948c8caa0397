import CCurl
import Dispatch
import Foundation

/// Drives one curl multi handle with Dispatch: a read and a write source per socket that
/// curl asks us to watch, and one timer source for curl's timeouts.
///
/// Everything here runs on `queue`, the session's private serial queue: curl's socket and
/// timer callbacks are only ever invoked from inside calls we make on that queue.
///
/// `@unchecked Sendable` is safe because every mutable property is touched only on `queue`
/// (the Dispatch handlers that capture this object are all registered on `queue`).
final class MultiDriver: @unchecked Sendable {
    let queue: DispatchQueue
    let multi: UnsafeMutableRawPointer
    /// Shares the DNS cache (and cookies, unless ephemeral) between the session's handles.
    /// Every handle runs on `queue`, so the share needs no lock callbacks.
    let share: UnsafeMutableRawPointer?
    /// Called on `queue` for each finished transfer, after curl has reported it done.
    var onDone: ((UnsafeMutableRawPointer, CURLcode) -> Void)?

    private var watches: [curl_socket_t: SocketWatch] = [:]
    /// Sources cancelled for a socket whose cancel handlers have not run yet.
    private var pendingCancels: [curl_socket_t: Int] = [:]
    /// Sockets curl has closed while a source still referred to them; closed once the
    /// sources are gone, so the descriptor number cannot be reused under a live source.
    private var deferredCloses: Set<curl_socket_t> = []
    private let timer: DispatchSourceTimer
    private var isShutDown = false

    init?(queue: DispatchQueue, maximumConnectionsPerHost: Int, sharesCookies: Bool) {
        guard ensureCurlInitialized(), let multi = curl_multi_init() else { return nil }
        self.queue = queue
        self.multi = multi
        let share = curl_share_init()
        if let share {
            bc_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
            if sharesCookies {
                bc_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
            }
        }
        self.share = share
        self.timer = DispatchSource.makeTimerSource(queue: queue)
        let me = Unmanaged.passUnretained(self).toOpaque()
        bc_multi_set_socket_function(multi, multiSocketCallback)
        bc_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, me)
        bc_multi_set_timer_function(multi, multiTimerCallback)
        bc_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, me)
        bc_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maximumConnectionsPerHost))
        timer.setEventHandler { [weak self] in
            self?.socketAction(BC_CURL_SOCKET_TIMEOUT, 0)
        }
        timer.schedule(deadline: .distantFuture)
        timer.activate()
    }

    /// The pointer curl passes back to the close-socket callback.
    var callbackPointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    func add(_ easy: UnsafeMutableRawPointer) -> CURLMcode {
        dispatchPrecondition(condition: .onQueue(queue))
        return curl_multi_add_handle(multi, easy)
    }

    /// Removing a handle mid-transfer makes curl close its connection, so the server sees the abort.
    func remove(_ easy: UnsafeMutableRawPointer) {
        dispatchPrecondition(condition: .onQueue(queue))
        curl_multi_remove_handle(multi, easy)
    }

    /// Runs curl for one socket event (or for the timer with `BC_CURL_SOCKET_TIMEOUT`), then
    /// reports finished transfers.
    func socketAction(_ socket: curl_socket_t, _ mask: Int32) {
        guard !isShutDown else { return }
        var running: Int32 = 0
        curl_multi_socket_action(multi, socket, mask, &running)
        drainMessages()
    }

    /// Asks curl to look at its timeouts soon, e.g. after unpausing a transfer.
    func kick() {
        timer.schedule(deadline: .now())
    }

    private func drainMessages() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = bc_msg_result(message)
            onDone?(easy, result)
        }
    }

    func shutdown() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isShutDown else { return }
        isShutDown = true
        timer.cancel()
        curl_multi_cleanup(multi)
        if let share { curl_share_cleanup(share) }
        for socket in Array(watches.keys) {
            stopWatching(socket)
        }
    }

    // MARK: - Callbacks from curl (on `queue`)

    fileprivate func updateWatch(_ socket: curl_socket_t, what: Int32) {
        if what == BC_CURL_POLL_REMOVE {
            stopWatching(socket)
            return
        }
        let watch: SocketWatch
        if let existing = watches[socket] {
            watch = existing
        } else {
            watch = SocketWatch(socket: socket)
            watches[socket] = watch
        }
        let wantRead = what == BC_CURL_POLL_IN || what == BC_CURL_POLL_INOUT
        let wantWrite = what == BC_CURL_POLL_OUT || what == BC_CURL_POLL_INOUT
        watch.set(read: wantRead, write: wantWrite, driver: self)
    }

    fileprivate func scheduleTimer(milliseconds: Int) {
        if milliseconds < 0 {
            timer.schedule(deadline: .distantFuture)
        } else {
            timer.schedule(deadline: .now() + .milliseconds(milliseconds))
        }
    }

    fileprivate func closeSocket(_ socket: curl_socket_t) {
        if watches[socket] != nil {
            stopWatching(socket)
        }
        if (pendingCancels[socket] ?? 0) > 0 {
            deferredCloses.insert(socket)
        } else {
            close(socket)
        }
    }

    private func stopWatching(_ socket: curl_socket_t) {
        guard let watch = watches.removeValue(forKey: socket) else { return }
        let sources = watch.detach()
        guard !sources.isEmpty else { return }
        pendingCancels[socket, default: 0] += sources.count
        for source in sources {
            // Strong on purpose: the handler must run to close a deferred socket even if the
            // session is gone by then. The source drops the handler after it runs, so no cycle.
            source.setCancelHandler {
                self.sourceCancelled(socket)
            }
            source.cancel()
        }
    }

    private func sourceCancelled(_ socket: curl_socket_t) {
        let remaining = (pendingCancels[socket] ?? 1) - 1
        if remaining > 0 {
            pendingCancels[socket] = remaining
            return
        }
        pendingCancels[socket] = nil
        if deferredCloses.remove(socket) != nil {
            close(socket)
        }
    }

    fileprivate func makeSource(_ socket: curl_socket_t, read: Bool) -> DispatchSourceProtocol {
        let mask = read ? BC_CURL_CSELECT_IN : BC_CURL_CSELECT_OUT
        let source: DispatchSourceProtocol = read
            ? DispatchSource.makeReadSource(fileDescriptor: socket, queue: queue)
            : DispatchSource.makeWriteSource(fileDescriptor: socket, queue: queue)
        source.setEventHandler { [weak self] in
            self?.socketAction(socket, mask)
        }
        return source
    }
}

/// The Dispatch sources watching one socket. Sources are suspended rather than cancelled when
/// curl drops interest for a while, because uploads toggle write interest often.
private final class SocketWatch {
    let socket: curl_socket_t
    private var readSource: DispatchSourceProtocol?
    private var writeSource: DispatchSourceProtocol?
    private var readOn = false
    private var writeOn = false

    init(socket: curl_socket_t) {
        self.socket = socket
    }

    func set(read: Bool, write: Bool, driver: MultiDriver) {
        if read != readOn {
            if read {
                if let readSource { readSource.resume() } else {
                    let source = driver.makeSource(socket, read: true)
                    readSource = source
                    source.activate()
                }
            } else {
                readSource?.suspend()
            }
            readOn = read
        }
        if write != writeOn {
            if write {
                if let writeSource { writeSource.resume() } else {
                    let source = driver.makeSource(socket, read: false)
                    writeSource = source
                    source.activate()
                }
            } else {
                writeSource?.suspend()
            }
            writeOn = write
        }
    }

    /// Hands back the sources for cancelling, resumed so Dispatch may release them.
    func detach() -> [DispatchSourceProtocol] {
        var sources: [DispatchSourceProtocol] = []
        if let readSource {
            if !readOn { readSource.resume() }
            sources.append(readSource)
        }
        if let writeSource {
            if !writeOn { writeSource.resume() }
            sources.append(writeSource)
        }
        readSource = nil
        writeSource = nil
        return sources
    }
}

private let multiSocketCallback: curl_socket_callback = { _, socket, what, userp, _ in
    guard let userp else { return 0 }
    Unmanaged<MultiDriver>.fromOpaque(userp).takeUnretainedValue().updateWatch(socket, what: what)
    return 0
}

private let multiTimerCallback: curl_multi_timer_callback = { _, timeoutMilliseconds, userp in
    guard let userp else { return 0 }
    Unmanaged<MultiDriver>.fromOpaque(userp).takeUnretainedValue().scheduleTimer(milliseconds: Int(timeoutMilliseconds))
    return 0
}

/// Set on every easy handle: curl's connections outlive their easy handles, so the pointer
/// is the driver, which lives as long as the multi handle.
let easyCloseSocketCallback: curl_closesocket_callback = { clientp, socket in
    guard let clientp else { return close(socket) }
    Unmanaged<MultiDriver>.fromOpaque(clientp).takeUnretainedValue().closeSocket(socket)
    return 0
}
