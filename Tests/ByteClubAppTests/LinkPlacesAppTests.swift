import ByteClubApp
import Foundation
import TerminalUI
import XCTest

/// Following links and coming back puts the user where they were (issue 43): Back (Ctrl-O)
/// returns to the line, column and mode (editor or rendered view) the link was followed from; a
/// link followed from the rendered view opens its note in the view; declining to create a
/// missing note changes nothing; and a note with unsaved edits stays open behind the link, so
/// Back brings it back with its edits (issue 45).
@MainActor
final class LinkPlacesAppTests: XCTestCase {
    var club: MembersClub?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    /// "Trip plan" has 40 paragraphs of filler before its links, so the rendered view scrolls to them.
    static let trip = "Day 1: Lyon\n\n" + (1...40).map { "filler line \($0)" }.joined(separator: "\n\n")
        + "\n\nSee [[Packing list]] first\n\nThen [[Nowhere yet]]\n"
    /// The lines of the links, as "Go to line" counts (from 1).
    static let packingLine = lineNumber("See [[")
    static let nowhereLine = lineNumber("Then [[")

    static func lineNumber(_ start: String) -> String {
        String((trip.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix(start) } ?? 0) + 1)
    }

    private func harness() async throws -> Harness {
        let club = try await MembersClub(notes: ["Trip plan.md": Self.trip, "Packing list.md": "Boots\nRain jacket\n"])
        self.club = club
        let harness = Harness(store: club.store(token: club.annToken))
        await harness.start()
        return harness
    }


    func testBackReturnsToTheLineAndColumnTheLinkWasFollowedFrom() async throws {
        let harness = try await harness()
        defer { harness.app.stopLiveUpdates() }
        try await harness.open(note: "Trip plan.md")
        // On "See [[Packing list]] first", on the P.
        harness.press(.ctrl("g"))
        for key in KeyDecoder.decode(Self.packingLine) { harness.press(key) }
        harness.press(.enter)
        for _ in 0..<6 { harness.press(.right) }
        let left = TextBuffer.Position(line: (Int(Self.packingLine) ?? 0) - 1, offset: 6)
        XCTAssertEqual(harness.app.state.note?.editor.body.cursor, left)
        harness.press(.ctrl("]"))
        await harness.waitUntil("the packing list") {
            harness.app.state.note?.entry?.name == "Packing list.md" && harness.app.state.note?.isEditing == true
        }
        XCTAssertNil(harness.app.state.noteView, "followed from the editor: the editor")

        harness.press(.ctrl("o"))
        await harness.waitUntil("the trip plan again") {
            harness.app.state.note?.entry?.name == "Trip plan.md" && harness.app.state.note?.isEditing == true
        }
        XCTAssertEqual(harness.app.state.note?.editor.body.cursor, left, "the line and column it was left at")
        XCTAssertEqual(harness.app.state.note?.editor.focus, .body)
        XCTAssertNil(harness.app.state.noteView, "in the editor, as it was left")
        XCTAssertTrue(harness.render(width: 120, height: 36).dump().contains("See [[Packing list]] first"), "the cursor's line is on screen")
    }

    func testALinkFollowedFromTheViewOpensInTheViewAndBackReturnsToTheViewAsItWas() async throws {
        let harness = try await harness()
        defer { harness.app.stopLiveUpdates() }
        try await harness.open(note: "Trip plan.md")
        harness.press(.down, .down, .right, .right)
        let cursor = TextBuffer.Position(line: 2, offset: 2)
        harness.press(.alt("v"))
        _ = harness.render(width: 80, height: 24)
        harness.press(.tab)
        _ = harness.render(width: 80, height: 24)  // the scroll as drawn (kept within the note)
        let view = try XCTUnwrap(harness.app.state.noteView)
        XCTAssertGreaterThan(view.scroll, 0, "the link is far down: the view scrolled to it")
        XCTAssertNotNil(view.selectedLink)

        harness.press(.enter)
        await harness.waitUntil("the packing list, in the view") {
            harness.app.state.note?.entry?.name == "Packing list.md" && harness.app.state.note?.isEditing == true
                && harness.app.state.noteView != nil
        }
        let there = harness.render(width: 80, height: 24).dump()
        XCTAssertTrue(there.contains("Packing list.md · Rendered view"), there)
        XCTAssertTrue(there.contains("Rain jacket"), there)
        XCTAssertEqual(harness.app.state.noteView?.scroll, 0, "a note newly opened in the view starts at its top")

        // Back from the view itself (Ctrl-O is the view's too).
        harness.press(.ctrl("o"))
        await harness.waitUntil("the trip plan, in the view again") {
            harness.app.state.note?.entry?.name == "Trip plan.md" && harness.app.state.note?.isEditing == true
                && harness.app.state.noteView != nil
        }
        XCTAssertEqual(harness.app.state.noteView?.scroll, view.scroll, "scrolled as it was left")
        XCTAssertEqual(harness.app.state.noteView?.selectedLink, view.selectedLink)
        XCTAssertEqual(harness.app.state.note?.editor.body.cursor, cursor, "the editor's cursor too")
        let back = harness.render(width: 80, height: 24).dump()
        XCTAssertTrue(back.contains("Trip plan.md · Rendered view"), back)
        XCTAssertTrue(back.contains("See Packing list first"), back)

        // Alt-V goes on to the editor, at that cursor.
        harness.press(.alt("v"))
        XCTAssertNil(harness.app.state.noteView)
        XCTAssertEqual(harness.app.state.note?.editor.body.cursor, cursor)
    }

    func testDecliningToCreateAMissingNoteLeavesEverythingWhereItWas() async throws {
        let harness = try await harness()
        defer { harness.app.stopLiveUpdates() }
        try await harness.open(note: "Trip plan.md")
        harness.press(.down, .right)
        harness.press(.alt("v"))
        _ = harness.render(width: 80, height: 24)
        harness.press(.tab, .tab)
        _ = harness.render(width: 80, height: 24)  // the scroll as drawn (kept within the note)
        let view = try XCTUnwrap(harness.app.state.noteView)
        let cursor = harness.app.state.note?.editor.body.cursor

        for decline in [Key.escape, .char("a")] {
            harness.press(.enter)
            let dialog = try XCTUnwrap(harness.compositor.top as? DialogLayer, "Create it? is asked")
            XCTAssertEqual(dialog.modal.buttons, ["Create", "Cancel"])
            // Cancel's own letter (`c` is Create's), or Esc.
            harness.press(decline)
            XCTAssertFalse(harness.compositor.top is DialogLayer)
            XCTAssertEqual(harness.app.state.note?.entry?.name, "Trip plan.md", "\(decline.label): the same note")
            XCTAssertEqual(harness.app.state.noteView?.scroll, view.scroll, "\(decline.label): the same view, scrolled the same")
            XCTAssertEqual(harness.app.state.noteView?.selectedLink, view.selectedLink, "\(decline.label): the same link picked")
            XCTAssertEqual(harness.app.state.note?.editor.body.cursor, cursor, "\(decline.label): the same cursor")
            XCTAssertTrue(harness.render(width: 80, height: 24).dump().contains("Rendered view"))
        }

        // In the editor, the same: still the editor, at the same place.
        harness.press(.alt("v"))
        harness.press(.ctrl("g"))
        for key in KeyDecoder.decode(Self.nowhereLine) { harness.press(key) }
        harness.press(.enter, .end, .left)
        let onLink = harness.app.state.note?.editor.body.cursor
        harness.press(.ctrl("]"))
        XCTAssertTrue(harness.compositor.top is DialogLayer)
        harness.press(.escape)
        XCTAssertNil(harness.app.state.noteView)
        XCTAssertEqual(harness.app.state.note?.editor.body.cursor, onLink)
        XCTAssertEqual(harness.app.state.note?.isEditing, true)
    }

    func testWithUnsavedEditsTheNoteStaysOpenBehindTheLinkAndBackBringsItsEditsBack() async throws {
        let harness = try await harness()
        defer { harness.app.stopLiveUpdates() }
        try await harness.open(note: "Trip plan.md")
        harness.press(.char("!"))
        XCTAssertEqual(harness.app.state.note?.isModified, true)

        // A link to an existing note: it opens, and the edited note stays open behind it.
        harness.press(.ctrl("g"))
        for key in KeyDecoder.decode(Self.packingLine) { harness.press(key) }
        harness.press(.enter)
        for _ in 0..<6 { harness.press(.right) }
        harness.press(.ctrl("]"))
        await harness.waitUntil("the packing list") {
            harness.app.state.note?.entry?.name == "Packing list.md" && harness.app.state.note?.isEditing == true
        }
        XCTAssertEqual(harness.app.state.buffers.parked.map { $0.entry?.name }, ["Trip plan.md"])
        XCTAssertEqual(harness.app.state.buffers.parked.first?.editor.body.text, "!" + Self.trip, "kept with its edit")
        XCTAssertTrue(harness.app.state.hasUnsavedEdits)

        // Back: the same editor, its edit and its [+], at the link's place.
        harness.press(.ctrl("o"))
        await harness.waitUntil("the trip plan again") { harness.app.state.note?.entry?.name == "Trip plan.md" }
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "!" + Self.trip)
        XCTAssertEqual(harness.app.state.note?.isModified, true)
        XCTAssertEqual(harness.app.state.note?.editor.body.cursor, TextBuffer.Position(line: (Int(Self.packingLine) ?? 0) - 1, offset: 6))
        XCTAssertTrue(harness.render(width: 120, height: 36).dump().contains("[+]"))
        XCTAssertTrue(harness.app.state.buffers.parked.isEmpty, "the packing list had nothing unsaved: it closed")

        // A missing note: the question is asked all the same; Create keeps the edited note open.
        harness.press(.ctrl("g"))
        for key in KeyDecoder.decode(Self.nowhereLine) { harness.press(key) }
        harness.press(.enter, .end, .left, .ctrl("]"))
        XCTAssertTrue(harness.compositor.top is DialogLayer, "the question is asked")
        harness.press(.enter)
        XCTAssertEqual(harness.app.state.note?.editor.title.text, "Nowhere yet")
        XCTAssertEqual(harness.app.state.buffers.parked.map { $0.entry?.name }, ["Trip plan.md"])
        harness.press(.alt("1"))
        XCTAssertEqual(harness.app.state.note?.entry?.name, "Trip plan.md", "Alt-1: the first open note")
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "!" + Self.trip)
    }
}
