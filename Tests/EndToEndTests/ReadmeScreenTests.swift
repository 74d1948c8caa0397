import Foundation
import TestSupport
import XCTest

/// Issue 43 §6: README's first screen says what byteclub is, shows the app, gives the two
/// commands, then one short section per task. The picture is a real capture of the app, made by
/// `scripts/readme-screen`; this test makes it again from the built binary and fails when it is
/// no longer what README shows, so README stays true when the screens change.
final class ReadmeScreenTests: XCTestCase {
    private var scratch: URL?

    override func tearDown() {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    private static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The lines between README's `<!-- screen:begin` and `<!-- screen:end` lines.
    private static func screenBlock(_ text: String) -> [Substring] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let begin = lines.firstIndex(where: { $0.hasPrefix("<!-- screen:begin") }),
              let end = lines.firstIndex(where: { $0.hasPrefix("<!-- screen:end") }), begin < end else { return [] }
        return Array(lines[(begin + 1)..<end])
    }

    func testTheFirstScreenShowsTheAppAsItIsAndTheTwoCommands() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)

        // What it is, the app, the two commands: all within the first screenful of a README page.
        let firstScreen = lines.prefix(50).joined(separator: "\n")
        XCTAssertTrue(firstScreen.hasPrefix("# byteclub\n\nbyteclub is a terminal app"), firstScreen)
        XCTAssertTrue(firstScreen.contains("<!-- screen:begin"), firstScreen)
        XCTAssertTrue(firstScreen.contains("\nmake run\nmake test\n"), firstScreen)
        // Then a section per task.
        let sections = lines.filter { $0.hasPrefix("## ") }.map(String.init)
        for task in ["## Write a note", "## Share photos", "## Start a club", "## Script it"] {
            XCTAssertTrue(sections.contains(task), "README has no \(task) section: \(sections)")
        }

        // The picture is the app's screen today.
        let binary = try XCTUnwrap(BuiltExecutable.byteclub, "byteclub is not built")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("readme-screen-\(UUID().uuidString)")
        scratch = base
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let copy = base.appendingPathComponent("README.md")
        try Data(readme.utf8).write(to: copy)
        var environment = ProcessInfo.processInfo.environment
        environment["README"] = copy.path
        environment["BYTECLUB"] = binary.path
        environment["TMPDIR"] = base.path
        let made = try ChildProcess.run([Self.repository.appendingPathComponent("scripts/readme-screen").path], within: 90,
                                        environment: environment)
        XCTAssertEqual(made.status, 0, made.stderr)
        let shown = Self.screenBlock(readme)
        let now = Self.screenBlock(try String(contentsOf: copy, encoding: .utf8))
        XCTAssertGreaterThan(shown.count, 20, "README shows no screen")
        XCTAssertEqual(now, shown, "README's screen is not the app's any more: run scripts/readme-screen")
    }
}
