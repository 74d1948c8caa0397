import Foundation
import XCTest

/// Every command's `--help` reads as prose: its paragraphs are wrapped to the width once, by the
/// argument parser, not broken again where the source's lines ended (`serve --help` came out
/// ragged at 80 columns: "a mistyped --root is refused" / "rather than started …").
final class HelpTextTests: XCTestCase {
    func testEveryCommandsHelpIsWrappedOnceToTheWidth() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("help-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let cli = try CLI.isolated(in: base)
        let top = try cli.run(["--help"])
        XCTAssertEqual(top.status, 0, top.stderr)
        let commands = top.stdout.components(separatedBy: "SUBCOMMANDS:").last?.split(separator: "\n")
            .filter { $0.hasPrefix("  ") && $0.dropFirst(2).first?.isLowercase == true }
            .compactMap { $0.split(separator: " ").first.map(String.init) } ?? []
        XCTAssertGreaterThan(commands.count, 20, top.stdout)
        // In a pipe the parser wraps to 80 columns (a line holds 79). A line of a paragraph (neither blank nor
        // indented) followed by another of the same paragraph must have had no room for the next
        // one's first word, as greedy wrapping leaves it.
        let width = 80
        for command in commands {
            let help = try cli.run([command, "--help"])
            XCTAssertEqual(help.status, 0, "\(command): \(help.stderr)")
            let lines = help.stdout.components(separatedBy: "USAGE:").first?.components(separatedBy: "\n") ?? []
            for (line, next) in zip(lines, lines.dropFirst()) {
                guard !line.isEmpty, !next.isEmpty, !line.hasPrefix(" "), !next.hasPrefix(" "),
                      let word = next.split(separator: " ").first else { continue }
                XCTAssertGreaterThanOrEqual(line.count + 1 + word.count, width, "\(command) --help breaks a line early:\n\(line)\n\(next)")
            }
        }
    }
}
