import Foundation
import LoopbackHTTP
import Transfer
import XCTest

/// Every fault ends in one typed error, on the delegate queue, without a crash.
final class SessionFaultTests: XCTestCase {
    var server: LoopbackServer!
    var recorder: Recorder!
    var session: Session!
    var directory: URL!

    override func setUpWithError() throws {
        server = try LoopbackServer.startBlocking()
        recorder = Recorder()
        directory = try makeTemporaryDirectory(self)
        var configuration = SessionConfiguration.default
        configuration.temporaryDirectory = directory
        configuration.timeoutIntervalForRequest = 10
        session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
    }

    override func tearDownWithError() throws {
        session?.invalidateAndCancel()
        try server?.shutdownBlocking()
    }

    /// Runs the task and returns its single error.
    private func failure(of task: TransferTask, file: StaticString = #filePath, line: UInt = #line) -> TransferError? {
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]), "task did not complete", file: file, line: line)
        let completions = recorder.completions(of: task)
        XCTAssertEqual(completions.count, 1, "an error is delivered exactly once", file: file, line: line)
        XCTAssertEqual(recorder.state.withLock { $0.offQueueCallbacks }, 0, file: file, line: line)
        XCTAssertEqual(task.error, completions.first ?? nil, file: file, line: line)
        return completions.first ?? nil
    }

    /// The files in the temp dir once discarded partial files are gone. Completion is queued
    /// before a discarded file is unlinked (so a cancel is heard at once); poll with a deadline.
    private func settledTemporaryFiles(expecting expected: Int = 0) -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while temporaryFiles().count > expected, Date() < deadline {
            _ = recorder.wait(timeout: 0.01) { _ in false }
        }
        return temporaryFiles()
    }

    private func temporaryFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }

    func testRefusedConnection() throws {
        let port = closedPort()
        let error = failure(of: session.dataTask(with: URL(string: "http://127.0.0.1:\(port)/x")!))
        XCTAssertEqual(error, .cannotConnect(host: "127.0.0.1:\(port)", detail: "connection refused"))
        XCTAssertEqual(error?.isTransient, true)
    }

    func testDNSFailure() throws {
        let error = failure(of: session.dataTask(with: URL(string: "http://no-such-host.invalid/x")!))
        XCTAssertEqual(error, .dnsFailure(host: "no-such-host.invalid"))
    }

    func testTLSFailure() throws {
        // TLS to a plain-HTTP port: the handshake fails.
        let url = URL(string: "https://127.0.0.1:\(server.port)/bytes/10")!
        guard case .tlsFailure(let detail)? = failure(of: session.dataTask(with: url)) else {
            return XCTFail("expected a TLS failure")
        }
        XCTAssertFalse(detail.isEmpty)
    }

    func testResetInMidBody() throws {
        let task = session.downloadTask(with: Request(url: server.url("/reset?after=65536&total=1048576")))
        guard case .connectionLost? = failure(of: task) else {
            return XCTFail("expected a lost connection, got \(String(describing: task.error))")
        }
        // This reply had no ETag or Last-Modified to resume against, so nothing is kept.
        XCTAssertNil(task.resumeDataAfterFailure)
        XCTAssertEqual(settledTemporaryFiles(), [])
    }

    func testADownloadCutOffByATimeoutKeepsResumeData() throws {
        var configuration = SessionConfiguration.default
        configuration.temporaryDirectory = directory
        configuration.timeoutIntervalForResource = 0.5
        let other = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { other.finishTasksAndInvalidate() }
        let size = 4 << 20
        let task = other.downloadTask(with: Request(url: server.url("/bytes/\(size)?chunk=16384&delay_ms=20")))
        XCTAssertEqual(failure(of: task), .timedOut(.resource, seconds: 0.5))
        // The partial file is kept only because resume data refers to it.
        let data = try XCTUnwrap(task.resumeDataAfterFailure)
        let resume = try ResumeData.decode(data).get()
        XCTAssertGreaterThan(resume.offset, 0)
        XCTAssertEqual(temporaryFiles(), [URL(fileURLWithPath: resume.temporaryPath).lastPathComponent])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: resume.temporaryPath)), pattern(Int(resume.offset)))

        let resumeRecorder = Recorder()
        let resumeSession = Session(delegate: resumeRecorder, delegateQueue: resumeRecorder.queue)
        defer { resumeSession.finishTasksAndInvalidate() }
        let resumed = resumeSession.downloadTask(withResumeData: data)
        resumed.resume()
        XCTAssertTrue(resumeRecorder.waitForCompletion([resumed]))
        XCTAssertEqual(resumeRecorder.completions(of: resumed), [nil])
        XCTAssertEqual(resumeRecorder.state.withLock { $0.downloads[resumed.taskIdentifier] }, pattern(size))
    }

    func testNon2xxStatusKeepsTheBodyForTheCaller() throws {
        let error = failure(of: session.dataTask(with: server.url("/status/409")))
        XCTAssertEqual(error, .httpStatus(409, body: Data("status 409".utf8)))
        let rateLimited = failure(of: session.dataTask(with: server.url("/status/429")))
        XCTAssertEqual(rateLimited?.isTransient, true)
    }

    func testNon2xxDownloadWritesNoFile() throws {
        let task = session.downloadTask(with: Request(url: server.url("/status/404")))
        XCTAssertEqual(failure(of: task), .httpStatus(404, body: Data("status 404".utf8)))
        XCTAssertFalse(recorder.events.contains(.finished(task: task.taskIdentifier)))
        XCTAssertEqual(settledTemporaryFiles(), [])
    }

    func testMissingUploadFile() throws {
        let missing = directory.appendingPathComponent("nope.bin")
        let error = failure(of: session.uploadTask(with: Request(url: server.url("/upload"), method: "POST"), fromFile: missing))
        XCTAssertEqual(error, .fileNotFound(path: missing.path))
        XCTAssertEqual(server.stats.requestsStarted, 0, "nothing is sent for a file that is not there")
    }

    func testUploadOfADirectoryIsRefused() throws {
        let error = failure(of: session.uploadTask(with: Request(url: server.url("/upload"), method: "POST"), fromFile: directory))
        XCTAssertEqual(error, .cannotReadFile(path: directory.path, reason: "not a regular file"))
    }

    func testUnwritableDownloadDirectory() throws {
        // A directory under a regular file cannot exist, even for root.
        let blocker = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        var configuration = SessionConfiguration.default
        configuration.temporaryDirectory = blocker.appendingPathComponent("sub")
        let other = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { other.finishTasksAndInvalidate() }
        guard case .cannotWriteFile(let path, let reason)? = failure(of: other.downloadTask(with: Request(url: server.url("/bytes/10")))) else {
            return XCTFail("expected cannotWriteFile")
        }
        XCTAssertTrue(path.hasPrefix(blocker.path))
        XCTAssertEqual(reason, "Not a directory")
    }

    func testCorruptResumeData() throws {
        let error = failure(of: session.downloadTask(withResumeData: Data("{garbage".utf8)))
        XCTAssertEqual(error, .invalidResumeData(reason: "the resume data is corrupt"))
        XCTAssertEqual(server.stats.requestsStarted, 0)
    }

    func testStaleResumeDataWhosePartialFileIsGone() throws {
        let stale = ResumeData(version: 1, url: server.url("/bytes/100"), method: "GET", headers: [:], offset: 50,
                               expectedLength: 100, etag: "\"bytes-100\"", lastModified: nil,
                               temporaryPath: directory.appendingPathComponent("gone.download").path)
        guard case .invalidResumeData(let reason)? = failure(of: session.downloadTask(withResumeData: stale.encoded())) else {
            return XCTFail("expected invalidResumeData")
        }
        XCTAssertTrue(reason.contains("is gone"), reason)
    }

    func testMalformedHTTPReply() throws {
        let garbage = try RawTCPServer.startBlocking(reply: Array("SPDY/9 what\r\n\r\nnonsense".utf8))
        defer { try? garbage.shutdownBlocking() }
        guard case .malformedResponse? = failure(of: session.dataTask(with: garbage.baseURL.appendingPathComponent("x"))) else {
            return XCTFail("expected malformedResponse")
        }
    }

    func testCancelledDownloadLeavesNoTemporaryFile() throws {
        let task = session.downloadTask(with: Request(url: server.url("/bytes/\(8 << 20)?chunk=65536&delay_ms=2")))
        recorder.onProgress.withLock { $0 = { task, written in if written > 0 { task.cancel() } } }
        XCTAssertEqual(failure(of: task), .cancelled)
        XCTAssertEqual(settledTemporaryFiles(), [])
    }
}
