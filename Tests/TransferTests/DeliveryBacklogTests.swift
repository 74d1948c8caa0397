import Foundation
import LoopbackHTTP
import Synchronization
@testable import Transfer
import XCTest

/// Issue 56: a delegate that takes a data task's body slower than it arrives (one that decrypts
/// it) holds the transfer back instead of the chunks piling up on its queue; and a body made as
/// it is sent (``UploadSource``) goes out as the source makes it.
final class DeliveryBacklogTests: XCTestCase {
    var server: LoopbackServer!

    override func setUpWithError() throws {
        server = try LoopbackServer.startBlocking()
    }

    override func tearDownWithError() throws {
        try server?.shutdownBlocking()
    }

    /// Takes nothing until the test opens the gate.
    final class Gate: SessionDelegate {
        let queue = DispatchQueue(label: "delivery-backlog-tests")
        let gate = DispatchSemaphore(value: 0)
        let first = Atomic<Bool>(true)
        let body = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        let error = Mutex<TransferError?>(nil)

        func session(_ session: Session, task: TransferTask, didReceive data: Data) {
            if first.exchange(false, ordering: .relaxed) { gate.wait() }
            body.withLock { $0.append(data) }
        }

        func session(_ session: Session, task: TransferTask, didCompleteWithError error: TransferError?) {
            self.error.withLock { $0 = error }
            done.signal()
        }
    }

    func testADelegateThatTakesNothingHoldsTheTransferBackThenGetsEveryByte() throws {
        let delegate = Gate()
        let session = Session(delegate: delegate, delegateQueue: delegate.queue)
        defer { session.finishTasksAndInvalidate() }
        let size = 64 << 20
        let task = session.dataTask(with: server.url("/bytes/\(size)"))
        task.resume()
        let deadline = Date().addingTimeInterval(20)
        while !task.waitingForDelegate.load(ordering: .sequentiallyConsistent), Date() < deadline { usleep(1_000) }
        XCTAssertTrue(task.waitingForDelegate.load(ordering: .sequentiallyConsistent), "the transfer paused for its delegate")
        // What waits for the delegate is the backlog and the chunk being gathered, not the body.
        XCTAssertLessThanOrEqual(task.countOfBytesReceived, Int64(EasyTransfer.maxDeliveryBacklog + 2 * EasyTransfer.maxPendingData))
        delegate.gate.signal()
        XCTAssertEqual(delegate.done.wait(timeout: .now() + 60), .success)
        XCTAssertNil(delegate.error.withLock { $0 })
        XCTAssertEqual(delegate.body.withLock { $0 }, pattern(size))
    }

    /// Bytes `i % 251`, made as they are read: the same bytes `/bytes/N` serves.
    final class Pattern: UploadSource {
        let length: Int64
        init(_ length: Int64) { self.length = length }

        final class Reader: UploadSourceReader {
            var position: Int64
            let end: Int64
            init(_ start: Int64, _ end: Int64) { position = start; self.end = end }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
                let count = Int(min(Int64(buffer.count), end - position))
                for index in 0..<count { buffer[index] = UInt8((position + Int64(index)) % 251) }
                position += Int64(count)
                return count
            }
            func seek(to offset: Int64) -> Bool { false }
        }

        func reader(offset: Int64, length: Int64) throws -> any UploadSourceReader { Reader(offset, offset + length) }
    }

    func testABodyMadeAsItIsSentArrivesWhole() throws {
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let source = Pattern(5 << 20)
        let reply = Mutex<(Data?, TransferError?)>((nil, nil))
        let done = DispatchSemaphore(value: 0)
        let task = session.uploadTask(with: Request(url: server.url("/upload"), method: "PUT"), fromSource: source, offset: 1 << 20,
                                      length: 3 << 20) { data, _, error in
            reply.withLock { $0 = (data, error) }
            done.signal()
        }
        task.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let (data, error) = reply.withLock { $0 }
        XCTAssertNil(error)
        let answer = try JSONSerialization.jsonObject(with: try XCTUnwrap(data)) as? [String: Any]
        let sent = Data(((1 << 20)..<(4 << 20)).map { UInt8($0 % 251) })
        XCTAssertEqual(answer?["bytes"] as? Int, sent.count)
        XCTAssertEqual(answer?["fnv1a"] as? String, fnv1a(sent))
    }
}
