import Foundation
import TestSupport
import XCTest

/// `byteclub tag` at the limit: a change that would pass Dropbox's 20 tags a file is refused
/// whole, before anything is sent, rather than stopping half-way at the server's 409.
final class TagCLITests: XCTestCase {
    var club: ClubFixture!
    var cli: CLI!

    override func setUp() async throws {
        club = try await ClubFixture()
        cli = try CLI.isolated(in: club.base)
        try FileManager.default.createDirectory(at: club.file("byteclub"), withIntermediateDirectories: true)
        try Data("x\n".utf8).write(to: club.file("byteclub/b.txt"))
    }

    override func tearDown() async throws {
        await club?.close()
    }

    var server: [String] { ["--server", club.server.baseURL.absoluteString, "--token", club.token] }

    func testAChangePastTwentyTagsIsRefusedWholeAndASwapAtTheLimitWorks() throws {
        let nineteen = (1...19).map { "+t\($0)" }
        let first = try cli.run(["tag", "/byteclub/b.txt"] + nineteen + server)
        XCTAssertEqual(first.status, 0, first.stderr)
        let tooMany = try cli.run(["tag", "/byteclub/b.txt", "+t20", "+t21"] + server)
        XCTAssertNotEqual(tooMany.status, 0)
        XCTAssertTrue(tooMany.stderr.contains("would have 21 tags") && tooMany.stderr.contains("nothing was changed"), tooMany.stderr)
        let after = try cli.run(["tag", "/byteclub/b.txt"] + server)
        XCTAssertEqual(after.stdout.split(separator: "\n").count, 19, "nothing of the refused change was kept: \(after.stdout)")
        // At the limit, one out and one in is a swap, not a refusal.
        XCTAssertEqual(try cli.run(["tag", "/byteclub/b.txt", "+t20"] + server).status, 0)
        let swap = try cli.run(["tag", "/byteclub/b.txt", "-t1", "+t21"] + server)
        XCTAssertEqual(swap.status, 0, swap.stderr)
        XCTAssertTrue(swap.stdout.contains("t21\n") && !swap.stdout.contains("t1\n"), swap.stdout)
    }
}
