import TestSupport
import XCTest

/// The suite's rule for what it cannot check: a missing tool skips a developer's run but fails
/// CI's, and a test that could not check (a hang, a server that did not start) always fails.
final class RequirementTests: XCTestCase {
    func testAMissingToolSkipsOutsideCIAndFailsUnderIt() {
        XCTAssertThrowsError(try Requirement.tool(false, "rclone is not installed", environment: [:])) { error in
            XCTAssertTrue(error is XCTSkip, "outside CI a missing tool skips: \(error)")
        }
        for value in ["1", "true"] {
            XCTAssertThrowsError(try Requirement.tool(false, "rclone is not installed", environment: ["CI": value])) { error in
                XCTAssertTrue(error is CouldNotCheck, "under CI=\(value) a missing tool fails: \(error)")
                XCTAssertTrue("\(error)".contains("rclone is not installed"), "\(error)")
            }
        }
        XCTAssertThrowsError(try Requirement.machine(false, "cannot bind-mount", environment: ["CI": "1"])) { error in
            XCTAssertTrue(error is CouldNotCheck, "\(error)")
        }
        XCTAssertThrowsError(try Requirement.tool(false, "x", environment: ["CI": "0"])) { error in
            XCTAssertTrue(error is XCTSkip, "CI=0 is not CI: \(error)")
        }
        XCTAssertNoThrow(try Requirement.tool(true, "present", environment: ["CI": "1"]))
        XCTAssertEqual(try Requirement.tool("/usr/bin/tmux" as String?, "tmux"), "/usr/bin/tmux")
    }
}
