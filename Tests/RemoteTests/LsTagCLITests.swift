import Foundation
import TestSupport
import XCTest

/// Issue 54: `byteclub ls --tag NAME` looked in one folder, so a tagged note in a subfolder was
/// never listed. It now looks through every folder under the one listed (the whole club when
/// none is given), `--folder F` (or `ls F --tag NAME`) narrows it to F and the folders in it,
/// and each line names its file by the path from there. The built `byteclub` against a real
/// `byteclub serve` on a random loopback port.
final class LsTagCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("ls-tag-cli-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    func run(_ arguments: [String]) throws -> ChildProcess.Result {
        let binary = try Requirement.byteclub()
        return try ChildProcess.run([binary.path] + arguments, within: 60, environment: cli.environment)
    }

    /// The files `ls --json` printed, by `path_display`.
    func listed(_ result: ChildProcess.Result) throws -> Set<String> {
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
                                    result.stdout + result.stderr)
        return Set(entries.compactMap { $0["path_display"] as? String })
    }

    /// The names the text lines end with (after the size and the date).
    func names(_ result: ChildProcess.Result) -> [String] {
        result.stdout.split(separator: "\n").map { line in
            let fields = line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return fields.last ?? ""
        }
    }

    func testLsTagLooksThroughEveryFolderAndFolderNarrowsIt() throws {
        let root = base.appendingPathComponent("served")
        for (relative, text) in [("Plan.md", "the plan\n"), ("Trips/Day one.md", "kayak\n"), ("Trips/2026/Deep.md", "lighthouse\n"),
                                 ("Other/Untagged.md", "nothing\n")] {
            let url = root.appendingPathComponent("byteclub").appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let server = try ServeProcess(root: root, token: "owner-ls-tag", arguments: ["--member", "ann=ann-ls-tag"])
        defer { _ = server }
        let club = ["--server", server.url, "--token", "ann-ls-tag"]
        for (note, tag) in [("Plan.md", "+trip"), ("Trips/Day one.md", "+trip"), ("Trips/2026/Deep.md", "+trip"), ("Other/Untagged.md", "+food")] {
            let tagged = try run(["tag", note, tag] + club)
            XCTAssertEqual(tagged.status, 0, "\(note): \(tagged.stderr)")
        }

        // The whole club: the note at the top and those one and two folders down.
        let everywhere = try run(["ls", "--tag", "trip"] + club)
        XCTAssertEqual(everywhere.status, 0, everywhere.stderr)
        XCTAssertEqual(names(everywhere).sorted(), ["Plan.md", "Trips/2026/Deep.md", "Trips/Day one.md"], everywhere.stdout)
        XCTAssertEqual(try listed(try run(["ls", "--tag", "trip", "--json"] + club)),
                       ["/byteclub/Plan.md", "/byteclub/Trips/Day one.md", "/byteclub/Trips/2026/Deep.md"])
        // The club's folder named is the same.
        XCTAssertEqual(try listed(try run(["ls", "/byteclub", "--tag", "trip", "--json"] + club)).count, 3)

        // --folder narrows it to that folder and the folders in it, each named from there.
        let trips = try run(["ls", "--tag", "trip", "--folder", "Trips"] + club)
        XCTAssertEqual(trips.status, 0, trips.stderr)
        XCTAssertEqual(names(trips).sorted(), ["2026/Deep.md", "Day one.md"], trips.stdout)
        XCTAssertEqual(try listed(try run(["ls", "--tag", "trip", "--folder", "Trips", "--json"] + club)),
                       ["/byteclub/Trips/Day one.md", "/byteclub/Trips/2026/Deep.md"])
        XCTAssertEqual(try listed(try run(["ls", "Trips", "--tag", "trip", "--json"] + club)),
                       ["/byteclub/Trips/Day one.md", "/byteclub/Trips/2026/Deep.md"], "the folder argument says the same")
        XCTAssertEqual(try listed(try run(["ls", "--tag", "trip", "--folder", "Trips/2026", "--json"] + club)),
                       ["/byteclub/Trips/2026/Deep.md"])
        XCTAssertEqual(try listed(try run(["ls", "--tag", "food", "--folder", "Trips", "--json"] + club)), [])

        // --folder is for --tag, and the folder is given once.
        let alone = try run(["ls", "--folder", "Trips"] + club)
        XCTAssertEqual(alone.status, 64, alone.stderr)
        XCTAssertTrue(alone.stderr.contains("--folder goes with --tag"), alone.stderr)
        let twice = try run(["ls", "Other", "--tag", "trip", "--folder", "Trips"] + club)
        XCTAssertEqual(twice.status, 64, twice.stderr)

        // A nested tag (issue 55) is listed under its parent too.
        let nested = try run(["tag", "Plan.md", "+project/alpha"] + club)
        XCTAssertEqual(nested.status, 0, nested.stderr)
        XCTAssertEqual(try listed(try run(["ls", "--tag", "project", "--json"] + club)), ["/byteclub/Plan.md"])
    }
}
