import ClubServer
import Foundation
import Synchronization
import XCTest

/// Connections that stall, crowd or overflow get closed with a clear answer, while the server
/// goes on answering everyone else. Timeouts are short here (1 s) so the tests stay fast.
final class ConnectionLimitTests: XCTestCase {
    private var club: ServerFixture?
    private var limited: ClubServer?

    override func tearDown() async throws {
        await limited?.stop()
        await club?.tearDown()
    }

    /// A club folder with its usual server (`club.server`, default limits) and a second server on
    /// the same folder and token with `change`d limits, which the tests below stress.
    private func start(_ change: (inout ConnectionLimits) -> Void = { _ in }) async throws -> (club: ServerFixture, server: ClubServer) {
        let club = try await ServerFixture()
        self.club = club
        var configuration = ClubServerConfiguration(root: club.root.path, token: club.token)
        configuration.logger.logLevel = .warning
        change(&configuration.limits)
        let server = try await ClubServer.start(configuration)
        limited = server
        return (club, server)
    }

    /// One request on a new connection of its own; its answer.
    private static func exchange(port: Int, _ request: String) async throws -> TestSocket.Answer {
        try await TestSocket.onThread {
            let socket = try TestSocket(port: port)
            try socket.send(request)
            return try socket.readAnswer()
        }
    }

    private static func shortLimits(perClient: Int = 0) -> ConnectionLimits {
        var limits = ConnectionLimits()
        limits.idleTimeout = .seconds(1)
        limits.headerTimeout = .seconds(1)
        limits.bodyTimeout = .seconds(1)
        limits.maxConnectionsPerClient = perClient
        return limits
    }

    private func request(_ club: ServerFixture, _ path: String, json: String, close: Bool = false) -> String {
        "POST /\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(club.token)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(json.utf8.count)\r\n\(close ? "Connection: close\r\n" : "")\r\n\(json)"
    }

    // MARK: Stalls

    func testThreeHundredStalledConnectionsAreClosedWhileOthersAreServed() async throws {
        let (club, server) = try await start { $0 = Self.shortLimits() }
        try club.write("byteclub/a.txt", "a")
        let port = server.port
        let token = club.token
        let tempFolder = club.root.appendingPathComponent(".byteclub/tmp").path

        // 75 each: nothing at all; half a head; a whole head and half an upload's body; one
        // answered request and then nothing.
        let upload = "POST /2/files/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
            + "Dropbox-API-Arg: {\"path\":\"/byteclub/stalled.bin\",\"mode\":\"add\"}\r\n"
            + "Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "x", count: 50_000)
        let metadataRequest = request(club, "2/files/get_metadata", json: #"{"path":"/byteclub/a.txt"}"#)
        let finished = Flag()
        let stalling = Task { () throws -> (answered: [Int], closed: [Closing]) in
            defer { finished.set() }
            return try await TestSocket.onThread { () -> (answered: [Int], closed: [Closing]) in
                var sockets: [(String, TestSocket)] = []
                var answeredStatuses: [Int] = []
                for index in 0..<300 {
                    let socket = try TestSocket(port: port)
                    switch index % 4 {
                    case 0: sockets.append(("silent", socket))
                    case 1: try socket.send("POST /2/files/list_folder HTTP/1.1\r\nHost: x\r\nAuthoriz"); sockets.append(("half head", socket))
                    case 2: try socket.send(upload); sockets.append(("half body", socket))
                    default:
                        try socket.send(metadataRequest)
                        answeredStatuses.append(try socket.readAnswer().status)
                        sockets.append(("kept alive", socket))
                    }
                }
                // Every socket must be closed by the server: timeout (1 s) + linger (≤ 0.5 s when quiet) + slack.
                var closed: [Closing] = []
                let start = Date()
                for (kind, socket) in sockets {
                    let (data, _) = try socket.readUntilClosed(timeout: 8 - Date().timeIntervalSince(start))
                    closed.append(Closing(kind: kind, after: Date().timeIntervalSince(start), said: String(decoding: data.prefix(20), as: UTF8.self)))
                }
                return (answeredStatuses, closed)
            }
        }

        // Meanwhile a member lists the folder again and again, and is answered every time.
        var served = 0
        var slowest = 0.0
        while true {
            let began = Date()
            let reply = try await Self.exchange(port: port, request(club, "2/files/list_folder", json: #"{"path":"/byteclub"}"#))
            XCTAssertEqual(reply.status, 200)
            served += 1
            slowest = max(slowest, Date().timeIntervalSince(began))
            if finished.isSet { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let (answered, closed) = try await stalling.value
        XCTAssertEqual(answered, [Int](repeating: 200, count: 75))
        XCTAssertGreaterThan(served, 5)
        // A bound for "still answered", not a speed figure: wide enough for a loaded 2-core CI.
        XCTAssertLessThan(slowest, 3, "list_folder stays quick under 300 stalled connections")
        XCTAssertEqual(closed.count, 300)
        for kind in ["silent", "half head", "half body", "kept alive"] {
            let these = closed.filter { $0.kind == kind }
            XCTAssertEqual(these.count, 75)
            for one in these {
                if kind == "half head" {
                    XCTAssertTrue(one.said.hasPrefix("HTTP/1.1 408 "), "a half head gets 408, not \(one.said.debugDescription)")
                } else {
                    XCTAssertEqual(one.said, "", "\(kind): closed without a word")
                }
            }
            let last = these.map(\.after).max() ?? 0
            print("300 stalled connections: the \(kind) ones were all closed \(String(format: "%.2f", last)) s after the last opened")
        }

        // The stalled uploads left no temp files, and wrote nothing.
        let deadline = Date().addingTimeInterval(5)
        var left: [String] = []
        repeat {
            left = ((try? FileManager.default.contentsOfDirectory(atPath: tempFolder)) ?? []).filter { $0.hasPrefix("upload-") }
            if left.isEmpty { break }
            try await Task.sleep(for: .milliseconds(20))
        } while Date() < deadline
        XCTAssertEqual(left, [], "stalled uploads' temp files are removed")
        XCTAssertNil(club.read("byteclub/stalled.bin"))
        // And the server let go of every one of them (after its short linger).
        try await waitUntil { server.openConnections == 0 }
    }

    func testAHeadTrickledInIsStillTimedFromItsFirstByte() async throws {
        let (_, server) = try await start { $0 = Self.shortLimits() }
        let port = server.port
        let (seconds, said) = try await TestSocket.onThread { () -> (Double, String) in
            let socket = try TestSocket(port: port)
            let start = Date()
            // One byte every 200 ms would keep a per-read timer alive forever.
            for byte in "POST /2/files/list_folder HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8 + Array(repeating: UInt8(ascii: "s"), count: 100) {
                guard (try? socket.send(Data([byte]))) != nil, Date().timeIntervalSince(start) < 4 else { break }
                // Pacing the client under test (the trickle is the point), not a wait for the server.
                Thread.sleep(forTimeInterval: 0.2)
                do {
                    if let answer = try socket.receive(timeout: 0) {
                        return (Date().timeIntervalSince(start), String(decoding: answer.prefix(20), as: UTF8.self))
                    }
                    return (Date().timeIntervalSince(start), "closed without a word")
                } catch {
                    // Nothing yet: keep trickling.
                }
            }
            return (Date().timeIntervalSince(start), "nothing")
        }
        XCTAssertTrue(said.hasPrefix("HTTP/1.1 408 "), said)
        XCTAssertLessThan(seconds, 2.5, "408 about one header timeout after the first byte")
    }

    func testABodyThatKeepsMovingIsNotCutOff() async throws {
        let (club, server) = try await start { $0 = Self.shortLimits() }
        let port = server.port
        let token = club.token
        let answer = try await TestSocket.onThread { () -> TestSocket.Answer in
            let socket = try TestSocket(port: port)
            try socket.send("POST /2/files/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                + "Dropbox-API-Arg: {\"path\":\"/byteclub/slow.txt\",\"mode\":\"add\"}\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: 10\r\n\r\n")
            // 2.5 s in all, each piece well inside the 1 s body timeout.
            for _ in 0..<10 {
                // Pacing the client under test, not a wait for the server.
                Thread.sleep(forTimeInterval: 0.25)
                try socket.send("s")
            }
            return try socket.readAnswer()
        }
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(club.read("byteclub/slow.txt"), "ssssssssss")
    }

    // MARK: Caps

    func testTheCapPerClientAddressAnswers503WithRetryAfter() async throws {
        let (club, server) = try await start { $0.maxConnectionsPerClient = 4 }
        try club.write("byteclub/a.txt", "a")
        let port = server.port
        let get = request(club, "2/files/get_metadata", json: #"{"path":"/byteclub/a.txt"}"#)
        var held: [TestSocket]? = try await TestSocket.onThread { try (0..<4).map { _ in try TestSocket(port: port) } }
        try await waitUntil { server.openConnections == 4 }

        let refused = try await TestSocket.onThread { () -> (TestSocket.Answer, Double) in
            let socket = try TestSocket(port: port)
            try socket.send(get)
            let answer = try socket.readAnswer()
            let (_, seconds) = try socket.readUntilClosed(timeout: 5)
            return (answer, seconds)
        }
        XCTAssertEqual(refused.0.status, 503)
        XCTAssertEqual(refused.0.headers["retry-after"], "2")
        XCTAssertEqual(refused.0.headers["content-type"], "application/json")
        XCTAssertEqual(refused.0.json?["error_summary"] as? String, "too_many_connections/..")
        let error = refused.0.json?["error"] as? [String: Any]
        XCTAssertEqual((error?["reason"] as? [String: Any])?[".tag"] as? String, "too_many_connections")
        XCTAssertEqual(error?["retry_after"] as? Int, 2)
        XCTAssertLessThan(refused.1, 2, "and closed")

        // Another address is a different client.
        let other = try await TestSocket.onThread { () -> Int in
            let socket = try TestSocket(port: port, source: "127.0.0.2")
            try socket.send(get)
            return try socket.readAnswer().status
        }
        XCTAssertEqual(other, 200)

        // Once the four close, the first address is served again.
        held = nil
        XCTAssertNil(held)
        try await waitUntil { server.openConnections == 0 }
        let again = try await TestSocket.onThread { () -> Int in
            let socket = try TestSocket(port: port)
            try socket.send(get)
            return try socket.readAnswer().status
        }
        XCTAssertEqual(again, 200)
    }

    func testTheTotalCapAnswers503AndTheServerRecovers() async throws {
        let (club, server) = try await start { limits in
            limits.maxConnections = 6
            limits.maxConnectionsPerClient = 0
        }
        let port = server.port
        var held: [TestSocket]? = try await TestSocket.onThread { try (0..<6).map { _ in try TestSocket(port: port) } }
        try await waitUntil { server.openConnections == 6 }
        let status = try await TestSocket.onThread { () -> Int in
            let socket = try TestSocket(port: port, source: "127.0.0.3")
            try socket.send("POST /2/files/list_folder HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
            return try socket.readAnswer().status
        }
        XCTAssertEqual(status, 503)
        XCTAssertEqual(server.maxConnections, 6)
        held = nil
        XCTAssertNil(held)
        try await waitUntil { server.openConnections == 0 }
        let reply = try await Self.exchange(port: port, request(club, "2/files/list_folder", json: #"{"path":""}"#))
        XCTAssertEqual(reply.status, 200)
    }

    // MARK: Oversize

    func testAnRPCBodyOverOneMebibyteIs413AndTheConnectionCloses() async throws {
        let (club, server) = try await start()
        let port = server.port
        let big = "{\"path\":\"" + String(repeating: "a", count: 1_100_000) + "\"}"
        let declared = request(club, "2/files/list_folder", json: big)
        let token = club.token
        // Declared: refused from its Content-Length. Chunked: refused once 1 MiB has been read.
        var chunked = "POST /2/files/list_folder HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nTransfer-Encoding: chunked\r\n\r\n"
        for start in stride(from: 0, to: big.utf8.count, by: 65536) {
            let piece = big.utf8.dropFirst(start).prefix(65536)
            chunked += String(piece.count, radix: 16) + "\r\n" + String(decoding: piece, as: UTF8.self) + "\r\n"
        }
        chunked += "0\r\n\r\n"
        for (name, request) in [("declared", declared), ("chunked", chunked)] {
            let (answer, closedIn) = try await TestSocket.onThread { () -> (TestSocket.Answer, Double) in
                let socket = try TestSocket(port: port)
                try socket.send(request)
                let answer = try socket.readAnswer()
                return (answer, try socket.readUntilClosed(timeout: 5).seconds)
            }
            XCTAssertEqual(answer.status, 413, name)
            XCTAssertEqual(answer.json?["error_summary"] as? String, "payload_too_large/..", name)
            XCTAssertTrue(answer.closes, "\(name): says Connection: close")
            XCTAssertLessThan(closedIn, 3, "\(name): and closes")
        }
        // Through an ordinary HTTP client too.
        let reply = try await club.post("2/files/list_folder", body: Data(big.utf8), headers: ["Content-Type": "application/json"])
        XCTAssertEqual(reply.status, 413)
        XCTAssertEqual(reply.summary, "payload_too_large")
    }

    func testASixteenMegabyteArgumentHeaderIs431AndTheConnectionCloses() async throws {
        let (club, server) = try await start()
        let port = server.port
        let token = club.token
        let huge = "{\"path\":\"/" + String(repeating: "a", count: 16 << 20) + "\"}"
        let (answer, seconds) = try await TestSocket.onThread { () -> (TestSocket.Answer, Double) in
            let start = Date()
            let socket = try TestSocket(port: port)
            // The send completes only if the server keeps reading after it has answered.
            try socket.send("POST /2/files/download HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nDropbox-API-Arg: \(huge)\r\n\r\n")
            let answer = try socket.readAnswer()
            _ = try socket.readUntilClosed(timeout: 5)
            return (answer, Date().timeIntervalSince(start))
        }
        XCTAssertEqual(answer.status, 431)
        XCTAssertEqual(answer.json?["error_summary"] as? String, "request_header_too_large/..")
        XCTAssertTrue(answer.closes)
        XCTAssertLessThan(seconds, 5, "answered and closed, not left half-open")
        print("16 MB Dropbox-API-Arg: 431 and closed in \(String(format: "%.2f", seconds)) s")

        // An ordinary client gets the answer too (libcurl sends heads up to 1 MB), and the server carries on.
        let large = "{\"path\":\"/" + String(repeating: "a", count: 200_000) + "\"}"
        let reply = try await club.post("2/files/download", body: nil, headers: ["Dropbox-API-Arg": large])
        XCTAssertEqual(reply.status, 431)
        let after = try await club.rpc("2/files/list_folder", ["path": ""])
        XCTAssertEqual(after.status, 200)
    }

    func testMalformedHTTPGetsAPlainTextAnswerAndAClose() async throws {
        let (_, server) = try await start()
        let port = server.port
        let answer = try await TestSocket.onThread { () -> TestSocket.Answer in
            let socket = try TestSocket(port: port)
            try socket.send("POST /2/files/list_folder HTTP/1.1\r\nHost: x\r\nBad\u{01}Header: y\r\n\r\n")
            let answer = try socket.readAnswer()
            _ = try socket.readUntilClosed(timeout: 3)
            return answer
        }
        XCTAssertEqual(answer.status, 400)
        XCTAssertTrue(answer.text.hasPrefix("Error in call to API function"), answer.text)
        XCTAssertTrue(answer.closes)
    }

    /// How and when the server closed one stalled connection.
    private struct Closing: Sendable {
        var kind: String
        var after: Double
        var said: String
    }

    /// Set once, from any thread.
    private final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    private func waitUntil(_ condition: @escaping @Sendable () -> Bool, seconds: Double = 5, file: StaticString = #filePath, line: UInt = #line) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else {
                XCTFail("condition not met in \(seconds) s", file: file, line: line)
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
