import Logging
import NIOCore
import NIOHTTP1

/// Sits right after the HTTP/1.1 decoder and watches requests and answers go by.
///
/// - It tells `ConnectionGuardHandler` where a request head, a request and an answer end, which
///   is all the timeouts need to know of HTTP.
/// - A malformed request (a head over the size cap, bytes HTTP does not allow) is answered here:
///   431 in JSON for an oversize head, else a plain-text 400, then the connection is closed with a
///   linger. Hummingbird would answer an empty 400 and then hold a half-closed socket.
/// - An answer that must end its connection (a 413: the rest of an oversize body is not worth
///   reading; or any answer saying `Connection: close`) closes it once written.
final class HTTPExchangeTap: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let logger: Logger
    private var guardHandler: ConnectionGuardHandler?
    private var guardContext: ChannelHandlerContext?
    /// Requests whose head arrived and whose answer has not ended.
    private var answersPending = 0
    private var closeAfterAnswer = false
    /// Set once a malformed request was answered: the decoder is done for, ignore what it says.
    private var answeredMalformed = false

    init(logger: Logger) {
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guardHandler = try? context.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self)
        guardContext = try? context.pipeline.syncOperations.context(handlerType: ConnectionGuardHandler.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guardHandler = nil
        guardContext = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            answersPending += 1
            if let guardHandler, let guardContext { guardHandler.headReceived(context: guardContext) }
        case .body:
            break
        case .end:
            if let guardHandler, let guardContext { guardHandler.requestEnded(context: guardContext) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            if head.status == .payloadTooLarge || head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) {
                closeAfterAnswer = true
                head.headers.replaceOrAdd(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
            context.write(data, promise: promise)
        case .end:
            answersPending = max(0, answersPending - 1)
            if let guardHandler, let guardContext { guardHandler.answerEnded(context: guardContext) }
            guard closeAfterAnswer, answersPending == 0 else {
                context.write(data, promise: promise)
                return
            }
            closeAfterAnswer = false
            closeOnceWritten(context, data: data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if answeredMalformed { return }
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard answersPending == 0 else {
            // Inside a request (a broken chunked body): its endpoint reads the error and answers
            // 400; the decoder cannot go on, so that answer ends the connection.
            closeAfterAnswer = true
            context.fireErrorCaught(error)
            return
        }
        answeredMalformed = true
        let answer: ConnectionAnswer = parseError == .headerOverflow
            ? .headerTooLarge
            : .malformedRequest("the request is not valid HTTP/1.1 (\(parseError))")
        logger.debug("answering a malformed request \(answer.status.code): \(parseError)",
                     metadata: ["peer": "\(context.channel.remoteAddress?.ipAddress ?? "?")"])
        var headers = HTTPHeaders()
        for (name, value) in answer.headerFields { headers.add(name: name, value: value) }
        let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: answer.status.code), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
        closeOnceWritten(context, data: wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Writes an answer's last part, then shuts the output; `ConnectionGuardHandler` lingers and closes.
    private func closeOnceWritten(_ context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(data, promise: written)
        written.futureResult.assumeIsolated().whenComplete { result in
            promise?.completeWith(result)
            context.close(mode: .output, promise: nil)
        }
    }
}
