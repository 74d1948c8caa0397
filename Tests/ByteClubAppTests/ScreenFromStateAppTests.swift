@testable import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// The screen is a function of the state (issue 44): which layers are on the compositor follows
/// `AppState` alone, with no controller pushing or keeping one; a question is a value in
/// `state.dialogs` until it is answered.
@MainActor
final class ScreenFromStateAppTests: XCTestCase {
    private func harness() async -> Harness {
        let now = Date()
        let harness = Harness(store: FakeStore(files: [
            FakeStore.file("/byteclub/Plan.txt", size: 10, modified: now),
            FakeStore.file("/byteclub/photos/alps.jpg", size: 1000, modified: now),
        ]))
        await harness.start()
        await harness.waitUntil("both lists") { harness.app.state.notes.hasLoaded && harness.app.state.photos.hasLoaded }
        return harness
    }

    func testEachLayerComesAndGoesWithItsState() async throws {
        let harness = await harness()
        XCTAssertEqual(harness.compositor.layers.count, 1, "the main screen alone")
        let note = try XCTUnwrap(harness.app.state.notes.entries.first)

        harness.app.update { $0.history = NoteHistory(entry: note) }
        XCTAssertTrue(harness.compositor.top is HistoryLayer)
        let history = harness.compositor.top
        _ = harness.render(width: 80, height: 24)
        XCTAssertTrue(harness.compositor.top === history, "the same layer from frame to frame while it is shown")

        harness.app.update { $0.search = SearchState() }
        XCTAssertTrue(harness.compositor.top is SearchLayer)
        harness.app.update { $0.viewer = PhotoViewer(pathLower: "/byteclub/photos/alps.jpg") }
        XCTAssertTrue(harness.compositor.top is ViewerLayer)
        harness.app.update { $0.showsTransfersPanel = true }
        XCTAssertTrue(harness.compositor.top is TransfersPanel)
        XCTAssertEqual(harness.compositor.layers.count, 5)

        harness.app.update {
            $0.history = nil
            $0.search = nil
            $0.viewer = nil
            $0.showsTransfersPanel = false
        }
        XCTAssertEqual(harness.compositor.layers.count, 1, "nothing left over once the state shows nothing")
        harness.app.update { $0.history = NoteHistory(entry: note) }
        XCTAssertFalse(harness.compositor.top === history, "shown again, a layer starts afresh")
    }

    func testAQuestionIsStateUntilItIsAnswered() async throws {
        let harness = await harness()
        harness.press(.char("n"))
        for character in "Draft" { harness.press(.char(character)) }
        XCTAssertTrue(harness.compositor.top is EditorLayer, "the editor is a layer while a note is open")
        harness.press(.escape)
        XCTAssertEqual(harness.app.state.dialogs.count, 1, "Esc on unsaved changes asks")
        XCTAssertTrue(harness.compositor.top is DialogLayer)
        XCTAssertTrue(harness.render(width: 80, height: 24).dump().contains("Unsaved changes"))

        // Cancel: the question goes from the state, and so from the screen; the note stays.
        harness.press(.right, .right, .enter)
        XCTAssertTrue(harness.app.state.dialogs.isEmpty)
        XCTAssertTrue(harness.compositor.top is EditorLayer)
        XCTAssertNotNil(harness.app.state.note)

        // Asked again, Discard: the note closes, and with it the editor's layer.
        harness.press(.escape)
        XCTAssertEqual(harness.app.state.dialogs.count, 1)
        harness.press(.right, .enter)
        XCTAssertTrue(harness.app.state.dialogs.isEmpty)
        XCTAssertNil(harness.app.state.note)
        XCTAssertEqual(harness.compositor.layers.count, 1)
    }

    /// The state is a value that compares (issue 54): no closure in it. A question is its id and
    /// kind there, its layer is made from the maker the model keeps, and a state put back the
    /// way it was compares equal to the one before, so the screen it gives is the same.
    func testTheStateIsAComparableValueWithItsQuestions() async throws {
        let harness = await harness()
        let before = harness.app.state
        XCTAssertEqual(harness.app.state, before)
        harness.press(.char("n"))
        for character in "Draft" { harness.press(.char(character)) }
        XCTAssertNotEqual(harness.app.state, before, "typing in a new note changes the state")
        _ = harness.render(width: 80, height: 24)
        let editing = harness.app.state
        harness.press(.escape)
        XCTAssertEqual(harness.app.state.dialogs.map(\.kind), [.question])
        XCTAssertNotEqual(harness.app.state, editing, "a question on screen is part of the state")
        _ = harness.render(width: 80, height: 24)
        let asked = harness.app.state
        _ = harness.render(width: 80, height: 24)
        XCTAssertEqual(harness.app.state, asked, "drawing the same screen again learns nothing new")
        harness.press(.right, .right, .enter)
        XCTAssertTrue(harness.app.state.dialogs.isEmpty)
        XCTAssertEqual(harness.app.state.note?.editor.title.text, "Draft", "cancel keeps the note as it was typed")
        XCTAssertEqual(harness.app.state.note?.editor, editing.note?.editor)
    }
}
