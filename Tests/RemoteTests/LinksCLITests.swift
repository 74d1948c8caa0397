import ClubServer
import Foundation
import XCTest

/// `byteclub links PATH [--json]`: the built binary against a club server on loopback, notes
/// written by two members; outgoing links resolved (a missing note said), backlinks from the
/// CLI's index with the member's name, the JSON holding exactly the schema's keys, and a note
/// that is not there exiting 3.
final class LinksCLITests: XCTestCase {
    var club: LiveClub!
    var cli: CLI!

    override func setUp() async throws {
        club = try await LiveClub()
        cli = try LiveCLITests.cli(in: club.base)
    }

    override func tearDown() async throws {
        await club?.close()
    }

    var server: [String] { ["--server", club.server.baseURL.absoluteString, "--token", LiveClub.alice.token] }

    func put(_ text: String, _ name: String, as member: ClubMember = LiveClub.alice) async throws {
        _ = try await club.store(member).upload(data: Data(text.utf8), to: "/byteclub/" + name, mode: .add, autorename: false)
    }

    /// docs/schemas/links.schema.json, read from the source tree.
    func schema() throws -> [String: Any] {
        var root = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) { root.deleteLastPathComponent() }
        let data = try Data(contentsOf: root.appendingPathComponent("docs/schemas/links.schema.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testLinksAndBacklinksAsJSONAndText() async throws {
        try await put("# Trip\nPack from the [[Packing list]] and [[Nowhere]].\n![desk](photos/desk.jpg) `[[Not a link]]`\nhttps://example.com/x\n",
                      "Trip plan.md")
        try await put("Boots\nBefore the [[trip plan|trip]] we pack\n", "Packing list.md", as: LiveClub.bob)
        try await put("See [the plan](Trip%20plan.md)\n", "Budget.md")

        let run = try cli.run(["links", "/byteclub/Trip plan.md", "--json"] + server)
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
        XCTAssertEqual(object["path_display"] as? String, "/byteclub/Trip plan.md")
        XCTAssertEqual(object["title"] as? String, "Trip plan")
        XCTAssertEqual(object["offline"] as? Bool, false)

        let outgoing = try XCTUnwrap(object["outgoing"] as? [[String: Any]])
        XCTAssertEqual(outgoing.map { $0["destination"] as? String }, ["Packing list", "Nowhere", "photos/desk.jpg", "https://example.com/x"],
                       "the link in code is not one")
        XCTAssertEqual(outgoing.map { $0["target"] as? String }, ["note", "note", "photo", "web"])
        XCTAssertEqual(outgoing[0]["path_display"] as? String, "/byteclub/Packing list.md")
        XCTAssertEqual(outgoing[0]["exists"] as? Bool, true)
        XCTAssertEqual(outgoing[0]["line"] as? Int, 2)
        XCTAssertEqual(outgoing[1]["exists"] as? Bool, false, "a missing note says so")
        XCTAssertTrue(outgoing[1]["path_display"] is NSNull)
        XCTAssertEqual(outgoing[2]["exists"] as? Bool, false, "no such photo on the server")
        XCTAssertEqual(outgoing[2]["is_image"] as? Bool, true)
        XCTAssertTrue(outgoing[3]["exists"] is NSNull)

        let backlinks = try XCTUnwrap(object["backlinks"] as? [[String: Any]])
        XCTAssertEqual(Set(backlinks.compactMap { $0["path_display"] as? String }), ["/byteclub/Packing list.md", "/byteclub/Budget.md"])
        let packing = try XCTUnwrap(backlinks.first { $0["title"] as? String == "Packing list" })
        XCTAssertEqual(packing["line"] as? Int, 2)
        XCTAssertEqual(packing["context"] as? String, "Before the [[trip plan|trip]] we pack")
        XCTAssertEqual(packing["modified_by"] as? String, "Bob", "the member by name")
        XCTAssertEqual(packing["links"] as? Int, 1)

        // Exactly the schema's keys, at every level.
        let schema = try schema()
        let properties = try XCTUnwrap(schema["properties"] as? [String: Any])
        XCTAssertEqual(Set(object.keys), Set(properties.keys))
        func itemKeys(_ name: String) throws -> Set<String> {
            let array = try XCTUnwrap(properties[name] as? [String: Any])
            return Set(try XCTUnwrap((array["items"] as? [String: Any])?["properties"] as? [String: Any]).keys)
        }
        for link in outgoing { XCTAssertEqual(Set(link.keys), try itemKeys("outgoing")) }
        for link in backlinks { XCTAssertEqual(Set(link.keys), try itemKeys("backlinks")) }

        let text = try cli.run(["links", "/byteclub/Trip plan.md"] + server)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("  2: [[Packing list]] → /byteclub/Packing list.md\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("  2: [[Nowhere]] → missing note\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Backlinks (2):\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("2: Before the [[trip plan|trip]] we pack\n"), text.stdout)
    }

    func testANoteThatIsNotThereExits3() async throws {
        try await put("x\n", "Here.md")
        let run = try cli.run(["links", "/byteclub/Not here.md"] + server)
        XCTAssertEqual(run.status, 3, run.stdout + run.stderr)
        XCTAssertTrue(run.stderr.contains("Not found"), run.stderr)
        XCTAssertEqual(run.stdout, "")
    }
}
