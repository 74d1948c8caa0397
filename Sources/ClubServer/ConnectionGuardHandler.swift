import Logging
import NIOCore

/// The first handler of every admitted connection, on the raw bytes: it runs the connection's
/// `ConnectionTimeoutMachine` and closes connections that linger.
///
/// It sits before the HTTP decoder, so it sees every byte arrive (a request head that never
/// completes included) and every read the server asks of the socket (so the server's own
/// back-pressure is not held against the client). `HTTPExchangeTap`, after the decoder, tells it
/// where requests and answers begin and end.
///
/// Whenever the server closes its side while the client may still be sending (an error answered
/// before the request was read, a 408, Hummingbird's half-close after a malformed request), it
/// keeps reading and discarding for a short linger, then closes the socket for good: the client
/// reads the answer instead of a reset, and is never left facing a half-closed socket.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// How long a lingering close waits for the next byte before it gives up on the client.
    static let lingerQuiet = TimeAmount.milliseconds(500)

    private var machine: ConnectionTimeoutMachine
    private let linger: TimeAmount
    private let logger: Logger
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    /// Set once the output is shut: when the lingering close ends at the latest.
    private var drainUntil: NIODeadline?
    /// During the linger: when it ends for want of bytes.
    private var drainQuietUntil: NIODeadline = .distantFuture
    private var inputClosed = false
    /// Set once the channel is gone: no timer or linger may start after that.
    private var isInactive = false
    /// Bytes waiting in the channel when the answer last counted as stalled: fewer later means the
    /// client read some.
    private var bufferedAtLastCheck: Int?

    init(limits: ConnectionLimits, logger: Logger) {
        self.machine = ConnectionTimeoutMachine(limits: .init(limits), now: .now())
        self.linger = TimeAmount(limits.linger)
        self.logger = logger
    }

    // MARK: Told by HTTPExchangeTap

    /// Whether a request's head has arrived on this connection (a stopping server closes a
    /// connection that never sent one: ClubChildChannel.handle).
    private(set) var sawRequest = false

    func headReceived(context: ChannelHandlerContext) {
        sawRequest = true
        machine.headReceived(now: .now())
        rearm(context)
    }

    func requestEnded(context: ChannelHandlerContext) {
        machine.requestEnded(now: .now())
        rearm(context)
    }

    func answerEnded(context: ChannelHandlerContext) {
        machine.answerEnded(now: .now())
        rearm(context)
    }

    // MARK: Inbound

    func handlerAdded(context: ChannelHandlerContext) {
        rearm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if drainUntil != nil {
            // Lingering: what the client still sends is read only to be dropped.
            drainQuietUntil = .now() + min(Self.lingerQuiet, linger)
            return
        }
        guard machine.phase != .closed else { return }
        machine.bytesArrived(now: .now())
        context.fireChannelRead(data)
        rearm(context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if drainUntil != nil {
            // The HTTP side has stopped asking for bytes; keep the socket draining regardless.
            context.read()
            return
        }
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        machine.writabilityChanged(writable: context.channel.isWritable, now: .now())
        bufferedAtLastCheck = context.channel.isWritable ? nil : bufferedBytes(context)
        rearm(context)
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            inputClosed = true
            if drainUntil != nil {
                // The client has sent everything: the linger is over.
                context.close(mode: .all, promise: nil)
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        isInactive = true
        machine.closed()
        cancelTimer()
        context.fireChannelInactive()
    }

    // MARK: Outbound

    func read(context: ChannelHandlerContext) {
        machine.readRequested(now: .now())
        // A deadline that passed while the server held reads back left no timer behind: the
        // client's clock starts again now, so it needs one (cheap when one is already due sooner).
        rearm(context)
        context.read()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .output {
            if inputClosed {
                // Both halves done: nothing to linger for.
                context.close(mode: .all, promise: promise)
                return
            }
            beginLinger(context)
        }
        context.close(mode: mode, promise: promise)
    }

    // MARK: Deadlines

    /// Makes sure a timer fires by the earliest deadline that matters now.
    private func rearm(_ context: ChannelHandlerContext) {
        guard !isInactive else { return }
        let next: NIODeadline?
        if let drainUntil {
            next = min(drainUntil, drainQuietUntil)
        } else {
            next = machine.deadline
        }
        guard let next else { return }
        // A timer already due at or before `next` re-checks then; only an earlier deadline needs a new one.
        if let timerDeadline, timerDeadline <= next { return }
        cancelTimer()
        timerDeadline = next
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: next) { [self] in
            timer = nil
            timerDeadline = nil
            deadlinePassed(context)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private func deadlinePassed(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        if let drainUntil {
            if now >= min(drainUntil, drainQuietUntil) {
                context.close(mode: .all, promise: nil)
            } else {
                rearm(context)
            }
            return
        }
        if machine.isAnswerStalled, let buffered = bufferedBytes(context) {
            if let before = bufferedAtLastCheck, buffered < before { machine.answerProgressed(now: now) }
            bufferedAtLastCheck = buffered
        }
        switch machine.deadlinePassed(now: now) {
        case .none:
            rearm(context)
        case .close(let reason):
            logger.debug("closing a connection: \(reason.rawValue)", metadata: ["peer": "\(context.channel.remoteAddress?.ipAddress ?? "?")"])
            context.close(mode: .all, promise: nil)
        case .answerTimeout:
            logger.debug("408: request head not complete in time", metadata: ["peer": "\(context.channel.remoteAddress?.ipAddress ?? "?")"])
            let answer = ConnectionAnswer.requestTimeout.rawHTTP(allocator: context.channel.allocator)
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(answer)), promise: nil)
            // This handler's own `close` is behind us in the pipeline: start the linger here.
            beginLinger(context)
            context.close(mode: .output, promise: nil)
        }
    }

    private func bufferedBytes(_ context: ChannelHandlerContext) -> Int? {
        try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)
    }

    private func beginLinger(_ context: ChannelHandlerContext) {
        guard drainUntil == nil, !isInactive else { return }
        let now = NIODeadline.now()
        drainUntil = now + linger
        drainQuietUntil = now + min(Self.lingerQuiet, linger)
        cancelTimer()
        rearm(context)
        // Nobody upstream may be reading any more (a failed decoder, a finished request).
        context.read()
    }
}
