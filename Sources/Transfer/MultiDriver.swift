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
    /// Where `timer` is set to go off; nil when curl wants no timeout.
    private var timerDeadline: UInt64?
    private var isShutDown = false

    /// Bumped by a transfer whose byte counters changed; a burst goes on only after a round
    /// that moved something (`SocketBurst`).
    private var activity: UInt64 = 0
    /// What the driver did, for tests and benchmarks.
    private(set) var counters = DriverCounters()

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
    /// reports finished transfers. After a writable event, curl gets more rounds on the same
    /// socket as soon as it is ready again (`SocketBurst`), so an upload does not wait for a new
    /// Dispatch event, a hand-off between threads, per curl buffer.
    func socketAction(_ socket: curl_socket_t, _ mask: Int32) {
        guard !isShutDown else { return }
        if socket == BC_CURL_SOCKET_TIMEOUT {
            counters.timerEvents += 1
            timerDeadline = nil
        } else {
            counters.socketEvents += 1
        }
        var before = activity
        runCurl(socket, mask)
        guard mask & BC_CURL_CSELECT_OUT != 0 else { return }
        var burst = SocketBurst(now: DispatchTime.now().uptimeNanoseconds)
        while !isShutDown, let watch = watches[socket] {
            let decision = burst.roundEnded(moved: activity != before, wantsWrite: watch.wantsWrite,
                                            mayWait: watches.count == 1, now: DispatchTime.now().uptimeNanoseconds)
            guard case .poll(let timeout) = decision else { return }
            let ready = Self.readiness(socket, read: watch.wantsRead, timeout: timeout)
            // Not ready within the budget: Dispatch's source takes over.
            guard ready != 0 else { return }
            before = activity
            counters.burstRounds += 1
            runCurl(socket, ready)
        }
    }

    private func runCurl(_ socket: curl_socket_t, _ mask: Int32) {
        var running: Int32 = 0
        curl_multi_socket_action(multi, socket, mask, &running)
        drainMessages()
    }

    /// Polls one socket for what curl waits on, up to `timeout` nanoseconds (rounded up to a
    /// millisecond; 0 only looks), and returns the `CURL_CSELECT_*` mask for curl, 0 if it is
    /// not ready. An error or hang-up goes to curl too, which reads it on the socket.
    private static func readiness(_ socket: curl_socket_t, read: Bool, timeout: UInt64) -> Int32 {
        var entry = pollfd(fd: socket, events: Int16(POLLOUT) | (read ? Int16(POLLIN) : 0), revents: 0)
        let milliseconds = Int32(min(UInt64(Int32.max), (timeout + 999_999) / 1_000_000))
        var result: Int32
        repeat {
            result = poll(&entry, 1, milliseconds)
        } while result < 0 && errno == EINTR
        guard result == 1 else { return 0 }
        var mask: Int32 = 0
        if entry.revents & Int16(POLLOUT) != 0 { mask |= BC_CURL_CSELECT_OUT }
        if entry.revents & Int16(POLLIN) != 0 { mask |= BC_CURL_CSELECT_IN }
        if entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { mask |= BC_CURL_CSELECT_ERR }
        return mask
    }

    /// A transfer's byte counters changed (called from its progress callback, on `queue`).
    func noteMoved() {
        activity &+= 1
    }

    /// Asks curl to look at its timeouts soon, e.g. after unpausing a transfer.
    func kick() {
        timerDeadline = DispatchTime.now().uptimeNanoseconds
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
        if wantRead != watch.wantsRead || wantWrite != watch.wantsWrite { counters.interestChanges += 1 }
        watch.set(read: wantRead, write: wantWrite, driver: self)
    }

    /// curl's timer callback. Rescheduling a Dispatch timer wakes Dispatch's event-loop thread,
    /// and curl asks again after nearly every round of a transfer, mostly for a deadline that
    /// slid a little later; so a deadline later than the one set by at most an eighth of the
    /// wait (at least 1 ms), or a "no timeout" that is already so, leaves the timer alone. A
    /// timer that fires early is harmless: curl checks its timeouts and asks for the next one.
    fileprivate func scheduleTimer(milliseconds: Int) {
        counters.timerRequests += 1
        if milliseconds < 0 {
            guard timerDeadline != nil else { return }
            timerDeadline = nil
            timer.schedule(deadline: .distantFuture)
        } else {
            let now = DispatchTime.now()
            guard Self.timerMustMove(current: timerDeadline, now: now.uptimeNanoseconds, milliseconds: milliseconds) else { return }
            let deadline = now + .milliseconds(milliseconds)
            timerDeadline = deadline.uptimeNanoseconds
            counters.timerUpdates += 1
            timer.schedule(deadline: deadline)
        }
    }

    /// Whether a timer set to go off at `current` (uptime nanoseconds; nil: not set) must move
    /// for curl's request, made at `now`, to be called in `milliseconds`: yes when it would go
    /// off late, or early by more than an eighth of the wait (at least 1 ms).
    static func timerMustMove(current: UInt64?, now: UInt64, milliseconds: Int) -> Bool {
        guard let current else { return true }
        let wait = UInt64(max(0, milliseconds)) * 1_000_000
        let due = now &+ wait
        return current > due || due - current > max(1_000_000, wait / 8)
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

    /// curl asked to hear when the socket is writable.
    var wantsWrite: Bool { writeOn }
    /// curl asked to hear when the socket is readable.
    var wantsRead: Bool { readOn }

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

/// What a session's driver did, counted on its queue: how many Dispatch events it handled and
/// how many extra rounds of curl the bursts ran in place of one. Tests read it to check that an
/// upload is not driven one curl buffer per hand-off between threads.
struct DriverCounters: Sendable, Equatable {
    /// Read or write events from the sockets' Dispatch sources.
    var socketEvents = 0
    /// Times curl's timer went off.
    var timerEvents = 0
    /// Rounds of curl run within an event, after its first (`SocketBurst`).
    var burstRounds = 0
    /// Times curl changed what it waits for on a socket (each suspends or resumes a source).
    var interestChanges = 0
    /// Times curl asked to move its timer, and times the Dispatch timer was actually moved.
    var timerRequests = 0
    var timerUpdates = 0
}
