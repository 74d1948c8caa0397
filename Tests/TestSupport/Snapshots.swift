import Foundation
import TerminalUI
import XCTest

/// Compares a rendered grid with the golden text in `__Snapshots__/NAME.txt`.
///
/// With `RECORD_SNAPSHOTS=1`, or when the golden file does not exist yet, the snapshot is
/// written and the test fails, so a new or changed snapshot is never accepted without someone
/// reading it and running the tests again.
@MainActor
public func assertSnapshot(_ canvas: GridCanvas, named name: String, file: StaticString = #filePath, line: UInt = #line) {
    let directory = URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("__Snapshots__")
    let url = directory.appendingPathComponent("\(name).txt")
    let actual = canvas.dump() + "\n"
    let recording = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"].map { !$0.isEmpty && $0 != "0" } ?? false

    guard !recording, let expected = try? String(contentsOf: url, encoding: .utf8) else {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            XCTFail("Recorded snapshot \(name).txt (\(canvas.size)); check it, then run again without RECORD_SNAPSHOTS.\n\(actual)", file: file, line: line)
        } catch {
            XCTFail("Cannot record snapshot \(url.path): \(error)", file: file, line: line)
        }
        return
    }
    if expected != actual {
        XCTFail("Snapshot \(name).txt differs.\n--- expected\n\(expected)--- actual\n\(actual)", file: file, line: line)
    }
}

/// Compares `actual` with the file at `url`, a golden text kept outside `__Snapshots__` (a page
/// of docs/ generated from the code), with the same rule as ``assertSnapshot(_:named:file:line:)``:
/// `RECORD_SNAPSHOTS=1`, or a missing file, writes it and fails the test.
public func assertGoldenText(_ actual: String, at url: URL, file: StaticString = #filePath, line: UInt = #line) {
    let recording = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"].map { !$0.isEmpty && $0 != "0" } ?? false
    guard !recording, let expected = try? String(contentsOf: url, encoding: .utf8) else {
        do {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            XCTFail("Recorded \(url.lastPathComponent); check it (git diff), then run again without RECORD_SNAPSHOTS.", file: file, line: line)
        } catch {
            XCTFail("Cannot record \(url.path): \(error)", file: file, line: line)
        }
        return
    }
    guard expected != actual else { return }
    // The first differing line, so a failure says where without printing both pages whole.
    let (old, new) = (expected.components(separatedBy: "\n"), actual.components(separatedBy: "\n"))
    let index = zip(old, new).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(old.count, new.count)
    let shown = { (lines: [String]) in index < lines.count ? lines[index] : "(end of text)" }
    XCTFail("""
        \(url.lastPathComponent) differs from what the code generates, first at line \(index + 1):
        --- in the file
        \(shown(old))
        --- generated
        \(shown(new))
        Run with RECORD_SNAPSHOTS=1 to rewrite it.
        """, file: file, line: line)
}
