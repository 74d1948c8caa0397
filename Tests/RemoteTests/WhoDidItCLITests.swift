import Foundation
import TestSupport
import XCTest

/// Issue 54, "Who did it", from the shell: `log` said `-` for every revision of the embedded
/// club (a club of one shared token names no one), and a template's `{{author}}` gave `club`,
/// the shared token's account, where the member's own name belongs.
final class WhoDidItCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("who-cli-\(UUID().uuidString)")
        let isolated = try CLI.isolated(in: base)
        var environment = isolated.environment
        environment["BYTECLUB_NAME"] = "ada"
        cli = CLI(environment: environment, directory: isolated.directory)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    /// `new --no-edit` with nothing on stdin: the template's text alone.
    func new(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let empty = Pipe()
        let process = try cli.start(["new"] + arguments + ["--no-edit"], stdin: empty)
        try empty.fileHandleForWriting.close()
        let stderr = (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
    }

    func testTheEmbeddedClubNamesYouInTheLogTheListingAndTemplates() throws {
        let data = base.appendingPathComponent("embedded")
        let club = ["--data-dir", data.path]
        let note = base.appendingPathComponent("Mine.md")
        try Data("mine\n".utf8).write(to: note)
        let put = try cli.run(["put", note.path] + club)
        XCTAssertEqual(put.status, 0, put.stderr)

        let log = try cli.run(["log", "Mine.md"] + club)
        XCTAssertEqual(log.status, 0, log.stderr)
        XCTAssertTrue(log.stdout.hasSuffix("  you (ada)\n"), "the revision is yours, not `-`: \(log.stdout)")

        let listing = try cli.run(["ls", "/byteclub", "--json"] + club)
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]], listing.stdout)
        let mine = try XCTUnwrap(entries.first { $0["name"] as? String == "Mine.md" })
        XCTAssertEqual(mine["modified_by"] as? String, "ada")

        let templates = data.appendingPathComponent("byteclub/templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try Data("by {{author}}\n".utf8).write(to: templates.appendingPathComponent("signed.md"))
        let made = try new(["Signed", "--template", "signed"] + club)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(try String(contentsOf: data.appendingPathComponent("byteclub/Signed.md"), encoding: .utf8), "by ada\n")
    }

    /// A club server reached with its shared token: the account is `club`, which is whoever
    /// holds the token, so `{{author}}` is the member's own name (BYTECLUB_NAME here).
    func testATemplateOnASharedTokenIsSignedWithYourNameNotClub() async throws {
        let club = try await ClubFixture()
        defer { Task { await club.close() } }
        let templates = club.file("byteclub/templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try Data("by {{author}}\n".utf8).write(to: templates.appendingPathComponent("signed.md"))
        let made = try new(["Signed", "--template", "signed", "--server", club.server.baseURL.absoluteString, "--token", club.token])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(try String(contentsOf: club.file("byteclub/Signed.md"), encoding: .utf8), "by ada\n", "not `by club`")
    }
}
