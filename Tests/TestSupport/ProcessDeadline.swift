import Foundation
import XCTest

extension Process {
    /// `waitUntilExit()` with a deadline: a child that has not ended after `seconds` is a hang,
    /// recorded as the calling test's failure, then stopped (SIGTERM, and SIGKILL two seconds
    /// later) so the test goes on to its next check instead of holding the whole run.
    ///
    /// Whether the process ended by itself in time. `waitUntilExit()` waited forever: one child
    /// that never ended held a CI run until its 90-minute limit.
    @discardableResult
    public func waitForExit(within seconds: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        if Process.ends(self, within: seconds) { return true }
        let name = executableURL?.lastPathComponent ?? "a child"
        let words = (arguments ?? []).prefix(6).joined(separator: " ")
        XCTFail("\(name) \(words) did not end within \(Int(seconds)) s (a hang); stopped", file: file, line: line)
        terminate()
        if !Process.ends(self, within: 2) { kill(processIdentifier, SIGKILL) }
        waitUntilExit()
        return false
    }

    private static func ends(_ process: Process, within seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            guard Date() < deadline else { return false }
            usleep(5_000)
        }
        process.waitUntilExit()
        return true
    }
}
