import NoteMerge
import XCTest

/// `ThreeWayMerge.union`: two notes of one name written apart (two members' offline daily
/// notes) become one, nothing either wrote dropped.
final class UnionMergeTests: XCTestCase {
    func testTheSharedStartOnceThenTheFirstThenTheSecond() {
        let ann = "# 2026-11-25\n\nann: bought rope\n"
        let bob = "# 2026-11-25\n\nbob: fixed the sail\n"
        XCTAssertEqual(ThreeWayMerge.union(ann, bob), "# 2026-11-25\n\nann: bought rope\nbob: fixed the sail\n")
    }

    func testTextsWithNothingInCommonAreBothKeptAndTheSameTextOnce() {
        XCTAssertEqual(ThreeWayMerge.union("a\n", "b\n"), "a\nb\n")
        XCTAssertEqual(ThreeWayMerge.union("same\n", "same\n"), "same\n")
        XCTAssertEqual(ThreeWayMerge.union("", "only\n"), "only\n")
    }
}
