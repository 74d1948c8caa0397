import ClubServer
import Foundation
import Transfer
import XCTest

/// Twenty members saving one note at the same rev: exactly one wins.
final class ConcurrencyTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    private func race(autorename: Bool) async throws -> (rev: String, replies: [ServerFixture.Reply]) {
        let base = try await club.upload("/byteclub/shared.txt", Data("base".utf8), mode: "overwrite")
        let rev = try XCTUnwrap(base.json["rev"] as? String)
        let club = self.club!
        let replies = try await withThrowingTaskGroup(of: ServerFixture.Reply.self) { group in
            for member in 0..<20 {
                group.addTask {
                    try await club.upload("/byteclub/shared.txt", Data("edit by member \(member)".utf8),
                                          mode: [".tag": "update", "update": rev], autorename: autorename)
                }
            }
            var all: [ServerFixture.Reply] = []
            for try await reply in group { all.append(reply) }
            return all
        }
        return (rev, replies)
    }

    func testExactlyOneWinnerOthersConflict() async throws {
        let (_, replies) = try await race(autorename: false)
        let winners = replies.filter { $0.status == 200 }
        XCTAssertEqual(winners.count, 1)
        XCTAssertEqual(replies.filter { $0.summary == "path/conflict/file" }.count, 19)
        let winnerText = try XCTUnwrap(club.read("byteclub/shared.txt"))
        XCTAssertTrue(winnerText.hasPrefix("edit by member"))
        XCTAssertEqual(winners.first?.json["size"] as? Int, winnerText.utf8.count)
    }

    func testWithAutorenameTheOthersBecomeConflictedCopies() async throws {
        let (_, replies) = try await race(autorename: true)
        XCTAssertEqual(replies.filter { $0.status == 200 }.count, 20)
        let names = replies.compactMap { $0.json["name"] as? String }
        XCTAssertEqual(names.filter { $0 == "shared.txt" }.count, 1, "exactly one wrote the note itself")
        let copies = names.filter { $0.hasPrefix("shared (conflicted copy") }
        XCTAssertEqual(copies.count, 19)
        XCTAssertEqual(Set(copies).count, 19, "every conflicted copy has its own name")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: club.root.appendingPathComponent("byteclub").path)
        XCTAssertEqual(onDisk.count, 20, "no edit was lost")
    }
}

/// `--chaos` injects the faults it promises.
final class ChaosTests: XCTestCase {
    func testRateLimitServerErrorAndTruncation() async throws {
        var spec = ChaosSpec()
        spec.rateLimit = 1
        let limited = try await ServerFixture(chaos: spec)
        let reply = try await limited.rpc("2/files/list_folder", ["path": ""])
        XCTAssertEqual(reply.status, 429)
        XCTAssertEqual(reply.summary, "too_many_requests")
        XCTAssertEqual((reply.json["error"] as? [String: Any])?["retry_after"] as? Int, 1)
        await limited.tearDown()

        let truncating = try await ServerFixture(chaos: try ChaosSpec(parsing: "truncate=1"))
        try truncating.write("byteclub/a.txt", "a")
        let cut = try await truncating.rpc("2/files/list_folder", ["path": "/byteclub"])
        XCTAssertEqual(cut.status, 200)
        XCTAssertNil(try? JSONSerialization.jsonObject(with: cut.body), "a truncated answer is not valid JSON")
        await truncating.tearDown()

        let failing = try await ServerFixture(chaos: try ChaosSpec(parsing: "5xx=1"))
        let failed = try await failing.rpc("2/files/list_folder", ["path": ""])
        XCTAssertTrue([500, 503].contains(failed.status))
        await failing.tearDown()
    }

    func testDropCutsTheConnectionMidBody() async throws {
        let dropping = try await ServerFixture(chaos: try ChaosSpec(parsing: "drop=1"))
        try dropping.write("byteclub/a.txt", String(repeating: "x", count: 10_000))
        do {
            _ = try await dropping.rpc("2/files/list_folder", ["path": "/byteclub"])
            XCTFail("expected a dropped connection")
        } catch let error as TransferError {
            guard case .connectionLost = error else { return XCTFail("expected connectionLost, got \(error)") }
        }
        await dropping.tearDown()
    }

    func testSpecParsing() throws {
        let spec = try ChaosSpec(parsing: "drop=0.1,429=0.2,5xx=0.05,slow=0.05,truncate=0.1")
        XCTAssertEqual(spec.drop, 0.1)
        XCTAssertEqual(spec.rateLimit, 0.2)
        XCTAssertThrowsError(try ChaosSpec(parsing: "drop=2"))
        XCTAssertThrowsError(try ChaosSpec(parsing: "explode=0.1"))
        XCTAssertThrowsError(try ChaosSpec(parsing: "drop=0.6,429=0.6"))
        XCTAssertEqual(try ChaosSpec(parsing: "stall=0.25").stall, 0.25)
        XCTAssertThrowsError(try ChaosSpec(parsing: "stall=0.5,drop=0.6"))
    }
}
