import Foundation
import LoopbackHTTP
import XCTest

/// Drives the server with the curl CLI, an independent HTTP implementation, so the server is
/// not only tested against the client it exists to test.
///
/// Tests are synchronous on purpose: waiting for curl blocks the calling thread, and doing that
/// inside the small cooperative pool would starve the server's own handler tasks.
final class LoopbackHTTPTests: XCTestCase {
    private var server: LoopbackServer!
    private var scratch: URL!

    override func setUpWithError() throws {
        server = try LoopbackServer.startBlocking()
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("LoopbackHTTPTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try server?.shutdownBlocking()
        server = nil
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    // MARK: /bytes

    func testBytesFullBodyAndHeaders() throws {
        let result = try curl(server.url("/bytes/1000"))
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.body, pattern(0..<1000))
        XCTAssertEqual(result.header("content-length"), "1000")
        XCTAssertEqual(result.header("etag"), "\"bytes-1000\"")
        XCTAssertEqual(result.header("last-modified"), "Sat, 21 Nov 2026 12:00:00 GMT")
        XCTAssertEqual(result.header("accept-ranges"), "bytes")
    }

    func testBytesInSmallChunksStillExact() throws {
        let result = try curl(server.url("/bytes/1000003?chunk=4093"))
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.body, pattern(0..<1_000_003))
    }

    func testBytesLargerThanPatternBufferSlicesCorrectly() throws {
        // Crosses the shared pattern buffer's length with a chunk size bigger than it.
        let result = try curl(server.url("/bytes/3000000?chunk=2000000"), extra: ["-H", "Range: bytes=7-"])
        XCTAssertEqual(result.status, 206)
        XCTAssertEqual(result.body, pattern(7..<3_000_000))
    }

    func testEmptyBody() throws {
        let result = try curl(server.url("/bytes/0"))
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.body.count, 0)
        XCTAssertEqual(result.header("content-length"), "0")
    }

    func testClosedRange() throws {
        let result = try curl(server.url("/bytes/300"), extra: ["-H", "Range: bytes=250-254"])
        XCTAssertEqual(result.status, 206)
        XCTAssertEqual(result.header("content-range"), "bytes 250-254/300")
        XCTAssertEqual(result.header("content-length"), "5")
        XCTAssertEqual(result.body, [250, 0, 1, 2, 3])
    }

    func testOpenEndedRangeAndClampedEnd() throws {
        let open = try curl(server.url("/bytes/1000"), extra: ["-H", "Range: bytes=990-"])
        XCTAssertEqual(open.status, 206)
        XCTAssertEqual(open.header("content-range"), "bytes 990-999/1000")
        XCTAssertEqual(open.body, pattern(990..<1000))

        let clamped = try curl(server.url("/bytes/1000"), extra: ["-H", "Range: bytes=995-5000"])
        XCTAssertEqual(clamped.status, 206)
        XCTAssertEqual(clamped.header("content-range"), "bytes 995-999/1000")
        XCTAssertEqual(clamped.body, pattern(995..<1000))
    }

    func testUnsatisfiableRange() throws {
        let result = try curl(server.url("/bytes/300"), extra: ["-H", "Range: bytes=300-"])
        XCTAssertEqual(result.status, 416)
        XCTAssertEqual(result.header("content-range"), "bytes */300")
        XCTAssertEqual(result.body.count, 0)
    }

    func testIfRangeMatchingValidatorsHonourRange() throws {
        for validator in ["\"bytes-100\"", "Sat, 21 Nov 2026 12:00:00 GMT"] {
            let result = try curl(
                server.url("/bytes/100"),
                extra: ["-H", "Range: bytes=10-19", "-H", "If-Range: \(validator)"]
            )
            XCTAssertEqual(result.status, 206, validator)
            XCTAssertEqual(result.body, pattern(10..<20), validator)
        }
    }

    func testIfRangeMismatchSendsFullBody() throws {
        let result = try curl(
            server.url("/bytes/100?etag=v2"),
            extra: ["-H", "Range: bytes=10-19", "-H", "If-Range: \"bytes-100\""]
        )
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.header("etag"), "\"v2\"")
        XCTAssertNil(result.header("content-range"))
        XCTAssertEqual(result.body, pattern(0..<100))
    }

    func testRangesDisabled() throws {
        let result = try curl(server.url("/bytes/100?ranges=0"), extra: ["-H", "Range: bytes=10-19"])
        XCTAssertEqual(result.status, 200)
        XCTAssertNil(result.header("accept-ranges"))
        XCTAssertEqual(result.body, pattern(0..<100))
    }

    func testHeadRequestSendsNoBody() throws {
        // curl -I writes the headers to the output file, so check there is nothing after them:
        // stray body bytes would also break the keep-alive follow-up request.
        let result = try curl(server.url("/bytes/5000"), server.url("/bytes/5"), extra: ["-I"])
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.header("content-length"), "5")
        XCTAssertTrue(String(decoding: result.body, as: UTF8.self).hasSuffix("\r\n\r\n"))
        XCTAssertLessThan(result.body.count, 1000)
        XCTAssertEqual(server.stats.connectionsAccepted, 1)
    }

    // MARK: /upload

    func testUploadCountsAndHashes() throws {
        var payload = [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 17)
        var generator = SystemRandomNumberGenerator()
        for i in payload.indices { payload[i] = UInt8.random(in: 0...255, using: &generator) }
        let file = scratch.appendingPathComponent("payload")
        try Data(payload).write(to: file)

        // PUT via -T (curl sends Expect: 100-continue for this size) and POST via --data-binary.
        let put = try curl(server.url("/upload"), extra: ["-T", file.path])
        let post = try curl(server.url("/upload"), extra: ["--data-binary", "@" + file.path])
        for result in [put, post] {
            XCTAssertEqual(result.status, 200)
            XCTAssertEqual(result.header("content-type"), "application/json")
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any])
            XCTAssertEqual(json["bytes"] as? Int, payload.count)
            XCTAssertEqual(json["fnv1a"] as? String, fnv1a(payload))
        }

        let stats = server.stats
        XCTAssertEqual(stats.bodyBytesReceived, 2 * Int64(payload.count))
        XCTAssertEqual(stats.requests.map(\.method), ["PUT", "POST"])
        XCTAssertEqual(stats.requests.map(\.bodyBytes), [Int64(payload.count), Int64(payload.count)])
        XCTAssertTrue(stats.requests.allSatisfy(\.completed))
        XCTAssertEqual(stats.abortedRequests, 0)
    }

    func testEmptyUploadHashIsOffsetBasis() throws {
        let result = try curl(server.url("/upload"), extra: ["-X", "POST"])
        XCTAssertEqual(String(decoding: result.body, as: UTF8.self), #"{"bytes":0,"fnv1a":"cbf29ce484222325"}"#)
    }

    func testCancelledSlowUploadCountsAsAborted() throws {
        // Large enough that curl is still sending when -m fires; zeros are fine, the file is sparse.
        let file = scratch.appendingPathComponent("sparse")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 64 * 1024 * 1024)
        try handle.close()

        let result = try curl(server.url("/upload?delay_ms=5"), extra: ["-T", file.path, "-m", "0.5"])
        XCTAssertEqual(result.exitCode, 28)  // operation timed out
        // The client's kernel still flushes what it had buffered before the FIN arrives.
        XCTAssertTrue(server.waitForBlocking(timeout: 10) { $0.abortedRequests == 1 && $0.openConnections == 0 })
        let stats = server.stats
        XCTAssertEqual(stats.requestsCompleted, 0)
        XCTAssertEqual(stats.requests.first?.completed, false)
        XCTAssertLessThan(stats.bodyBytesReceived, 64 * 1024 * 1024)
    }

    // MARK: Other routes

    func testStatusRoutes() throws {
        let notFound = try curl(server.url("/status/404"))
        XCTAssertEqual(notFound.status, 404)
        XCTAssertEqual(String(decoding: notFound.body, as: UTF8.self), "status 404")
        XCTAssertTrue(notFound.header("content-type")?.hasPrefix("text/plain") ?? false)

        let throttled = try curl(server.url("/status/429"))
        XCTAssertEqual(throttled.status, 429)
        XCTAssertEqual(throttled.header("retry-after"), "1")

        let noContent = try curl(server.url("/status/204"))
        XCTAssertEqual(noContent.status, 204)
        XCTAssertEqual(noContent.body.count, 0)
    }

    func testUnknownPathIs404() throws {
        let result = try curl(server.url("/nope"))
        XCTAssertEqual(result.status, 404)
        XCTAssertEqual(String(decoding: result.body, as: UTF8.self), "not found")
    }

    func testEchoReportsRequest() throws {
        let result = try curl(
            server.url("/echo?a=1"),
            extra: ["-X", "PUT", "-H", "X-Custom: Hello \"there\"", "--data-binary", "12345"]
        )
        XCTAssertEqual(result.status, 200)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any])
        XCTAssertEqual(json["method"] as? String, "PUT")
        XCTAssertEqual(json["uri"] as? String, "/echo?a=1")
        XCTAssertEqual(json["bodyBytes"] as? Int, 5)
        let headers = try XCTUnwrap(json["headers"] as? [String: String])
        XCTAssertEqual(headers["x-custom"], "Hello \"there\"")

        let recorded = try XCTUnwrap(server.stats.requests.first)
        XCTAssertEqual(recorded.header("X-CUSTOM"), "Hello \"there\"")
        XCTAssertEqual(recorded.uri, "/echo?a=1")
    }

    func testRedirectIsFollowable() throws {
        let result = try curl(server.url("/redirect?to=/bytes/10"), extra: ["-L"])
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.body, pattern(0..<10))
        XCTAssertEqual(server.stats.requests.map(\.uri), ["/redirect?to=/bytes/10", "/bytes/10"])
    }

    func testResetDeliversPrefixThenFails() throws {
        let result = try curl(server.url("/reset?total=100000&after=5000"))
        XCTAssertNotEqual(result.exitCode, 0)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.body, pattern(0..<5000))
    }

    func testStallHoldsUntilClientLeaves() throws {
        let result = try curl(server.url("/stall"), extra: ["-m", "0.3"])
        XCTAssertEqual(result.exitCode, 28)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.body.count, 0)
        XCTAssertTrue(server.waitForBlocking(timeout: 5) { $0.openConnections == 0 })
        XCTAssertEqual(server.stats.requestsCompleted, 0)
    }

    func testStallHeadSendsNothing() throws {
        let result = try curl(server.url("/stall-head"), extra: ["-m", "0.3"])
        XCTAssertEqual(result.exitCode, 28)
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(server.waitForBlocking(timeout: 5) { $0.openConnections == 0 })
    }

    func testTrickleSendsPatternBytesSlowly() throws {
        let result = try curl(server.url("/trickle?interval_ms=20"), extra: ["-m", "0.5"])
        XCTAssertEqual(result.exitCode, 28)
        XCTAssertEqual(result.header("content-length"), "100000000")
        XCTAssertGreaterThan(result.body.count, 2)
        XCTAssertLessThan(result.body.count, 100)
        XCTAssertEqual(result.body, pattern(0..<result.body.count))
    }

    // MARK: Connections

    func testKeepAliveReusesOneConnection() throws {
        let result = try curl(server.url("/bytes/10"), server.url("/status/404"))
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertTrue(server.waitForBlocking(timeout: 5) { $0.requestsCompleted == 2 })
        XCTAssertEqual(server.stats.connectionsAccepted, 1)
        XCTAssertEqual(server.stats.requestsStarted, 2)
    }

    func testConnectionCloseStillDeliversWholeBody() throws {
        let result = try curl(server.url("/bytes/4000000"), extra: ["-H", "Connection: close"])
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertEqual(result.header("connection"), "close")
        XCTAssertEqual(result.body, pattern(0..<4_000_000))
        XCTAssertTrue(server.waitForBlocking(timeout: 5) { $0.openConnections == 0 && $0.requestsCompleted == 1 })
    }

    func testConcurrentConnectionsAreCounted() throws {
        let urls = (0..<3).map { _ in server.url("/delay/300") }
        let result = try curl(urls, extra: ["-Z", "--parallel-immediate"])
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertTrue(server.waitForBlocking(timeout: 5) { $0.requestsCompleted == 3 })
        XCTAssertEqual(server.stats.maxConcurrentConnections, 3)
        XCTAssertEqual(server.stats.connectionsAccepted, 3)
    }

    func testResetStatsKeepsOpenConnectionCount() throws {
        _ = try curl(server.url("/bytes/10"))
        XCTAssertTrue(server.waitForBlocking(timeout: 5) { $0.openConnections == 0 })
        server.resetStats()
        let stats = server.stats
        XCTAssertEqual(stats.connectionsAccepted, 0)
        XCTAssertEqual(stats.requestsStarted, 0)
        XCTAssertTrue(stats.requests.isEmpty)
        XCTAssertEqual(stats.openConnections, 0)
    }

    func testAsyncWaitForAndShutdownWithHeldConnection() async throws {
        let local = try await LoopbackServer.start()
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        client.arguments = ["-s", "-o", "/dev/null", local.url("/stall-head").absoluteString]
        client.standardOutput = FileHandle.nullDevice
        client.standardError = FileHandle.nullDevice
        try client.run()
        defer {
            if client.isRunning { client.terminate() }
            client.waitUntilExit()
        }

        let started = await local.waitFor(timeout: 5) { $0.requestsStarted == 1 && $0.openConnections == 1 }
        XCTAssertTrue(started)
        let notYet = await local.waitFor(timeout: 0.05) { $0.requestsCompleted == 1 }
        XCTAssertFalse(notYet)

        // Shutdown must not wait for the client to give up on the held request.
        let begin = ContinuousClock.now
        try await local.shutdown()
        XCTAssertLessThan(ContinuousClock.now - begin, .seconds(2))
        try await local.shutdown()  // idempotent
    }

    // MARK: RawTCPServer

    func testRawServerGarbageFailsClient() throws {
        let raw = try RawTCPServer.startBlocking(reply: Array("this is not http\r\n\r\n".utf8))
        defer { try? raw.shutdownBlocking() }
        let result = try curl(raw.baseURL.appendingPathComponent("x"))
        XCTAssertNotEqual(result.exitCode, 0)
    }

    func testRawServerTruncatedBodyFailsClient() throws {
        let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8)
        let raw = try RawTCPServer.startBlocking(reply: reply)
        defer { try? raw.shutdownBlocking() }
        let result = try curl(raw.baseURL.appendingPathComponent("x"))
        XCTAssertEqual(result.exitCode, 18)  // partial file: the bytes arrived, then a clean EOF
        XCTAssertEqual(result.body, Array("abc".utf8))
    }

    // MARK: Helpers

    private struct CurlResult {
        var exitCode: Int32
        var status: Int
        /// Header block of the last response (curl writes one per response with -D).
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.last { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    private func curl(_ urls: URL..., extra: [String] = []) throws -> CurlResult {
        try curl(urls, extra: extra)
    }

    private func curl(_ urls: [URL], extra: [String] = []) throws -> CurlResult {
        let id = UUID().uuidString
        let bodyFile = scratch.appendingPathComponent("body-\(id)")
        let headerFile = scratch.appendingPathComponent("headers-\(id)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        var arguments = ["-s", "-D", headerFile.path, "-w", "%{http_code}\n", "--noproxy", "*"]
        arguments += extra
        for url in urls {
            arguments += ["-o", bodyFile.path, url.absoluteString]
        }
        process.arguments = arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Read before waiting so a full pipe can never block curl.
        let written = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()

        let codes = String(decoding: written, as: UTF8.self).split(separator: "\n")
        let headerText = (try? String(contentsOf: headerFile, encoding: .isoLatin1)) ?? ""
        // Only the final response's block: 100 Continue and redirects each add one.
        let lastBlock = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        let headers = lastBlock.components(separatedBy: "\r\n").dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]),
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        let body = (try? Data(contentsOf: bodyFile)).map { [UInt8]($0) } ?? []
        return CurlResult(
            exitCode: process.terminationStatus,
            status: codes.last.flatMap { Int($0) } ?? -1,
            headers: headers,
            body: body
        )
    }

    private func pattern(_ range: Range<Int>) -> [UInt8] {
        range.map { UInt8($0 % 251) }
    }

    private func fnv1a(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
