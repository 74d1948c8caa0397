import NIOCore

/// The timeouts of one HTTP/1.1 connection, as a value: events go in with the time they happened,
/// the next deadline and what to do when it passes come out. `ConnectionGuardHandler` feeds it from
/// the channel and carries out its actions; the tests feed it by hand, without a network.
///
/// A connection is always in one phase:
/// - **idle**, waiting for the first byte of a request: closed quietly after `idle`;
/// - **head**, a request head has started but is not complete: 408 and closed `header` after its
///   first byte, however slowly the bytes trickle in (a slowloris gains nothing);
/// - **body**, the head is in and the body is arriving: closed when no byte has come for `body`;
/// - **busy**, the request is complete and its answer is being made or sent: no clock runs.
///
/// Only time the server spends *wanting* bytes counts against the client: while reads are paused
/// by the server's own back-pressure (a handler not yet consuming an upload), the clock stands
/// still. And in any phase, an answer the client does not read at all for `idle` (the socket stays
/// full and not one byte drains) closes the connection; a slow reader is not a stalled one.
///
/// Longpolls: a longpoll is a request whose answer waits for a change, so it sits in **busy**, which
/// has no clock: it is exempt from the idle timeout exactly while it waits, and the idle clock
/// starts again once it has answered. A longpoll endpoint needs nothing more from this machine.
struct ConnectionTimeoutMachine {
    struct Limits: Equatable {
        var idle: TimeAmount
        var header: TimeAmount
        var body: TimeAmount

        init(idle: TimeAmount, header: TimeAmount, body: TimeAmount) {
            self.idle = idle
            self.header = header
            self.body = body
        }

        init(_ limits: ConnectionLimits) {
            self.init(idle: TimeAmount(limits.idleTimeout), header: TimeAmount(limits.headerTimeout), body: TimeAmount(limits.bodyTimeout))
        }
    }

    enum Phase: Equatable {
        case idle
        case head(started: NIODeadline)
        case body
        case busy
        case closed
    }

    /// What the owner does when a deadline passes.
    enum Action: Equatable {
        case none
        /// Close without a word: an idle connection, a stalled body, an unread answer.
        case close(Reason)
        /// Answer 408 Request Timeout, then close.
        case answerTimeout
    }

    enum Reason: String, Equatable {
        case idle
        case bodyStalled = "body stalled"
        case answerNotRead = "answer not read"
    }

    let limits: Limits
    private(set) var phase: Phase = .idle
    /// When the client last made progress: a byte arrived, or the server asked for more (so a
    /// pause of the server's own making is not held against the client).
    private var lastProgress: NIODeadline
    /// Whether a read is outstanding at the socket, i.e. the server wants bytes now.
    private var readPending = true
    /// Since when the socket has refused more of the answer, if it does.
    private var unwritableSince: NIODeadline?
    /// Requests whose head arrived and whose answer has not ended yet.
    private(set) var answersPending = 0

    init(limits: Limits, now: NIODeadline) {
        self.limits = limits
        self.lastProgress = now
    }

    // MARK: Events

    /// Bytes came off the socket (before the HTTP decoder saw them).
    mutating func bytesArrived(now: NIODeadline) {
        readPending = false
        lastProgress = now
        if phase == .idle { phase = .head(started: now) }
    }

    /// The server asked the socket for more bytes.
    mutating func readRequested(now: NIODeadline) {
        if !readPending { lastProgress = now }
        readPending = true
    }

    /// The decoder finished a request head.
    mutating func headReceived(now: NIODeadline) {
        guard phase != .closed else { return }
        answersPending += 1
        lastProgress = now
        phase = .body
    }

    /// The decoder finished a request (its body included).
    mutating func requestEnded(now: NIODeadline) {
        guard phase != .closed else { return }
        lastProgress = now
        // An answer may already be out (an error sent before the body was read): then idle.
        phase = answersPending > 0 ? .busy : .idle
    }

    /// The server finished writing an answer.
    mutating func answerEnded(now: NIODeadline) {
        answersPending = max(0, answersPending - 1)
        if phase == .busy, answersPending == 0 {
            phase = .idle
            lastProgress = now
        }
    }

    mutating func writabilityChanged(writable: Bool, now: NIODeadline) {
        unwritableSince = writable ? nil : (unwritableSince ?? now)
    }

    /// The client read some of an answer while the socket stayed full: a slow reader, not a stalled one.
    mutating func answerProgressed(now: NIODeadline) {
        if unwritableSince != nil { unwritableSince = now }
    }

    /// Whether the socket has refused more of the answer since before `deadline`.
    var isAnswerStalled: Bool { unwritableSince != nil }

    mutating func closed() {
        phase = .closed
    }

    // MARK: Deadlines

    /// When `deadlinePassed` has something to do next, if ever (as things stand now).
    var deadline: NIODeadline? {
        var next: NIODeadline?
        switch phase {
        case .idle: next = readPending ? lastProgress + limits.idle : nil
        case .head(let started): next = started + limits.header
        case .body: next = readPending ? lastProgress + limits.body : nil
        case .busy, .closed: next = nil
        }
        if let since = unwritableSince, phase != .closed {
            next = min(next ?? .distantFuture, since + limits.idle)
        }
        return next
    }

    /// Called when a scheduled deadline passes; events since may have moved it (then nothing
    /// happens and the owner schedules the new `deadline`).
    mutating func deadlinePassed(now: NIODeadline) -> Action {
        guard let deadline, now >= deadline else { return .none }
        if let since = unwritableSince, now >= since + limits.idle {
            phase = .closed
            return .close(.answerNotRead)
        }
        switch phase {
        case .idle:
            phase = .closed
            return .close(.idle)
        case .head:
            phase = .closed
            return .answerTimeout
        case .body:
            phase = .closed
            return .close(.bodyStalled)
        case .busy, .closed:
            return .none
        }
    }
}
