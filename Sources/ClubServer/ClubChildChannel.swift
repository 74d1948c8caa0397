import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

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
struct ClubChildChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
        /// Nil for a refused connection, which never reaches the router.
        let http: HTTP1Channel.Value?
    }

    let http1: HTTP1Channel
    let admission: ConnectionAdmission
    let limits: ConnectionLimits
    let logger: Logger

    /// The builder `Application` takes; it hands over the router's responder.
    static func builder(limits: ConnectionLimits, admission: ConnectionAdmission, logger: Logger) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
                maxHeaderFieldSize: limits.maxHeaderBytes, maxHeaderListSize: limits.maxHeaderBytes)
            // Hummingbird's own idle timeout stays off: ConnectionGuardHandler has finer ones.
            let configuration = HTTP1Channel.Configuration(idleTimeout: nil, httpDecoderConfiguration: decoder)
            return ClubChildChannel(http1: HTTP1Channel(responder: responder, configuration: configuration),
                                    admission: admission, limits: limits, logger: logger)
        }
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
            await http1.handle(value: http, logger: logger)
        } else {
            // A refused connection: its handler closes it after the 503 and a short linger.
            try? await value.channel.closeFuture.get()
        }
    }
}
