import ClubKit
import Foundation
import XCTest

/// docs/cli.md's exit-code table is what the commands return: one row per `Exit` case, in
/// order, and no row for a code no command ends with.
final class ExitCodeTableTests: XCTestCase {
    func testTheDocumentedExitCodesAreTheCodes() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let section = try XCTUnwrap(text.components(separatedBy: "## Exit codes").dropFirst().first?.components(separatedBy: "\n## ").first)
        let documented = section.split(separator: "\n").compactMap { line -> Int32? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("|"), let first = cells.first else { return nil }
            return Int32(first)
        }
        XCTAssertEqual(documented, Exit.allCases.map(\.rawValue), "docs/cli.md's table against Sources/ClubKit/Exit.swift")
    }
}
