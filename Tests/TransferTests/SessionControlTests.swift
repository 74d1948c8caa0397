import Foundation
import LoopbackHTTP
import Synchronization
import Transfer
import XCTest

/// Cancel, suspend, resume data, timeouts, limits and invalidation.
final class SessionControlTests: XCTestCase {
    var server: LoopbackServer!

    override func setUpWithError() throws {
        server = try LoopbackServer.startBlocking()
    }

    override func tearDownWithError() throws {
        try server?.shutdownBlocking()
    }

    func testCancelMidUploadAbortsTheRequestOnTheServer() throws {
        let recorder = Recorder()
        var configuration = SessionConfiguration.default
        configuration.maxSendBytesPerSecond = 1 << 20
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let directory = try makeTemporaryDirectory(self)
        let file = directory.appendingPathComponent("big.bin")
        try pattern(16 << 20).write(to: file)
        let task = session.uploadTask(with: Request(url: server.url("/upload"), method: "POST"), fromFile: file)
        recorder.onProgress.withLock { $0 = { task, sent in if sent >= 256 << 10 { task.cancel() } } }
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [.cancelled], "completed exactly once, as cancelled")
        XCTAssertEqual(task.error, .cancelled)
        XCTAssertLessThan(task.countOfBytesSent, 16 << 20)
        let aborted = server.waitForBlocking(timeout: 10) { $0.abortedRequests == 1 }
        XCTAssertTrue(aborted, "the server must see the upload aborted, stats: \(server.stats.abortedRequests)")
        XCTAssertEqual(server.stats.requestsCompleted, 0)
    }

    func testCancelBeforeResumeCompletesWithoutANetworkRequest() throws {
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/bytes/10"))
        task.cancel()
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [.cancelled])
        XCTAssertEqual(server.stats.requestsStarted, 0)
    }

    func testSuspendStopsTheTransferAndResumeFinishesIt() throws {
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let size = 4 << 20
        let task = session.downloadTask(with: Request(url: server.url("/bytes/\(size)?chunk=65536&delay_ms=2")))
        let suspended = Mutex(false)
        recorder.onProgress.withLock { $0 = { task, written in
            if written >= 512 << 10, suspended.withLock({ done in defer { done = true }; return !done }) { task.suspend() }
        } }
        task.resume()
        XCTAssertTrue(recorder.wait { _ in task.state == .suspended })
        // While suspended, bytes stop moving: curl holds at most what is already buffered.
        let atSuspend = task.countOfBytesReceived
        let quiet = XCTestExpectation(description: "no completion while suspended")
        quiet.isInverted = true
        let watcher = DispatchSource.makeTimerSource()
        watcher.schedule(deadline: .now(), repeating: .milliseconds(20))
        watcher.setEventHandler { if task.state == .completed { quiet.fulfill() } }
        watcher.activate()
        wait(for: [quiet], timeout: 0.5)
        watcher.cancel()
        XCTAssertLessThanOrEqual(task.countOfBytesReceived - atSuspend, 1 << 20, "a suspended task must not keep receiving")
        XCTAssertEqual(task.state, .suspended)
        task.resume()
        XCTAssertEqual(task.state, .running)
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [nil])
        XCTAssertEqual(recorder.state.withLock { $0.downloads[task.taskIdentifier] }, pattern(size))
    }

    /// Cancels a slow download once `threshold` bytes are in and returns its resume data.
    private func cancelForResumeData(_ url: URL, threshold: Int64, temporaryDirectory: URL) throws -> Data {
        let recorder = Recorder()
        var configuration = SessionConfiguration.default
        configuration.temporaryDirectory = temporaryDirectory
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        let box = Box<Data?>()
        let cancelled = Mutex(false)
        recorder.onProgress.withLock { $0 = { task, written in
            if written >= threshold, cancelled.withLock({ done in defer { done = true }; return !done }) {
                task.cancel(byProducingResumeData: { data in
                    dispatchPrecondition(condition: .onQueue(recorder.queue))
                    box.put(data)
                })
            }
        } }
        let task = session.downloadTask(with: Request(url: url))
        task.resume()
        let resumeData = try XCTUnwrap(box.take() ?? nil, "resume data must be produced")
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [.cancelled])
        session.invalidateAndCancel()
        XCTAssertTrue(recorder.wait { $0.events.last == .invalid })
        return resumeData
    }

    func testResumeDataContinuesInANewSessionWithRange() throws {
        let directory = try makeTemporaryDirectory(self)
        let size = 6 << 20
        let url = server.url("/bytes/\(size)?chunk=65536&delay_ms=2")
        let data = try cancelForResumeData(url, threshold: 1 << 20, temporaryDirectory: directory)
        let resume = try ResumeData.decode(data).get()
        XCTAssertGreaterThanOrEqual(resume.offset, 1 << 20)
        XCTAssertEqual(resume.etag, "\"bytes-\(size)\"")
        XCTAssertTrue(FileManager.default.fileExists(atPath: resume.temporaryPath), "resume data keeps its partial file")

        // As if after a restart: a brand-new session, fed only the bytes.
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.downloadTask(withResumeData: data)
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [nil])
        let state = recorder.state.withLock { $0 }
        XCTAssertEqual(state.downloads[task.taskIdentifier], pattern(size), "the resumed file is byte-identical")
        XCTAssertTrue(state.events.contains(.resumed(task: task.taskIdentifier, offset: resume.offset, expected: Int64(size))))
        let last = try XCTUnwrap(server.stats.requests.last)
        XCTAssertEqual(last.header("Range"), "bytes=\(resume.offset)-")
        XCTAssertEqual(last.header("If-Range"), "\"bytes-\(size)\"")
        XCTAssertEqual(task.response?.statusCode, 206)
        XCTAssertEqual(recorder.writtenTotals(of: task).last, Int64(size))
    }

    func testResumeStartsAgainWhenTheServerSendsTheWholeFile() throws {
        let directory = try makeTemporaryDirectory(self)
        let size = 3 << 20
        let data = try cancelForResumeData(server.url("/bytes/\(size)?chunk=65536&delay_ms=2&etag=v1"), threshold: 512 << 10, temporaryDirectory: directory)
        var resume = try ResumeData.decode(data).get()
        // The file changed on the server: its ETag no longer matches, so If-Range yields a 200.
        resume.url = server.url("/bytes/\(size)?etag=v2")
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.downloadTask(withResumeData: resume.encoded())
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [nil])
        XCTAssertEqual(task.response?.statusCode, 200)
        let state = recorder.state.withLock { $0 }
        XCTAssertTrue(state.events.contains(.resumed(task: task.taskIdentifier, offset: 0, expected: Int64(size))))
        XCTAssertEqual(state.downloads[task.taskIdentifier], pattern(size))
    }

    func testIdleTimeout() throws {
        let recorder = Recorder()
        var configuration = SessionConfiguration.default
        configuration.timeoutIntervalForRequest = 1
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/stall"))
        let start = Date()
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task], timeout: 15))
        XCTAssertEqual(recorder.completions(of: task), [.timedOut(.idle, seconds: 1)])
        // Within about a second of the limit (curl's own low-speed check alone took about 6 s).
        XCTAssertLessThan(Date().timeIntervalSince(start), 3.5)
    }

    func testResourceTimeoutEvenWhileDataKeepsFlowing() throws {
        let recorder = Recorder()
        var configuration = SessionConfiguration.default
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 1.5
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/trickle?interval_ms=50"))
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task], timeout: 15))
        XCTAssertEqual(recorder.completions(of: task), [.timedOut(.resource, seconds: 1.5)])
        XCTAssertGreaterThan(task.countOfBytesReceived, 0, "bytes were flowing, so only the total timeout can have fired")
    }

    func testMaximumConnectionsPerHost() throws {
        let recorder = Recorder()
        var configuration = SessionConfiguration.default
        configuration.maximumConnectionsPerHost = 2
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let tasks = (0..<6).map { _ in session.dataTask(with: server.url("/delay/150")) }
        tasks.forEach { $0.resume() }
        XCTAssertTrue(recorder.waitForCompletion(tasks))
        XCTAssertTrue(tasks.allSatisfy { recorder.completions(of: $0) == [nil] })
        let stats = settledStats(server) { $0.requestsCompleted >= 6 }
        XCTAssertEqual(stats.requestsCompleted, 6)
        XCTAssertEqual(stats.maxConcurrentConnections, 2, "six slow requests with a limit of two")
    }

    func testReceiveBandwidthLimit() throws {
        let recorder = Recorder()
        var configuration = SessionConfiguration.default
        configuration.maxReceiveBytesPerSecond = 2 << 20
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let start = Date()
        let size = 8 << 20
        let task = session.downloadTask(with: Request(url: server.url("/bytes/\(size)")))
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [nil])
        XCTAssertEqual(recorder.state.withLock { $0.downloads[task.taskIdentifier]?.count }, size)
        // A lower bound only: curl limits the average rate, so even after a first burst into
        // the kernel's buffers, 8 MiB at 2 MiB/s cannot end much before 4 s.
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 2.0)
    }

    func testFinishTasksAndInvalidateDeliversInvalidLast() throws {
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        let tasks = (0..<3).map { index in session.dataTask(with: server.url("/delay/\(50 * (index + 1))")) }
        tasks.forEach { $0.resume() }
        session.finishTasksAndInvalidate()
        XCTAssertTrue(recorder.wait { $0.events.contains(.invalid) })
        let events = recorder.events
        XCTAssertEqual(events.last, .invalid)
        XCTAssertEqual(events.filter { $0 == .invalid }.count, 1)
        for task in tasks {
            XCTAssertEqual(recorder.completions(of: task), [nil], "running tasks finish normally")
        }
        // New work is refused, with a typed error delivered to the completion handler.
        let box = Box<TransferError?>()
        session.dataTask(with: Request(url: server.url("/bytes/1"))) { _, _, error in box.put(error) }.resume()
        XCTAssertEqual(box.take(), .sessionInvalidated)
    }

    func testInvalidateAndCancelCancelsRunningTasksFirst() throws {
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        let tasks = (0..<3).map { _ in session.dataTask(with: server.url("/stall")) }
        tasks.forEach { $0.resume() }
        XCTAssertTrue(server.waitForBlocking(timeout: 10) { $0.requestsStarted == 3 })
        session.invalidateAndCancel()
        XCTAssertTrue(recorder.wait { $0.events.contains(.invalid) })
        XCTAssertEqual(recorder.events.last, .invalid)
        for task in tasks {
            XCTAssertEqual(recorder.completions(of: task), [.cancelled])
        }
    }
}
