import Logging
import NIOCore
import Synchronization

/// Counts open connections, in all and per client address, and decides whether a new one is served.
///
/// Shared by every event loop of the server, hence the lock; it is taken once when a connection
/// opens and once when it closes.
final class ConnectionAdmission: Sendable {
    enum Decision: Equatable {
        case admitted
        case refused(Refusal)
    }

    enum Refusal: String, Equatable {
        case serverFull = "the server is at its connection cap"
        case clientFull = "this client address is at its connection cap"
    }

    private struct State {
        var open = 0
        var perClient: [String: Int] = [:]
        var refusedSinceWarning = 0
        var lastWarning: ContinuousClock.Instant?
        /// The admitted connections still open, for `closeAll`.
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Set by `closeAll`: a connection the listener still hands over after it is closed at once.
        var closing = false
    }

    /// Connections served at most (after fitting the descriptor limit).
    let maxConnections: Int
    /// Connections from one address at most; 0 for no cap.
    let maxPerClient: Int
    private let logger: Logger
    private let state = Mutex(State())

    init(maxConnections: Int, maxPerClient: Int, logger: Logger) {
        self.maxConnections = maxConnections
        self.maxPerClient = maxPerClient
        self.logger = logger
    }

    /// Connections being served now.
    var openConnections: Int { state.withLock { $0.open } }

    /// Admits a connection from `address` (nil for a Unix socket: no per-client cap) or says why not.
    /// Every admitted connection must be `release`d exactly once when it closes.
    func admit(_ address: String?) -> Decision {
        let (decision, warning) = state.withLock { state -> (Decision, String?) in
            var refusal: Refusal?
            if state.open >= maxConnections {
                refusal = .serverFull
            } else if let address, maxPerClient > 0, state.perClient[address, default: 0] >= maxPerClient {
                refusal = .clientFull
            }
            guard let refusal else {
                state.open += 1
                if let address { state.perClient[address, default: 0] += 1 }
                return (.admitted, nil)
            }
            // Refusals come in floods; one warning per ten seconds says enough.
            state.refusedSinceWarning += 1
            let now = ContinuousClock.now
            if let last = state.lastWarning, now - last < .seconds(10) { return (.refused(refusal), nil) }
            state.lastWarning = now
            defer { state.refusedSinceWarning = 0 }
            return (.refused(refusal), "refused \(state.refusedSinceWarning) connection(s) with 503: \(refusal.rawValue) "
                + "(\(state.open) open of \(maxConnections); per client \(maxPerClient == 0 ? "no cap" : String(maxPerClient)))")
        }
        if let warning { logger.warning("\(warning)") }
        return decision
    }

    /// Keeps an admitted connection until it closes, so that `closeAll` can reach it.
    func track(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        let closing = state.withLock { state -> Bool in
            if !state.closing { state.channels[key] = channel }
            return state.closing
        }
        guard !closing else {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [self] _ in
            _ = state.withLock { $0.channels.removeValue(forKey: key) }
        }
    }

    /// Closes every connection still open, and any handed over from now on: a stopping server's
    /// last step once its grace is over, and once more when it has stopped (a connection the
    /// kernel had accepted as the listener closed is otherwise never read nor closed).
    func closeAll() async {
        let open = state.withLock { state -> [any Channel] in
            state.closing = true
            return Array(state.channels.values)
        }
        // Waited for: a stop returns with every socket closed, not only asked to close.
        for channel in open { try? await channel.close() }
    }

    func release(_ address: String?) {
        state.withLock { state in
            state.open -= 1
            if let address, let count = state.perClient[address] {
                if count <= 1 { state.perClient[address] = nil } else { state.perClient[address] = count - 1 }
            }
        }
    }
}

/// The whole pipeline of a refused connection: answers 503 with `Retry-After` at once, shuts its
/// output, reads and drops what the client sends for a short linger (so the client reads the 503
/// rather than a reset), then closes.
final class RefusingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: ConnectionAnswer
    private let linger: TimeAmount
    private var started = false
    private var lingerUntil: NIODeadline = .distantFuture
    private var quietUntil: NIODeadline = .distantFuture
    private var timer: Scheduled<Void>?

    init(answer: ConnectionAnswer, linger: TimeAmount) {
        self.answer = answer
        self.linger = linger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        quietUntil = .now() + min(ConnectionGuardHandler.lingerQuiet, linger)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            context.close(mode: .all, promise: nil)
        } else if event is ChannelShouldQuiesceEvent {
            context.close(mode: .all, promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(mode: .all, promise: nil)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let now = NIODeadline.now()
        lingerUntil = now + linger
        quietUntil = now + min(ConnectionGuardHandler.lingerQuiet, linger)
        context.writeAndFlush(wrapOutboundOut(answer.rawHTTP(allocator: context.channel.allocator)), promise: nil)
        context.close(mode: .output, promise: nil)
        schedule(context)
    }

    private func schedule(_ context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: min(lingerUntil, quietUntil)) { [self] in
            timer = nil
            if NIODeadline.now() >= min(lingerUntil, quietUntil) {
                context.close(mode: .all, promise: nil)
            } else {
                schedule(context)
            }
        }
    }
}
