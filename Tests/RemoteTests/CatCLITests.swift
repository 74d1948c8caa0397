import Foundation
import TestSupport
import XCTest

/// `byteclub cat` on a real `byteclub serve`: the text as it is, `--render` laid out as the
/// app's view, `--json`, stdin with `-`, and a missing note.
final class CatCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("cat-cli-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    static let plan = "# Plan\n\n- [ ] glue\n- [x] taxes\n\n| a | b |\n|---|--:|\n| 山 | 1 |\n\nSee [[Trip]] and [site](https://example.com).\n\nbell\u{1B}[31m\n"

    func testCatPrintsRendersAndSaysJSON() throws {
        let root = base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        try Data(Self.plan.utf8).write(to: root.appendingPathComponent("byteclub/Plan.md"))
        try Data("# not a heading\nin a txt".utf8).write(to: root.appendingPathComponent("byteclub/Old.txt"))
        let server = try ServeProcess(root: root, token: "cat-token-1")
        let club = ["--server", server.url, "--token", "cat-token-1"]

        // Into a pipe, the text is the file's, byte for byte.
        let raw = try cli.run(["cat", "/byteclub/Plan.md"] + club)
        XCTAssertEqual(raw.status, 0, raw.stderr)
        XCTAssertEqual(raw.stdout, Self.plan)

        // A bare name is in the club folder; --render lays it out, plain into a pipe.
        let rendered = try cli.run(["cat", "Plan.md", "--render", "--width", "40"] + club)
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        XCTAssertEqual(rendered.stdout, """
            Plan
            ━━━━
            
            ☐ glue
            ☑ taxes
            
            ┌────┬───┐
            │ a  │ b │
            ├────┼───┤
            │ 山 │ 1 │
            └────┴───┘
            
            See Trip and site ⟨https://example.com⟩.
            
            bell\u{FFFD}[31m
            
            """)
        XCTAssertFalse(rendered.stdout.contains("\u{1B}"), "no escape codes into a pipe")

        // A .txt note is wrapped, not read as Markdown.
        let txt = try cli.run(["cat", "/byteclub/Old.txt", "--render", "--width", "10"] + club)
        XCTAssertEqual(txt.stdout, "# not a\nheading\nin a txt\n", txt.stderr)

        let json = try cli.run(["cat", "/byteclub/Plan.md", "--render", "--json", "--width", "40"] + club)
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual(object["path_display"] as? String, "/byteclub/Plan.md")
        XCTAssertEqual(object["name"] as? String, "Plan.md")
        XCTAssertEqual(object["text"] as? String, Self.plan)
        XCTAssertEqual(object["size"] as? Int, Self.plan.utf8.count)
        XCTAssertNotNil(object["rev"] as? String)
        XCTAssertNotNil(object["modified"] as? String)
        XCTAssertEqual((object["rendered"] as? String)?.split(separator: "\n").first, "Plan")

        let missing = try cli.run(["cat", "/byteclub/Nope.md"] + club)
        XCTAssertEqual(missing.status, 3, missing.stderr)
        XCTAssertTrue(missing.stdout.isEmpty)
    }

    func testCatRendersStdin() throws {
        let input = Pipe()
        let process = try cli.start(["cat", "-", "--render", "--width", "20"], stdin: input)
        input.fileHandleForWriting.write(Data("> quoted *text*\n\n1. one\n2. two\n".utf8))
        try input.fileHandleForWriting.close()
        let out = (process.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "│ quoted text\n\n1. one\n2. two\n")
    }

    /// A club photo into a pipe is its alt text, once: no stand-in name over empty rows that
    /// nothing will ever draw.
    func testCatRendersAPhotoAsItsAltTextOnce() throws {
        let input = Pipe()
        let process = try cli.start(["cat", "-", "--render", "--width", "40"], stdin: input)
        input.fileHandleForWriting.write(Data("Desk:\n\n![my desk at night](photos/desk-at-night.jpg)\n\nEnd.\n".utf8))
        try input.fileHandleForWriting.close()
        let out = (process.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "Desk:\n\n[my desk at night]\n\nEnd.\n")
    }
}
