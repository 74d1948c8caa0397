import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Hummingbird's HTTP/1.1 child channel, with the club server's connection rules around it.
///
/// Each accepted connection is first put to `ConnectionAdmission`. A refused one gets only a
/// `RefusingHandler` (503, `Retry-After`, closed). An admitted one gets Hummingbird's usual HTTP
/// pipeline, with `ConnectionGuardHandler` before the decoder (raw bytes: timeouts and lingering
/// closes) and `HTTPExchangeTap` right after it (where requests and answers end, malformed
/// requests). The pipeline of an admitted connection, head to tail:
///
///     ConnectionGuardHandler · HTTPResponseEncoder · HTTPRequestDecoder · HTTPExchangeTap ·
///     HTTP1ToHTTPServerCodec · HTTPConnectionStateHandler · NIOAsyncChannel → router
///
/// The HTTP pipeline is hummingbird-websocket's upgradable one: a request asking for a WebSocket
/// is put to `liveUpgrade` (the live channel's auth and note check, ClubAPI+Live). Refused, its
/// answer is written below the codec and the connection closed; allowed, `HTTPExchangeTap` (which
/// reads HTTP parts) leaves the pipeline and the socket speaks WebSocket frames to `serveLive`.
struct ClubChildChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
        /// Nil for a refused connection, which never reaches the router.
        let http: HTTP1WebSocketUpgradeChannel.Value?
    }

    typealias LiveUpgrade = @Sendable (HTTPRequest, String) async -> Result<ClubAPI.LiveSession, APIError>
    typealias ServeLive = @Sendable (ClubAPI.LiveSession, WebSocketInboundStream, WebSocketOutboundWriter, any Channel) async -> Void

    let http1: HTTP1WebSocketUpgradeChannel
    let admission: ConnectionAdmission
    let limits: ConnectionLimits
    let logger: Logger

    /// The builder `Application` takes; it hands over the router's responder.
    static func builder(limits: ConnectionLimits, live: LiveLimits, admission: ConnectionAdmission, logger: Logger,
                        liveUpgrade: @escaping LiveUpgrade, serveLive: @escaping ServeLive) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
                maxHeaderFieldSize: limits.maxHeaderBytes, maxHeaderListSize: limits.maxHeaderBytes)
            // Hummingbird's own idle timeout stays off: ConnectionGuardHandler has finer ones.
            let http = HTTP1Channel.Configuration(idleTimeout: nil, httpDecoderConfiguration: decoder)
            // A ping well within the idle timeout keeps a quiet live connection open: the client's
            // pong is traffic to ConnectionGuardHandler.
            let ping = max(Duration.seconds(1), limits.idleTimeout / 3)
            let ws = WebSocketServerConfiguration(maxFrameSize: live.maxFrameBytes, autoPing: .enabled(timePeriod: ping))
            let channel = HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(http1: http, ws: ws)) { request, channel, _ in
                let address = channel.remoteAddress?.ipAddress ?? "unknown"
                let started = ContinuousClock.now
                let decision = await liveUpgrade(request, address)
                // The access log's line (the router's AccessLog never sees an upgrade): the path
                // without its query, the status, the time the decision took.
                let path = (request.path ?? "").split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
                let status = (try? decision.get()).map { _ in 101 } ?? decision.failureStatus
                let elapsed = ContinuousClock.now - started
                logger.info("\(request.method) \(path) \(status) \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)ms (WebSocket)")
                switch decision {
                case .failure(let error):
                    await refuse(channel, ConnectionAnswer(status: error.status, contentType: error.contentType, body: error.body,
                                                           retryAfter: error.retryAfter))
                    return .dontUpgrade
                case .success(let session):
                    await removeTap(channel)
                    return .upgrade([:]) { inbound, outbound, _ in
                        await serveLive(session, inbound, outbound, channel)
                    }
                }
            }
            return ClubChildChannel(http1: channel, admission: admission, limits: limits, logger: logger)
        }
    }

    /// Makes the answer hummingbird-websocket gives a refused upgrade (a bare 400, then the
    /// connection closed) ours: `RefusedUpgradeAnswer` rewrites it on its way out.
    private static func refuse(_ channel: any Channel, _ answer: ConnectionAnswer) async {
        let placed = channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            guard let after: any ChannelHandler = (try? operations.handler(type: HTTPExchangeTap.self)) ?? (try? operations.handler(type: HTTPResponseEncoder.self))
            else { return }
            try operations.addHandler(RefusedUpgradeAnswer(answer: answer), position: .after(after))
        }
        try? await placed.get()
    }

    /// Takes `HTTPExchangeTap` out before the socket turns to WebSocket frames.
    private static func removeTap(_ channel: any Channel) async {
        let removed = channel.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
            guard let tap = try? channel.pipeline.syncOperations.handler(type: HTTPExchangeTap.self) else {
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            return channel.pipeline.syncOperations.removeHandler(tap)
        }
        try? await removed.get()
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress
        let limits = self.limits
        let decision = admission.admit(address)
        guard decision == .admitted else {
            return channel.eventLoop.makeCompletedFuture {
                let answer = ConnectionAnswer.tooManyConnections(retryAfter: limits.retryAfterSeconds)
                try channel.pipeline.syncOperations.addHandler(RefusingHandler(answer: answer, linger: TimeAmount(limits.linger)))
                return Value(channel: channel, http: nil)
            }
        }
        let admission = self.admission
        channel.closeFuture.whenComplete { _ in admission.release(address) }
        admission.track(channel)
        let serverLogger = self.logger
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(limits: limits, logger: serverLogger))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(HTTPExchangeTap(logger: serverLogger), position: .after(decoder))
            return Value(channel: channel, http: value)
        }
    }

    func handle(value: Value, logger: Logger) async {
        if let http = value.http {
            // Until its first request arrives, a connection waits in hummingbird-websocket's
            // upgrade step, which does not hear a graceful shutdown (Hummingbird's HTTP handler,
            // which closes idle connections then, is only put in place by that request): a
            // stopping server would wait on a connection opened and never used. It is closed.
            let channel = value.channel
            await withGracefulShutdownHandler {
                await http1.handle(value: http, logger: logger)
            } onGracefulShutdown: {
                channel.eventLoop.execute {
                    guard let guardHandler = try? channel.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self),
                          !guardHandler.sawRequest else { return }
                    channel.close(promise: nil)
                }
            }
        } else {
            // A refused connection: its handler closes it after the 503 and a short linger.
            try? await value.channel.closeFuture.get()
        }
    }
}

/// Puts a refused upgrade's answer (401, 409, 400 with Dropbox's error shape) in place of the
/// bare 400 that hummingbird-websocket writes for it; the library still closes the connection.
final class RefusedUpgradeAnswer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart
    let answer: ConnectionAnswer

    init(answer: ConnectionAnswer) { self.answer = answer }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: answer.status.code), headers: HTTPHeaders(answer.headerFields))
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            promise?.succeed(())
        case .end:
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
            context.write(wrapOutboundOut(.end(nil)), promise: promise)
        }
    }
}

private extension Result where Failure == APIError {
    /// The HTTP status of a refusal; 0 for a success.
    var failureStatus: Int {
        if case .failure(let error) = self { return error.status.code }
        return 0
    }
}
