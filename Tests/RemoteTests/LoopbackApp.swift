import Foundation
import Hummingbird
import Logging
import Synchronization
import TestSupport

/// Runs `router` on a random loopback port until the returned server is stopped, and answers
/// the base URL (`http://127.0.0.1:PORT`) once the server listens: the start every scripted
/// test server in this target shares (FakeNotifyDropbox, FolderETagServer, GeneratedMultistatusServer).
func runOnLoopback(_ router: Router<BasicRequestContext>, label: String) async -> (URL, GracefulServer) {
    let port = Mutex<Int?>(nil)
    let ready = DispatchSemaphore(value: 0)
    var logger = Logger(label: label)
    logger.logLevel = .critical
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port }; ready.signal() }, logger: logger)
    let task = GracefulServer(app)
    // Waited for off the cooperative pool: the semaphore blocks its thread.
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            _ = ready.wait(timeout: .now() + 20)
            continuation.resume()
        }
    }
    return (URL(string: "http://127.0.0.1:\(port.withLock { $0 } ?? 0)")!, task)
}
