import Dispatch
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A scriptable HTTP/1.1 server on 127.0.0.1 for networking tests and benchmarks.
///
/// Routes (any method unless noted; responses are keep-alive unless the client sent
/// `Connection: close`; request bodies are always read and counted before the response):
/// - `/bytes/N`: N bytes, byte i == UInt8(i % 251), with `ETag` (`"bytes-N"`, or `"E"` for
///   `?etag=E`), `Last-Modified`, `Accept-Ranges: bytes`; honours `Range: bytes=A-`, `A-B`, `-S`
///   (206 / 416) unless `?ranges=0`, and `If-Range`. `?chunk=K` (default 256 KiB) and
///   `?delay_ms=D` pace the body.
/// - `/upload` (POST/PUT): replies `{"bytes":N,"fnv1a":"<16 hex>"}`. `?delay_ms=D` sleeps after
///   each body part of at most `?part=K` bytes (default 64 KiB); `?hash=0` skips the hash, which
///   otherwise limits uploads to what one core can hash (about 0.9 GB/s).
/// - `/stall`: 200 head with `Content-Length: 100`, then nothing. `/stall-head`: nothing at all.
/// - `/trickle?interval_ms=I`: `Content-Length: 100000000`, one byte every I ms (default 100).
/// - `/reset?total=M&after=N`: `Content-Length: M`, N pattern bytes, then a TCP reset once the
///   client has acknowledged them (`&fin=1` closes with FIN instead).
/// - `/status/CODE`: CODE with body `status CODE` (429 adds `Retry-After: 1`).
/// - `/echo`: JSON with method, uri, lowercased headers and body byte count.
/// - `/delay/MS`: `ok` after MS ms.
/// - `/redirect?to=PATH&code=302`: redirect to PATH (default `/bytes/10`).
/// - anything else: 404 `not found`.
///
/// Each connection is served by its own child task; all sockets share one dedicated
/// event-loop thread, so the server takes that thread plus its handler tasks from the code
/// under test, and nothing from NIO's global singleton group.
public final class LoopbackServer: Sendable {
    /// The port the OS chose for the listening socket.
    public let port: Int

    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let acceptTask: Task<Void, Never>
    private let recorder: StatsRecorder
    private let isShutDown = Mutex(false)

    private init(
        port: Int,
        group: MultiThreadedEventLoopGroup,
        serverChannel: any Channel,
        acceptTask: Task<Void, Never>,
        recorder: StatsRecorder
    ) {
        self.port = port
        self.group = group
        self.serverChannel = serverChannel
        self.acceptTask = acceptTask
        self.recorder = recorder
    }

    static let recvAllocator = AdaptiveRecvByteBufferAllocator(
        minimum: 1024,
        initial: 64 * 1024,
        maximum: 1024 * 1024
    )

    /// Starts listening on 127.0.0.1 with an OS-chosen port.
    public static func start() async throws -> LoopbackServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let recorder = StatsRecorder()
        let server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        do {
            server = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                // Small responses must not sit in Nagle's buffer waiting for an ACK.
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                // Bigger reads and a deeper write buffer than NIO's defaults (64 KiB reads,
                // 64 KiB high watermark) mean fewer event-loop/task hand-offs per megabyte;
                // on loopback that took a 1 GiB download from 2.4-4.5 GB/s to about 5 GB/s.
                .childChannelOption(.recvAllocator, value: recvAllocator)
                .childChannelOption(
                    .writeBufferWaterMark,
                    value: .init(low: 512 * 1024, high: 2 * 1024 * 1024)
                )
                .bind(host: "127.0.0.1", port: 0) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // Counted here, on the event loop, rather than in the handler task so
                        // the figures track the sockets exactly, not task scheduling.
                        recorder.connectionOpened(channel)
                        channel.closeFuture.whenComplete { _ in
                            recorder.connectionClosed(channel)
                        }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                            withPipeliningAssistance: true,
                            withErrorHandling: true
                        )
                        return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(
                                backPressureStrategy: .init(lowWatermark: 4, highWatermark: 32)
                            )
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

        let acceptTask = Task {
            await withDiscardingTaskGroup { connections in
                do {
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            connections.addTask {
                                await ConnectionHandler(recorder: recorder).run(connection)
                            }
                        }
                    }
                } catch {
                    // The listening socket only fails when it is being closed; nothing to report.
                }
            }
        }

        return LoopbackServer(
            port: port,
            group: group,
            serverChannel: server.channel,
            acceptTask: acceptTask,
            recorder: recorder
        )
    }

    /// Blocking variant of `start()` for XCTest `setUp` and command-line tools.
    ///
    /// Do not call it from a task on the cooperative pool: it blocks the calling thread.
    public static func startBlocking() throws -> LoopbackServer {
        try runBlocking { try await start() }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// `baseURL` followed by `pathAndQuery`, e.g. `url("/bytes/10?x=1")`.
    public func url(_ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        return URL(string: "http://127.0.0.1:\(port)" + suffix)!
    }

    /// A consistent snapshot of the counters and recorded requests.
    public var stats: LoopbackStats {
        recorder.snapshot
    }

    /// Zeroes the counters and forgets recorded requests; `openConnections` keeps tracking live sockets.
    ///
    /// Counters then count events after the reset, so a request already in flight may still
    /// add to `requestsCompleted` or `bodyBytesReceived` without appearing in `requests`.
    public func resetStats() {
        recorder.reset()
    }

    /// Polls every 5 ms until `condition(stats)` holds or `timeout` passes; returns whether it held.
    public func waitFor(timeout: TimeInterval, _ condition: @Sendable (LoopbackStats) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if condition(stats) { return true }
            if ContinuousClock.now >= deadline || Task.isCancelled { return false }
            // A cancelled sleep returns at once; the isCancelled check above ends the loop then.
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Blocking variant of `waitFor(timeout:_:)`; polls every 5 ms on the calling thread.
    public func waitForBlocking(timeout: TimeInterval, _ condition: (LoopbackStats) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if condition(stats) { return true }
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// Stops accepting, closes every open connection, waits for handlers to finish and stops the event loop.
    ///
    /// Safe to call more than once.
    public func shutdown() async throws {
        let alreadyShutDown = isShutDown.withLock { done in
            defer { done = true }
            return done
        }
        if alreadyShutDown { return }

        // Cancelling wakes handlers sleeping in /delay or between chunks; closing the sockets
        // wakes those waiting on the client (/stall) or on writability.
        acceptTask.cancel()
        try? await serverChannel.close()
        for channel in recorder.openChannels {
            channel.close(promise: nil)
        }
        await acceptTask.value
        try await group.shutdownGracefully()
    }

    /// Blocking variant of `shutdown()` for XCTest `tearDown`.
    public func shutdownBlocking() throws {
        try runBlocking { try await self.shutdown() }
    }
}

enum LoopbackServerError: Error {
    case noLocalAddress
}

/// Runs `body` on the cooperative pool and blocks the calling thread until it finishes.
///
/// Only for synchronous entry points (XCTest setUp/tearDown, `main`); calling it from inside
/// the cooperative pool could starve the pool of the thread `body` needs.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        box.result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try box.result.withLock { $0! }.get()
}

/// Hands a result from the detached task back to the blocked caller.
private final class ResultBox<T: Sendable>: Sendable {
    let result = Mutex<Result<T, any Error>?>(nil)
}
