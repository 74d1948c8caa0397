import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// The mouse on the main screen, with the app's clock turned by hand: a click selects the row
/// drawn under it, two clicks on it within 400 ms open it (later, or on two rows, they do not),
/// and the wheel scrolls the list under the pointer.
@MainActor
final class MouseShellTests: XCTestCase {
    static let notes = (1...30).map { n in
        FakeStore.file(String(format: "/byteclub/note %02d.txt", n), size: 10, modified: Clock.ago(Double(n) * 60))
    }

    private func wheel(down: Bool, at point: Point) -> Key { .pointer(MouseEvent(down ? .wheelDown : .wheelUp, x: point.x, y: point.y)) }

    func testClickSelectsAndDoubleClickOpensOnlyWhenQuickAndOnOneRow() async throws {
        let effects = ManualEffects()
        let harness = Harness(store: FakeStore(files: Self.notes), effects: effects)
        await harness.start()
        var canvas = harness.render(width: 80, height: 24)
        let row5 = try XCTUnwrap(canvas.position(of: "note 05"))
        harness.press(.mouse(x: row5.x + 3, y: row5.y))
        XCTAssertEqual(harness.app.state.notes.list.selected, 4)
        XCTAssertNil(harness.app.state.note)

        // Too slow for a double click.
        effects.advance(by: .milliseconds(450))
        harness.press(.mouse(x: row5.x + 3, y: row5.y))
        XCTAssertNil(harness.app.state.note)
        // Quick, but on another row.
        effects.advance(by: .milliseconds(100))
        canvas = harness.render(width: 80, height: 24)
        let row6 = try XCTUnwrap(canvas.position(of: "note 06"))
        harness.press(.mouse(x: row6.x, y: row6.y))
        XCTAssertNil(harness.app.state.note)
        XCTAssertEqual(harness.app.state.notes.list.selected, 5)
        // Quick and on the same row: opens it.
        effects.advance(by: .milliseconds(300))
        harness.press(.mouse(x: row6.x + 10, y: row6.y))
        XCTAssertEqual(harness.app.state.note?.entry?.name, "note 06.txt")
    }

    /// Issue 43 §5: a click on a list row while the editor was open was ignored. It selects the
    /// row; the note stays open with its keys, and a double click opens nothing over it.
    func testAClickOnARowBesideTheOpenEditorSelectsIt() async throws {
        let harness = Harness(store: FakeStore(files: Self.notes))
        await harness.start()
        // A new note in the editor (this fake store serves no text to open).
        harness.press(.char("n"))
        XCTAssertEqual(harness.app.state.note?.isEditing, true)
        let draft = harness.app.state.note?.draftID
        let canvas = harness.render(width: 120, height: 24)
        let row3 = try XCTUnwrap(canvas.position(of: "note 03"))
        harness.press(.mouse(x: row3.x + 1, y: row3.y))
        XCTAssertEqual(harness.app.state.notes.list.selected, 2)
        // A second click at once: a double click, which opens nothing over the open note.
        harness.press(.mouse(x: row3.x + 1, y: row3.y))
        XCTAssertEqual(harness.app.state.note?.draftID, draft, "the open note stays")
        XCTAssertEqual(harness.app.state.note?.isEditing, true)
    }

    func testTheWheelScrollsTheListUnderThePointerOnly() async throws {
        let harness = Harness(store: FakeStore(files: Self.notes), effects: ManualEffects())
        await harness.start()
        var canvas = harness.render(width: 80, height: 24)
        let first = try XCTUnwrap(canvas.position(of: "note 01"))
        harness.press(wheel(down: true, at: Point(x: 5, y: first.y + 4)))
        canvas = harness.render(width: 80, height: 24)
        XCTAssertEqual(canvas.position(of: "note 04")?.y, first.y, canvas.dump())
        XCTAssertEqual(harness.app.state.notes.list.offset, 3)
        XCTAssertEqual(harness.app.state.notes.list.selected, 3, "the selection came into view")
        harness.press(wheel(down: true, at: Point(x: 5, y: 0)))
        XCTAssertEqual(harness.app.state.notes.list.offset, 3, "over the tab bar the wheel scrolls nothing")
        harness.press(wheel(down: false, at: Point(x: 5, y: first.y)))
        _ = harness.render(width: 80, height: 24)
        XCTAssertEqual(harness.app.state.notes.list.offset, 0)
        XCTAssertEqual(harness.app.state.notes.list.selected, 3, "in view: the selection stays")
    }

    func testPhotoRowsAreFiveLinesAndADoubleClickOpensTheViewer() async throws {
        let photos = (1...8).map { n in
            FakeStore.file(String(format: "/byteclub/photos/pano %02d.jpg", n), size: 1000, modified: Clock.ago(Double(n) * 60))
        }
        let effects = ManualEffects()
        let harness = Harness(store: FakeStore(files: photos), effects: effects)
        await harness.start()
        harness.press(.char("2"))
        var canvas = harness.render(width: 80, height: 24)
        let third = try XCTUnwrap(canvas.position(of: "pano 03"))
        // A click on the third photo's last text line still hits it.
        harness.press(.mouse(x: third.x, y: third.y + 3))
        XCTAssertEqual(harness.app.state.photos.list.selected, 2)
        XCTAssertNil(harness.app.state.viewer)
        effects.advance(by: .milliseconds(200))
        harness.press(.mouse(x: third.x + 1, y: third.y))
        XCTAssertNotNil(harness.app.state.viewer, "a double click opens the viewer")
        harness.press(.escape)
        XCTAssertNil(harness.app.state.viewer)

        // One notch: one photo.
        canvas = harness.render(width: 80, height: 24)
        harness.press(wheel(down: true, at: Point(x: third.x, y: third.y)))
        canvas = harness.render(width: 80, height: 24)
        XCTAssertEqual(harness.app.state.photos.list.offset, 1)
        XCTAssertNil(canvas.position(of: "pano 01"), canvas.dump())
        XCTAssertNotNil(canvas.position(of: "pano 02"))
    }

    func testHelpListsTheMouse() async throws {
        let harness = Harness(store: FakeStore(files: Self.notes), effects: ManualEffects())
        await harness.start()
        let labels = harness.compositor.commands().map(\.keyLabel)
        XCTAssertTrue(labels.contains("Double-click a row"), "\(labels)")
        XCTAssertTrue(labels.contains("Wheel"), "\(labels)")
    }
}
