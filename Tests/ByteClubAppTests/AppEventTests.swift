@testable import ByteClubApp
import XCTest

/// The screen's transitions, read by the composition root from two states in a row and routed
/// as events (no controller keeps the last state it saw).
@MainActor
final class AppEventTests: XCTestCase {
    func testEachScreenComingOnAndTheNotesListMovingIsOneEvent() async {
        var before = AppEvent.Screen()
        before.notesVersion = 3
        var after = before
        XCTAssertEqual(AppEvent.transitions(from: before, to: after), [])
        after.search = true
        after.noteView = true
        XCTAssertEqual(AppEvent.transitions(from: before, to: after), [.searchShown, .noteViewShown])
        // Still on screen: no event; gone: none either; the list moved: one.
        XCTAssertEqual(AppEvent.transitions(from: after, to: after), [])
        XCTAssertEqual(AppEvent.transitions(from: after, to: before), [])
        before.notesVersion = 4
        XCTAssertEqual(AppEvent.transitions(from: after, to: before), [.notesListChanged])
    }
}
