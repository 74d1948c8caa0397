import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A TLS-terminating proxy on 127.0.0.1 with a certificate of its own: what an attacker on the
/// café's Wi-Fi (or a corporate middlebox) puts between a client and its server.
///
/// It completes the handshake with whatever client comes, decrypts, counts every request byte
/// that reaches it (`requestBytes`), and relays them over a new TLS connection to the real
/// server, and the answers back. A client that trusts any certificate goes through it and
/// its request shows in the count; a client that pins the real server's key must stop in the
/// handshake, so the count stays zero.
public final class TLSInterceptor: Sendable {
    public let port: Int
    private let counter: ByteCounter
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    /// Decrypted request bytes received from clients so far.
    public var requestBytes: Int { counter.bytes.load(ordering: .relaxed) }

    public init(certificatePEM: String, privateKeyPEM: String, upstreamPort: Int) throws {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8))
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        let serverContext = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                                       privateKey: .privateKey(key)))
        var upstreamConfiguration = TLSConfiguration.makeClientConfiguration()
        // The interceptor trusts anything upstream: it is the attacker, not a careful client.
        upstreamConfiguration.certificateVerification = .none
        let upstreamContext = try NIOSSLContext(configuration: upstreamConfiguration)
        let counter = ByteCounter()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { client in
                client.eventLoop.makeCompletedFuture {
                    let downstream = Relay(counter: counter)
                    try client.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: serverContext))
                    try client.pipeline.syncOperations.addHandler(downstream)
                    let bound = NIOLoopBound(downstream, eventLoop: client.eventLoop)
                    ClientBootstrap(group: client.eventLoop)
                        .channelInitializer { server in
                            server.eventLoop.makeCompletedFuture {
                                try server.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: upstreamContext, serverHostname: nil))
                                try server.pipeline.syncOperations.addHandler(Relay(partner: client))
                            }
                        }
                        .connect(host: "127.0.0.1", port: upstreamPort)
                        .whenComplete { result in
                            switch result {
                            case .success(let server): bound.value.attach(server)
                            case .failure: client.close(promise: nil)
                            }
                        }
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        self.port = channel.localAddress?.port ?? 0
        self.counter = counter
        self.group = group
        self.channel = channel
    }

    public func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Decrypted bytes counted across connections.
final class ByteCounter: Sendable {
    let bytes = Atomic<Int>(0)
}

/// Copies what one side reads to its partner, holding it until the partner is connected.
/// Both channels of a pair share one event loop, so no lock is needed.
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: (any Channel)?
    private var pending: [ByteBuffer] = []
    private let counter: ByteCounter?

    init(counter: ByteCounter) {
        self.counter = counter
    }

    init(partner: any Channel) {
        self.partner = partner
        self.counter = nil
    }

    func attach(_ partner: any Channel) {
        self.partner = partner
        for buffer in pending { partner.write(buffer, promise: nil) }
        pending.removeAll()
        partner.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        counter?.bytes.add(buffer.readableBytes, ordering: .relaxed)
        if let partner {
            partner.writeAndFlush(buffer, promise: nil)
        } else {
            pending.append(buffer)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
