import TerminalUI
import XCTest

/// Double clicks with an injected clock: two presses on the same target within 400 ms.
final class ClickTrackerTests: XCTestCase {
    func testTwoQuickPressesOnOneTargetAreADoubleClick() {
        var tracker = ClickTracker()
        XCTAssertEqual(tracker.press(on: 3, at: 10.0), .single)
        XCTAssertEqual(tracker.press(on: 3, at: 10.399), .double)
        XCTAssertEqual(tracker.press(on: 3, at: 10.5), .single, "a third quick press starts over")
        XCTAssertEqual(tracker.press(on: 3, at: 10.6), .double)
    }

    func testSlowPressesOtherTargetsAndResetsAreSingleClicks() {
        var tracker = ClickTracker()
        XCTAssertEqual(tracker.press(on: 3, at: 10.0), .single)
        XCTAssertEqual(tracker.press(on: 3, at: 10.401), .single, "too slow")
        XCTAssertEqual(tracker.press(on: 4, at: 10.5), .single, "another row")
        XCTAssertEqual(tracker.press(on: "4", at: 10.6), .single, "another kind of target")
        tracker.reset()
        XCTAssertEqual(tracker.press(on: "4", at: 10.7), .single, "after a reset")
        XCTAssertEqual(tracker.press(on: "4", at: 9.0), .single, "a clock that went back is no double click")
    }
}
