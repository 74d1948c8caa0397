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
