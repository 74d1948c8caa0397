import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import X509

extension ServerIdentity {
    /// What a TLS server shows before anything is trusted: whether the system's CAs vouch for
    /// it under `host`, and else the pin of its key, for trust on first use (the person compares
    /// it with the fingerprint `byteclub serve` printed before it is kept).
    public enum Probe: Sendable, Equatable {
        /// A certificate the system trusts for this name: checked as any HTTPS site is.
        case trustedByCA
        /// A certificate of its own (or one for another name): this is its key's pin.
        case unknownKey(pin: String)
    }

    /// Two handshakes at most, nothing sent after either: one checking the certificate as a
    /// browser would, and, when that fails, one accepting anything to read the key.
    public static func probe(host: String, port: Int) async throws -> Probe {
        if (try? await handshake(host: host, port: port, verify: true)) != nil { return .trustedByCA }
        guard let certificate = try await handshake(host: host, port: port, verify: false) else {
            throw IdentityError("\(host):\(port) showed no certificate")
        }
        return .unknownKey(pin: try pin(of: Certificate(derEncoded: certificate.toDERBytes())))
    }

    private static func handshake(host: String, port: Int, verify: Bool) async throws -> NIOSSLCertificate? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if !verify { configuration.certificateVerification = .none }
        let context = try NIOSSLContext(configuration: configuration)
        // SNI and the name check want a name; an address is checked against the certificate's IP entries.
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
                    try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(done: channel.eventLoop.makePromise()))
                }
            }
            .connect(host: host, port: port).get()
        defer { channel.close(promise: nil) }
        let waiter = try await channel.pipeline.handler(type: HandshakeWaiter.self).get()
        try await waiter.done.futureResult.get()
        return try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
        }.get()
    }
}

/// Completes when the handshake does, or fails with its error.
private final class HandshakeWaiter: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let done: EventLoopPromise<Void>

    init(done: EventLoopPromise<Void>) {
        self.done = done
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { done.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}
