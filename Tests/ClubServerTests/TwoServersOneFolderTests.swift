@testable import ClubServer
import Foundation
import XCTest

/// Two servers over one club folder, as the app's embedded server and the background agent's
/// are: starting one never removes the temporary files of an upload the other is receiving.
final class TwoServersOneFolderTests: XCTestCase {
    func testStartingASecondServerLeavesTheFirstOnesUploadInFlight() async throws {
        let club = try await ServerFixture()
        var generator = SystemRandomNumberGenerator()
        let body = Data((0..<400_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let head = "POST /2/files/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(club.token)\r\n"
            + "Dropbox-API-Arg: {\"path\":\"/byteclub/inflight.bin\",\"mode\":\"add\"}\r\n"
            + "Content-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\r\n"
        let socket = try TestSocket(port: club.server.port)
        let half = body.count / 2
        try await TestSocket.onThread { try socket.send(Data(head.utf8) + body.prefix(half)) }

        // The first server is inside the body: its temp file has bytes.
        let temp = club.root.appendingPathComponent(".byteclub/tmp")
        func receiving() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: temp.path)) ?? []).filter { name in
                let size = (try? FileManager.default.attributesOfItem(atPath: temp.appendingPathComponent(name).path)[.size] as? NSNumber)?.intValue
                return name.hasPrefix("upload-") && (size ?? 0) > 0
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while receiving().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let inFlight = receiving()
        XCTAssertEqual(inFlight.count, 1, "the upload never reached the first server's temp folder")

        // A second server over the same folder starts, and clears nothing the first is writing.
        let second = try await ClubServer.start(club.configuration)
        XCTAssertEqual(receiving(), inFlight, "the second server removed the first one's upload in flight")

        try await TestSocket.onThread { try socket.send(body.suffix(from: half)) }
        let answer = try await TestSocket.onThread { try socket.readAnswer(timeout: 20) }
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertEqual(try Data(contentsOf: club.root.appendingPathComponent("byteclub/inflight.bin")), body)

        // Once neither runs, what is left in tmp/ is a leftover, and the next server clears it.
        let leftover = temp.appendingPathComponent("upload-leftover")
        try Data("half".utf8).write(to: leftover)
        await second.stop()
        let third = try await club.restart()
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path), "a server alone clears the leftovers")
        await third.tearDown()
    }
}
