import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// Accepts TCP connections and writes fixed raw bytes, then closes: for testing a client against malformed HTTP.
///
/// Each connection waits for the end of the request head (or any bytes followed by EOF),
/// writes `reply`, sends FIN, and drains input until the client closes. Replying before the
/// request was read, or closing with unread input, would make the kernel send an RST, and
/// the client would see "connection reset" instead of the bytes under test.
public final class RawTCPServer: Sendable {
    /// The port the OS chose for the listening socket.
    public let port: Int

    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let acceptTask: Task<Void, Never>
    private let openChannels: ChannelRegistry
    private let isShutDown = Mutex(false)

    private init(
        port: Int,
        group: MultiThreadedEventLoopGroup,
        serverChannel: any Channel,
        acceptTask: Task<Void, Never>,
        openChannels: ChannelRegistry
    ) {
        self.port = port
        self.group = group
        self.serverChannel = serverChannel
        self.acceptTask = acceptTask
        self.openChannels = openChannels
    }

    /// Starts listening on 127.0.0.1 with an OS-chosen port; every connection gets `reply`.
    public static func start(reply: [UInt8]) async throws -> RawTCPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let registry = ChannelRegistry()
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            server = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .bind(host: "127.0.0.1", port: 0) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        registry.add(channel)
                        channel.closeFuture.whenComplete { _ in registry.remove(channel) }
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true)
                        )
                    }
                }
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        guard let port = server.channel.localAddress?.port else {
            try? await server.channel.close()
            try? await group.shutdownGracefully()
            throw LoopbackServerError.noLocalAddress
        }

        let replyBuffer = ByteBuffer(bytes: reply)
        let acceptTask = Task {
            await withDiscardingTaskGroup { connections in
                do {
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            connections.addTask { await serve(connection, reply: replyBuffer) }
                        }
                    }
                } catch {
                    // Only fails while the listening socket is being closed.
                }
            }
        }
        return RawTCPServer(
            port: port,
            group: group,
            serverChannel: server.channel,
            acceptTask: acceptTask,
            openChannels: registry
        )
    }

    /// Blocking variant of `start(reply:)` for XCTest `setUp`.
    public static func startBlocking(reply: [UInt8]) throws -> RawTCPServer {
        try runBlocking { try await start(reply: reply) }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Stops accepting, closes open connections and stops the event loop. Safe to call more than once.
    public func shutdown() async throws {
        let alreadyShutDown = isShutDown.withLock { done in
            defer { done = true }
            return done
        }
        if alreadyShutDown { return }
        acceptTask.cancel()
        try? await serverChannel.close()
        for channel in openChannels.all {
            channel.close(promise: nil)
        }
        await acceptTask.value
        try await group.shutdownGracefully()
    }

    /// Blocking variant of `shutdown()` for XCTest `tearDown`.
    public func shutdownBlocking() throws {
        try runBlocking { try await self.shutdown() }
    }

    private static func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, reply: ByteBuffer) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var iterator = inbound.makeAsyncIterator()
                var received = ByteBuffer()
                let headEnd: [UInt8] = Array("\r\n\r\n".utf8)
                while let chunk = try await iterator.next() {
                    received.writeImmutableBuffer(chunk)
                    if received.readableBytesView.firstRange(of: headEnd) != nil { break }
                }
                try await outbound.write(reply)
                outbound.finish()
                while try await iterator.next() != nil {}
            }
        } catch {
            // The client hanging up early is expected when it is fed garbage.
        }
    }
}

/// Open connections, so shutdown can close ones a client left idle.
final class ChannelRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        channels.withLock { $0[ObjectIdentifier(channel)] = channel }
    }

    func remove(_ channel: any Channel) {
        channels.withLock { $0[ObjectIdentifier(channel)] = nil }
    }

    var all: [any Channel] {
        channels.withLock { Array($0.values) }
    }
}
