import Hummingbird
import Logging
import ServiceLifecycle

/// A Hummingbird application a test runs in the background, stopped gracefully.
///
/// Cancelling the task that runs `runService` can trap in swift-nio ("Deinited NIOAsyncWriter
/// without calling finish()", apple/swift-nio#3481) when a connection was accepted but not yet
/// handed to the server: a test's server stopped while its client still connected took a whole
/// test process down under load. A graceful shutdown serves or closes every accepted connection
/// first, so stopping is safe at any moment.
public final class GracefulServer: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    public init<S: Service>(_ service: S) {
        var logger = Logger(label: "test-server")
        logger.logLevel = .critical
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        self.group = group
        task = Task { try await group.run() }
    }

    /// Stops accepting; requests in flight finish in the background. Returns at once.
    public func stop() {
        let group = self.group
        Task { await group.triggerGracefulShutdown() }
    }

    /// Stops accepting and returns once the requests in flight have finished.
    public func stopAndWait() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
