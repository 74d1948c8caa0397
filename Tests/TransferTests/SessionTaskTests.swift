import Foundation
import LoopbackHTTP
import Transfer
import XCTest

/// Every task kind against a real HTTP server on a random loopback port.
final class SessionTaskTests: XCTestCase {
    var server: LoopbackServer!

    override func setUpWithError() throws {
        server = try LoopbackServer.startBlocking()
    }

    override func tearDownWithError() throws {
        try server?.shutdownBlocking()
    }

    func testDataTaskWithCompletionHandler() throws {
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let box = Box<(Data?, HTTPResponse?, TransferError?)>()
        let task = session.dataTask(with: Request(url: server.url("/bytes/100000"))) { data, response, error in
            dispatchPrecondition(condition: .onQueue(session.delegateQueue))
            box.put((data, response, error))
        }
        XCTAssertEqual(task.state, .suspended, "tasks are created suspended")
        XCTAssertEqual(server.stats.requestsStarted, 0)
        task.resume()
        let result = try XCTUnwrap(box.take())
        XCTAssertNil(result.2)
        XCTAssertEqual(result.1?.statusCode, 200)
        XCTAssertEqual(result.1?.value(forHeader: "etag"), "\"bytes-100000\"")
        XCTAssertEqual(result.0, pattern(100_000))
        XCTAssertEqual(task.state, .completed)
        XCTAssertEqual(task.countOfBytesReceived, 100_000)
        XCTAssertEqual(task.countOfBytesExpectedToReceive, 100_000)
    }

    func testDataTaskStreamsToDelegateInCoalescedChunks() throws {
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let size = 8 << 20
        let task = session.dataTask(with: server.url("/bytes/\(size)"))
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [nil])
        let state = recorder.state.withLock { $0 }
        XCTAssertEqual(state.bodies[task.taskIdentifier], pattern(size))
        XCTAssertEqual(state.offQueueCallbacks, 0)
        let dataEvents = state.events.filter { if case .data = $0 { return true } else { return false } }.count
        // Coalesced: far fewer hops than one per 16 KiB (which would be 512).
        XCTAssertLessThan(dataEvents, 128, "data callbacks should be coalesced, got \(dataEvents)")
        XCTAssertEqual(state.events.first, .response(task: task.taskIdentifier, status: 200))
        XCTAssertEqual(state.events.last, .completed(task: task.taskIdentifier, error: nil))
    }

    func testRedirectIsFollowed() throws {
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let box = Box<(Data?, HTTPResponse?, TransferError?)>()
        session.dataTask(with: Request(url: server.url("/redirect?to=/bytes/10"))) { box.put(($0, $1, $2)) }.resume()
        let result = try XCTUnwrap(box.take())
        XCTAssertNil(result.2)
        XCTAssertEqual(result.0, pattern(10))
        XCTAssertEqual(result.1?.statusCode, 200)
        XCTAssertEqual(result.1?.url.path, "/bytes/10")
    }

    func testUploadFromDataReportsMonotonicProgressEndingAtTheSize() throws {
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let body = pattern(3 << 20)
        let request = Request(url: server.url("/upload"), method: "POST", headers: ["Content-Type": "application/octet-stream"])
        let task = session.uploadTask(with: request, fromData: body)
        XCTAssertEqual(task.kind, .upload)
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [nil])
        let reply = try JSONDecoder().decode(UploadReply.self, from: recorder.state.withLock { $0.bodies[task.taskIdentifier] ?? Data() })
        XCTAssertEqual(reply.bytes, Int64(body.count))
        XCTAssertEqual(reply.fnv1a, fnv1a(body))
        let totals = recorder.sentTotals(of: task)
        XCTAssertFalse(totals.isEmpty)
        XCTAssertEqual(totals, totals.sorted(), "upload progress must never go backwards")
        XCTAssertEqual(totals.last, Int64(body.count), "the final progress value is the full size")
        XCTAssertEqual(task.countOfBytesSent, Int64(body.count))
        XCTAssertEqual(task.countOfBytesExpectedToSend, Int64(body.count))
    }

    func testUploadFromFileStreamsTheFile() throws {
        let recorder = Recorder()
        var configuration = SessionConfiguration.default
        // A bandwidth cap and a small upload buffer spread the upload over about a second,
        // so several progress events must arrive.
        configuration.maxSendBytesPerSecond = 4 << 20
        configuration.uploadBufferSize = 64 << 10
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let directory = try makeTemporaryDirectory(self)
        let file = directory.appendingPathComponent("body.bin")
        let body = pattern(4 << 20, from: 7)
        try body.write(to: file)
        let request = Request(url: server.url("/upload"), method: "PUT")
        let task = session.uploadTask(with: request, fromFile: file)
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]))
        XCTAssertEqual(recorder.completions(of: task), [nil])
        let reply = try JSONDecoder().decode(UploadReply.self, from: recorder.state.withLock { $0.bodies[task.taskIdentifier] ?? Data() })
        XCTAssertEqual(reply.bytes, Int64(body.count))
        XCTAssertEqual(reply.fnv1a, fnv1a(body))
        let totals = recorder.sentTotals(of: task)
        XCTAssertGreaterThan(totals.count, 3)
        XCTAssertEqual(totals, totals.sorted())
        XCTAssertEqual(totals.last, Int64(body.count))
        XCTAssertEqual(server.stats.requests.last?.method, "PUT")
        XCTAssertEqual(recorder.state.withLock { $0.offQueueCallbacks }, 0)
    }

    func testDownloadTaskHandsOverTheFileThenDeletesIt() throws {
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let size = 5 << 20
        let task = session.downloadTask(with: Request(url: server.url("/bytes/\(size)")))
        task.resume()
        XCTAssertTrue(recorder.waitForCompletion([task]))
        let state = recorder.state.withLock { $0 }
        XCTAssertEqual(state.downloads[task.taskIdentifier], pattern(size))
        let finishedIndex = try XCTUnwrap(state.events.firstIndex(of: .finished(task: task.taskIdentifier)))
        let completedIndex = try XCTUnwrap(state.events.firstIndex(of: .completed(task: task.taskIdentifier, error: nil)))
        XCTAssertLessThan(finishedIndex, completedIndex)
        let totals = recorder.writtenTotals(of: task)
        XCTAssertEqual(totals, totals.sorted())
        XCTAssertEqual(totals.last, Int64(size))
        let location = try XCTUnwrap(state.downloadLocations[task.taskIdentifier])
        XCTAssertFalse(FileManager.default.fileExists(atPath: location.path), "the temp file is removed after didFinishDownloadingTo")
    }

    func testAsyncVariants() async throws {
        let directory = try makeTemporaryDirectory(self)
        var configuration = SessionConfiguration.ephemeral
        configuration.temporaryDirectory = directory
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }

        let (data, response) = try await session.data(for: Request(url: server.url("/bytes/1000")))
        XCTAssertEqual(data, pattern(1000))
        XCTAssertEqual(response.statusCode, 200)

        let file = directory.appendingPathComponent("up.bin")
        let body = pattern(300_000)
        try body.write(to: file)
        let (replyData, _) = try await session.upload(for: Request(url: server.url("/upload"), method: "POST"), fromFile: file)
        XCTAssertEqual(try JSONDecoder().decode(UploadReply.self, from: replyData).fnv1a, fnv1a(body))

        let (memoryReply, _) = try await session.upload(for: Request(url: server.url("/upload"), method: "POST"), fromData: body)
        XCTAssertEqual(try JSONDecoder().decode(UploadReply.self, from: memoryReply).bytes, 300_000)

        let (location, downloadResponse) = try await session.download(for: Request(url: server.url("/bytes/70000")))
        XCTAssertEqual(downloadResponse.statusCode, 200)
        XCTAssertEqual(try Data(contentsOf: location), pattern(70000), "the caller owns the downloaded file")

        do {
            _ = try await session.data(for: Request(url: server.url("/status/404")))
            XCTFail("a 404 must throw")
        } catch {
            XCTAssertEqual(error, .httpStatus(404, body: Data("status 404".utf8)))
        }
    }

    func testAsyncCancellationCancelsTheTransfer() async throws {
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let url = server.url("/stall")
        let work = Task { try await session.data(for: Request(url: url)) }
        let started = await server.waitFor(timeout: 10) { $0.requestsStarted >= 1 }
        XCTAssertTrue(started)
        work.cancel()
        do {
            _ = try await work.value
            XCTFail("expected a cancel")
        } catch let error as TransferError {
            XCTAssertEqual(error, .cancelled)
        }
    }

    func testHeadersFromConfigurationAndRequest() throws {
        var configuration = SessionConfiguration.default
        configuration.additionalHeaders = ["Authorization": "Bearer from-config", "X-Club": "byteclub"]
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let box = Box<(Data?, HTTPResponse?, TransferError?)>()
        let request = Request(url: server.url("/echo"), method: "POST", headers: ["authorization": "Bearer from-request"], body: Data("hi".utf8))
        session.dataTask(with: request) { box.put(($0, $1, $2)) }.resume()
        let result = try XCTUnwrap(box.take())
        XCTAssertNil(result.2)
        let echo = try XCTUnwrap(JSONSerialization.jsonObject(with: result.0 ?? Data()) as? [String: Any])
        let headers = try XCTUnwrap(echo["headers"] as? [String: String])
        XCTAssertEqual(headers["authorization"], "Bearer from-request", "a request header overrides the session's")
        XCTAssertEqual(headers["x-club"], "byteclub")
        XCTAssertEqual(headers["user-agent"], "byteclub/0.1")
        XCTAssertNil(headers["expect"])
        XCTAssertEqual(echo["method"] as? String, "POST")
        XCTAssertEqual(echo["bodyBytes"] as? Int, 2)
    }

    func testHundredConcurrentSmallTasks() throws {
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let tasks = (0..<100).map { index in session.dataTask(with: server.url("/bytes/\(1000 + index)")) }
        XCTAssertEqual(Set(tasks.map(\.taskIdentifier)).count, 100, "task identifiers are unique")
        tasks.forEach { $0.resume() }
        XCTAssertTrue(recorder.waitForCompletion(tasks, timeout: 60))
        let state = recorder.state.withLock { $0 }
        for (index, task) in tasks.enumerated() {
            XCTAssertEqual(recorder.completions(of: task), [nil])
            XCTAssertEqual(state.bodies[task.taskIdentifier], pattern(1000 + index))
        }
        let stats = settledStats(server) { $0.requestsCompleted >= 100 }
        XCTAssertEqual(stats.requestsCompleted, 100)
        XCTAssertLessThanOrEqual(stats.connectionsAccepted, 100)
        XCTAssertEqual(state.offQueueCallbacks, 0)
    }
}
