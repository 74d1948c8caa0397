import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// Closing the editor leaves the notes list on the note that was edited (issue 43), not on the
/// top row or on whatever row the list had: after edits saved, after closing with Esc → Save, for
/// a new note just saved, after a rename by a new title, and for a note reached by a link.
@MainActor
final class EditorCloseSelectionAppTests: XCTestCase {
    var club: MembersClub?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    /// Ann's app; `serverTimes`: the list ordered by the server's times (a saved note goes to
    /// the top), else by name (every note at one fixed time).
    private func harness(serverTimes: Bool = false) async throws -> Harness {
        let notes = ["Apples.md": "a\n", "Bread.md": "b\n", "Cheese.md": "c\n", "Dates.md": "See [[Figs]]\n", "Eggs.md": "e\n", "Figs.md": "f\n"]
        let club = try await MembersClub(notes: notes)
        self.club = club
        let store = serverTimes
            ? DropboxStore(displayName: "club", endpoints: .club(club.server.baseURL), tokens: StaticToken(club.annToken), configuration: .ephemeral)
            : club.store(token: club.annToken)
        let harness = Harness(store: store)
        await harness.start()
        return harness
    }

    /// Ordered by the server's times: the saved note may move (to the top, unless saved within
    /// the second the club was made), and the list goes with it.
    func testTheListFollowsASavedNoteToItsNewRow() async throws {
        let harness = try await harness(serverTimes: true)
        defer { harness.app.stopLiveUpdates() }
        try select("Cheese.md", harness)
        await openSelected(harness)
        harness.press(.char("!"), .ctrl("s"))
        await harness.waitUntil("saved") { harness.app.state.message?.text == "Saved \"Cheese.md\"" }
        harness.press(.escape)
        XCTAssertEqual(selected(harness), "Cheese.md")
        await harness.waitUntil("the list loaded with the saved note") {
            !harness.app.state.notes.isLoading && harness.app.state.notes.entries.contains { $0.name == "Cheese.md" && $0.size == 3 }
        }
        XCTAssertEqual(selected(harness), "Cheese.md")

        try select("Eggs.md", harness)
        await saveAndCloseNewNote("Dill", harness)
        XCTAssertEqual(selected(harness), "Dill.md")

        try select("Bread.md", harness)
        await openSelected(harness)
        harness.press(.ctrl("t"), .end)
        for key in KeyDecoder.decode(" rolls") { harness.press(key) }
        harness.press(.escape, .char("s"))
        await harness.waitUntil("renamed and closed") { harness.app.state.note == nil && harness.app.state.message?.text == "Saved \"Bread rolls.md\"" }
        await harness.waitUntil("the new name listed") {
            self.isListed("Bread rolls.md", harness)
        }
        XCTAssertEqual(selected(harness), "Bread rolls.md")
    }

    /// The name of the note under the list's selection.
    private func selected(_ harness: Harness) -> String? {
        switch harness.app.state.selectedNoteItem(in: NoteListing.make(harness.app.state, format: Clock.format)) {
        case .note(let entry, _)?: return entry.name
        case .draft(let draft)?: return "draft: " + draft.title
        case .folder(let folder)?: return "folder: " + folder.name
        case .file(let entry)?: return "file: " + entry.name
        case nil: return nil
        }
    }

    private func select(_ name: String, _ harness: Harness) throws {
        let row = try XCTUnwrap(harness.app.noteItems.firstIndex { if case .note(let entry, _) = $0 { entry.name == name } else { false } })
        harness.press(.home)
        for _ in 0..<row { harness.press(.down) }
        XCTAssertEqual(selected(harness), name)
    }

    /// Whether the list has a note (not a draft) named `name`.
    private func isListed(_ name: String, _ harness: Harness) -> Bool {
        harness.app.noteItems.contains { if case .note(let entry, _) = $0 { entry.name == name } else { false } }
    }

    /// `n`, the title, Enter, one letter of text, Ctrl-S, then Esc once it is saved; returns
    /// when the list has the note.
    private func saveAndCloseNewNote(_ title: String, _ harness: Harness) async {
        harness.press(.char("n"))
        for key in KeyDecoder.decode(title) { harness.press(key) }
        harness.press(.enter, .char("d"), .ctrl("s"))
        await harness.waitUntil("the new note saved") { harness.app.state.message?.text == "Saved \"\(title).md\"" }
        harness.press(.escape)
        await harness.waitUntil("the new note listed") { self.isListed(title + ".md", harness) }
    }

    private func openSelected(_ harness: Harness) async {
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }
    }

    func testClosingLeavesTheListOnTheNoteThatWasEdited() async throws {
        let harness = try await harness()
        defer { harness.app.stopLiveUpdates() }

        // Edited, saved, closed.
        try select("Cheese.md", harness)
        await openSelected(harness)
        harness.press(.char("!"), .ctrl("s"))
        await harness.waitUntil("saved") { harness.app.state.message?.text == "Saved \"Cheese.md\"" }
        harness.press(.escape)
        XCTAssertNil(harness.app.state.note)
        XCTAssertEqual(selected(harness), "Cheese.md")
        await harness.waitUntil("the list loaded again") { !harness.app.state.notes.isLoading }
        XCTAssertEqual(selected(harness), "Cheese.md", "and after the list came again")

        // Esc → Save.
        try select("Bread.md", harness)
        await openSelected(harness)
        harness.press(.char("!"), .escape, .char("s"))
        await harness.waitUntil("saved and closed") { harness.app.state.note == nil }
        XCTAssertEqual(selected(harness), "Bread.md")

        // A new note, saved, closed: the list is on it, wherever it sorts.
        try select("Apples.md", harness)
        await saveAndCloseNewNote("Dill", harness)
        XCTAssertEqual(selected(harness), "Dill.md")

        // A new title: the list is on the note under its new name.
        try select("Eggs.md", harness)
        await openSelected(harness)
        harness.press(.ctrl("t"), .end)
        for key in KeyDecoder.decode(" and ham") { harness.press(key) }
        harness.press(.ctrl("s"))
        await harness.waitUntil("renamed") { harness.app.state.message?.text == "Saved \"Eggs and ham.md\"" }
        harness.press(.escape)
        await harness.waitUntil("the new name listed") {
            self.isListed("Eggs and ham.md", harness)
        }
        XCTAssertEqual(selected(harness), "Eggs and ham.md")

        // Reached by a link: closing it leaves the list on it, not on the note the link was in.
        try select("Dates.md", harness)
        await openSelected(harness)
        harness.press(.right, .right, .right, .right, .right, .right, .ctrl("]"))
        await harness.waitUntil("the linked note") { harness.app.state.note?.entry?.name == "Figs.md" && harness.app.state.note?.isEditing == true }
        harness.press(.escape)
        XCTAssertEqual(selected(harness), "Figs.md")

        // Opened and closed with no edit: where it was.
        try select("Cheese.md", harness)
        await openSelected(harness)
        harness.press(.escape)
        XCTAssertEqual(selected(harness), "Cheese.md")
    }
}
