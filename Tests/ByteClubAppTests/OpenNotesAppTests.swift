import ByteClubApp
import Foundation
import TerminalUI
import XCTest

/// Several open notes in the app on a club server: a save's answer goes to the note that sent
/// it (the note on screen cannot leave while its save is on its way), a note kept open is
/// untouched by it, and each note saves its own text when it is back on screen.
@MainActor
final class OpenNotesAppTests: XCTestCase {
    var club: MembersClub?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    static let trip = "Day 1: Lyon\n[[Packing list]] comes first\n"

    private func text(_ name: String) -> String? {
        guard let club else { return nil }
        return try? String(contentsOf: club.base.appendingPathComponent("club/byteclub/" + name), encoding: .utf8)
    }

    func testASaveAnswerGoesToTheNoteThatSentItNeverToTheOneKeptOpen() async throws {
        let club = try await MembersClub(notes: ["Trip plan.md": Self.trip, "Packing list.md": "Boots\n"])
        self.club = club
        let harness = Harness(store: club.store(token: club.annToken))
        await harness.start()
        defer { harness.app.stopLiveUpdates() }
        let row = try XCTUnwrap(harness.app.noteItems.firstIndex { if case .note(let entry, _) = $0 { entry.name == "Trip plan.md" } else { false } })
        harness.press(.home)
        for _ in 0..<row { harness.press(.down) }
        harness.press(.enter)
        await harness.waitUntil("Trip plan open") { harness.app.state.note?.entry?.name == "Trip plan.md" && harness.app.state.note?.isEditing == true }

        // Edited, then the link: Trip plan is kept open behind the packing list.
        harness.press(.char("!"), .down, .ctrl("]"))
        await harness.waitUntil("the packing list") { harness.app.state.note?.entry?.name == "Packing list.md" && harness.app.state.note?.isEditing == true }
        XCTAssertEqual(harness.app.state.openNotes.map { $0.entry?.name }, ["Trip plan.md", "Packing list.md"])

        // The packing list saved, and at once Alt-1: it stays until its answer is in.
        harness.press(.char("?"), .ctrl("s"))
        XCTAssertEqual(harness.app.state.note?.isSaving, true)
        harness.press(.alt("1"))
        XCTAssertEqual(harness.app.state.note?.entry?.name, "Packing list.md", "a note never leaves with its save on its way")
        XCTAssertTrue(harness.app.state.message?.text.contains("wait for the server's answer") == true, harness.app.state.message?.text ?? "")
        await harness.waitUntil("the packing list saved") { harness.app.state.note?.isEditing == true && harness.app.state.note?.isModified == false }
        XCTAssertEqual(text("Packing list.md"), "?Boots\n")
        let kept = try XCTUnwrap(harness.app.state.buffers.parked.first)
        XCTAssertEqual(kept.editor.body.text, "!" + Self.trip, "the note kept open is untouched by the other's answer")
        XCTAssertEqual(kept.isModified, true)
        XCTAssertEqual(text("Trip plan.md"), Self.trip)

        // Trip plan back on screen saves its own text; the packing list stays saved.
        harness.press(.alt("1"))
        XCTAssertEqual(harness.app.state.note?.entry?.name, "Trip plan.md")
        XCTAssertEqual(harness.render(width: 120, height: 36).dump().contains("1/2 [+]"), true)
        harness.press(.ctrl("s"))
        await harness.waitUntil("Trip plan saved") { harness.app.state.note?.isEditing == true && harness.app.state.note?.isModified == false }
        XCTAssertEqual(text("Trip plan.md"), "!" + Self.trip)
        XCTAssertEqual(text("Packing list.md"), "?Boots\n")
        XCTAssertFalse(harness.app.state.hasUnsavedEdits)
        harness.press(.alt("2"))
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "?Boots\n")
        XCTAssertEqual(harness.app.state.note?.isModified, false)
    }
}
