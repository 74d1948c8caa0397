import NoteMerge
import XCTest

/// The history view's diff: every line of both texts, in order, marked kept, removed or added.
final class TwoWayDiffTests: XCTestCase {
    private func render(_ old: [String], _ new: [String]) -> [String] {
        TwoWayDiff.lines(from: old, to: new).map { line in
            switch line.change {
            case .same: return " " + line.text
            case .added: return "+" + line.text
            case .removed: return "-" + line.text
            }
        }
    }

    func testAChangedLineIsRemovedThenAdded() {
        XCTAssertEqual(render(["a", "b", "c"], ["a", "B", "c"]), [" a", "-b", "+B", " c"])
    }

    func testInsertionsAndDeletionsAtTheEnds() {
        XCTAssertEqual(render(["b"], ["a", "b", "c"]), ["+a", " b", "+c"])
        XCTAssertEqual(render(["a", "b", "c"], ["b"]), ["-a", " b", "-c"])
        XCTAssertEqual(render([], ["x"]), ["+x"])
        XCTAssertEqual(render(["x"], []), ["-x"])
    }

    func testTheDiffIsMinimalAndKeepsEveryLine() {
        let old = ["旅行", "plan", "day 1", "day 2", "plan", "end"]
        let new = ["plan", "day 1", "夜", "day 2", "end", "旅行"]
        let lines = TwoWayDiff.lines(from: old, to: new)
        // Reading the kept and removed lines gives the old text; kept and added, the new one.
        XCTAssertEqual(lines.filter { $0.change != .added }.map(\.text), old)
        XCTAssertEqual(lines.filter { $0.change != .removed }.map(\.text), new)
        // The longest common subsequence here is plan, day 1, day 2, end: four kept lines.
        XCTAssertEqual(lines.filter { $0.change == .same }.count, 4)
    }
}
