import Dispatch
import Foundation
import LoopbackHTTP
import Synchronization
import Transfer
import XCTest

/// Byte i of the loopback server's `/bytes/N` body.
func pattern(_ count: Int, from start: Int = 0) -> Data {
    Data((start..<(start + count)).map { UInt8($0 % 251) })
}

/// FNV-1a 64, as the loopback server's `/upload` reports it.
func fnv1a(_ data: Data) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    return String(format: "%016llx", hash)
}

struct UploadReply: Decodable {
    var bytes: Int64
    var fnv1a: String
}

/// A scratch directory removed at the end of the test.
func makeTemporaryDirectory(_ testCase: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("transfer-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Records every delegate event, checking that each arrives on the delegate queue.
final class Recorder: SessionDelegate {
    enum Event: Equatable, Sendable {
        case sent(task: Int, total: Int64, expected: Int64)
        case response(task: Int, status: Int)
        case data(task: Int, count: Int)
        case wrote(task: Int, total: Int64, expected: Int64)
        case resumed(task: Int, offset: Int64, expected: Int64)
        case finished(task: Int)
        case completed(task: Int, error: TransferError?)
        case invalid
    }

    struct State: Sendable {
        var events: [Event] = []
        var bodies: [Int: Data] = [:]
        var downloads: [Int: Data] = [:]
        var downloadLocations: [Int: URL] = [:]
        var offQueueCallbacks = 0
    }

    let queue: DispatchQueue
    private let key = DispatchSpecificKey<String>()
    let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    /// Called from `didWriteData`/`didSendBodyData`, on the delegate queue.
    let onProgress = Mutex<(@Sendable (TransferTask, Int64) -> Void)?>(nil)

    init(label: String = "test.delegate") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: label)
    }

    private func record(_ event: Event, _ change: (inout State) -> Void = { _ in }) {
        // The design's main-thread rule: every callback runs on the delegate queue.
        dispatchPrecondition(condition: .onQueue(queue))
        let onQueue = DispatchQueue.getSpecific(key: key) != nil
        state.withLock { state in
            if !onQueue { state.offQueueCallbacks += 1 }
            state.events.append(event)
            change(&state)
        }
        signal.signal()
    }

    func session(_ session: Session, task: TransferTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        record(.sent(task: task.taskIdentifier, total: totalBytesSent, expected: totalBytesExpectedToSend))
        onProgress.withLock { $0 }?(task, totalBytesSent)
    }

    func session(_ session: Session, task: TransferTask, didReceive response: HTTPResponse) {
        record(.response(task: task.taskIdentifier, status: response.statusCode))
    }

    func session(_ session: Session, task: TransferTask, didReceive data: Data) {
        record(.data(task: task.taskIdentifier, count: data.count)) { $0.bodies[task.taskIdentifier, default: Data()].append(data) }
    }

    func session(_ session: Session, downloadTask: TransferTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        record(.wrote(task: downloadTask.taskIdentifier, total: totalBytesWritten, expected: totalBytesExpectedToWrite))
        onProgress.withLock { $0 }?(downloadTask, totalBytesWritten)
    }

    func session(_ session: Session, downloadTask: TransferTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        record(.resumed(task: downloadTask.taskIdentifier, offset: fileOffset, expected: expectedTotalBytes))
    }

    func session(_ session: Session, downloadTask: TransferTask, didFinishDownloadingTo location: URL) {
        let content = (try? Data(contentsOf: location)) ?? Data()
        record(.finished(task: downloadTask.taskIdentifier)) {
            $0.downloads[downloadTask.taskIdentifier] = content
            $0.downloadLocations[downloadTask.taskIdentifier] = location
        }
    }

    func session(_ session: Session, task: TransferTask, didCompleteWithError error: TransferError?) {
        record(.completed(task: task.taskIdentifier, error: error))
    }

    func session(_ session: Session, didBecomeInvalidWithError error: TransferError?) {
        record(.invalid)
    }

    var events: [Event] { state.withLock { $0.events } }

    /// Waits, with a deadline, until `condition` holds for the recorded state.
    @discardableResult
    func wait(timeout: TimeInterval = 20, until condition: (State) -> Bool) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while true {
            if state.withLock({ condition($0) }) { return true }
            if signal.wait(timeout: deadline) == .timedOut {
                return state.withLock { condition($0) }
            }
        }
    }

    func waitForCompletion(_ tasks: [TransferTask], timeout: TimeInterval = 20) -> Bool {
        let ids = Set(tasks.map(\.taskIdentifier))
        return wait(timeout: timeout) { state in
            ids.isSubset(of: Set(state.events.compactMap { if case .completed(let id, _) = $0 { return id } else { return nil } }))
        }
    }

    func completions(of task: TransferTask) -> [TransferError?] {
        events.compactMap { if case .completed(let id, let error) = $0, id == task.taskIdentifier { return error } else { return nil } }
    }

    func sentTotals(of task: TransferTask) -> [Int64] {
        events.compactMap { if case .sent(let id, let total, _) = $0, id == task.taskIdentifier { return total } else { return nil } }
    }

    func writtenTotals(of task: TransferTask) -> [Int64] {
        events.compactMap { if case .wrote(let id, let total, _) = $0, id == task.taskIdentifier { return total } else { return nil } }
    }
}

/// Waits for a completion handler's result, with a deadline.
final class Box<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)
    init() {}
    func put(_ newValue: T) {
        value.withLock { $0 = newValue }
        semaphore.signal()
    }
    func take(timeout: TimeInterval = 20) -> T? {
        _ = semaphore.wait(timeout: .now() + timeout)
        return value.withLock { $0 }
    }
}

/// A loopback port with nothing listening on it.
func closedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The server's counters once `condition` holds (polled for at most `timeout`), or as they are
/// then: the server counts an answer finished after its last byte went out, so a client can
/// see the answer a moment before the count moves.
func settledStats(_ server: LoopbackServer, timeout: TimeInterval = 5, until condition: (LoopbackStats) -> Bool) -> LoopbackStats {
    let deadline = Date().addingTimeInterval(timeout)
    var stats = server.stats
    while !condition(stats), Date() < deadline {
        usleep(5_000)
        stats = server.stats
    }
    return stats
}
