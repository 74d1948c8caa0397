import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// A note another member deletes while it is open (issue 43), against a club server with two
/// members: the editor says `Deleted by ray` at once with no key pressed (the live updates see
/// the deletion, the server's revisions name who), and Ctrl-S then does what the banner says,
/// saves the text again as a new note (issue 53 §2: it asked a question whose default was
/// Cancel, and saved nothing); `Esc` → Save does the same, `Esc` → Discard drops it. A save that
/// finds the note gone (no live updates, or a rename) says who and asks. Nothing ever says
/// "changed on the server".
@MainActor
final class DeletedNoteAppTests: XCTestCase {
    var club: MembersClub?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    var drafts: DraftStore?

    /// Ann's app on a club with `notes` (her drafts in ``drafts``), started, and ray's store.
    private func annsApp(notes: [String: String], live: Bool = true) async throws -> (Harness, any RemoteStore) {
        let club = try await MembersClub(notes: notes)
        self.club = club
        let drafts = DraftStore(directory: club.base.appendingPathComponent("drafts"))
        self.drafts = drafts
        let harness = Harness(store: club.store(token: club.annToken), drafts: drafts) { $0.liveUpdates = live }
        await harness.start()
        return (harness, club.store(token: club.rayToken))
    }


    /// Every text on screen and in the status bar since the save began, for "never says".
    private func assertNeverSaysChanged(_ harness: Harness, file: StaticString = #filePath, line: UInt = #line) {
        let screen = harness.render(width: 120, height: 36).dump()
        XCTAssertFalse(screen.contains("changed on the server"), screen, file: file, line: line)
        XCTAssertFalse(harness.app.state.message?.text.contains("changed on the server") ?? false, file: file, line: line)
    }

    func testTheEditorSaysWhoDeletedItAtOnceAndCtrlSSavesItAgainAsANewNote() async throws {
        let (harness, ray) = try await annsApp(notes: ["Plans.txt": "Day 1: Lyon\n"])
        defer { harness.app.stopLiveUpdates() }
        try await harness.open(note: "Plans.txt")
        harness.press(.char("!"))

        _ = try await ray.delete("/byteclub/Plans.txt")
        // No key pressed: the live updates see the deletion, and the server names who.
        await harness.waitUntil("the banner") { harness.app.state.note?.remoteDeletion != nil }
        XCTAssertEqual(harness.app.state.note?.remoteDeletion?.who, "ray")
        XCTAssertEqual(harness.app.state.note?.banner, "Deleted by ray · Ctrl-S saves it again as a new note · Esc closes")
        XCTAssertEqual(harness.app.state.message?.text, "ray deleted \"Plans\"")
        XCTAssertTrue(harness.render(width: 120, height: 36).dump().contains("Deleted by ray"))
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "!Day 1: Lyon\n", "her text is untouched")

        // Ctrl-R has nothing to merge.
        harness.press(.ctrl("r"))
        XCTAssertEqual(harness.app.state.message?.text, "Nothing to merge: ray deleted it; Ctrl-S saves it again as a new note")

        // Ctrl-S does what the banner says: no question, the text goes back as a new note.
        harness.press(.ctrl("s"))
        XCTAssertFalse(harness.compositor.top is DialogLayer, "Ctrl-S saves, as the banner says; it asks nothing")
        assertNeverSaysChanged(harness)
        await harness.waitUntil("the note saved again") { harness.app.state.message?.text == "Saved \"Plans.txt\"" }
        let (data, entry) = try await ray.read("/byteclub/Plans.txt")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "!Day 1: Lyon\n")
        XCTAssertEqual(harness.app.state.note?.entry?.rev, entry.rev, "the editor now edits the note saved again")
        XCTAssertNil(harness.app.state.note?.remoteDeletion)
        XCTAssertNil(harness.app.state.note?.banner)
        XCTAssertEqual(harness.app.state.note?.isModified, false)
        assertNeverSaysChanged(harness)
    }

    /// Issue 53 §2: `Esc` → Save on a note another member deleted did nothing that saved it.
    /// It saves the text again as a new note and closes, with no second question.
    func testEscSaveOnANoteDeletedWhileOpenSavesItAgainAndCloses() async throws {
        let (harness, ray) = try await annsApp(notes: ["Plans.txt": "Day 1: Lyon\n"])
        defer { harness.app.stopLiveUpdates() }
        try await harness.open(note: "Plans.txt")
        harness.press(.documentEnd)
        for key in KeyDecoder.decode("Day 2: Arles") { harness.press(key) }
        XCTAssertEqual(harness.app.state.note?.isModified, true)

        _ = try await ray.delete("/byteclub/Plans.txt")
        await harness.waitUntil("the banner") { harness.app.state.note?.remoteDeletion?.who == "ray" }
        harness.press(.escape)
        let dialog = try XCTUnwrap(harness.compositor.top as? DialogLayer, "Esc asks about the unsaved text")
        XCTAssertEqual(dialog.modal.title, "Unsaved changes")
        harness.press(.char("s"))
        XCTAssertFalse(harness.compositor.top is DialogLayer, "Save saves: no second question")
        await harness.waitUntil("saved again and closed") {
            harness.app.state.note == nil && harness.app.state.message?.text == "Saved \"Plans.txt\""
        }
        let (data, _) = try await ray.read("/byteclub/Plans.txt")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "Day 1: Lyon\nDay 2: Arles")
        await harness.waitUntil("no draft left: the server has the text") { self.drafts?.load(Draft.id(forPath: "/byteclub/Plans.txt")) == nil }
        assertNeverSaysChanged(harness)
    }

    func testDiscardClosesTheDeletedNoteAndDropsItsDraft() async throws {
        let (harness, ray) = try await annsApp(notes: ["Plans.md": "Day 1: Lyon\n", "Budget.md": "100\n"])
        defer { harness.app.stopLiveUpdates() }
        try await harness.open(note: "Plans.md")
        harness.press(.char("!"))
        XCTAssertTrue(harness.app.journal())
        let draftID = try XCTUnwrap(harness.app.state.note?.draftID)
        XCTAssertNotNil(drafts?.load(draftID))

        _ = try await ray.delete("/byteclub/Plans.md")
        await harness.waitUntil("the banner") { harness.app.state.note?.remoteDeletion?.who == "ray" }
        // Esc asks as for any unsaved note; Discard drops the text and writes nothing back.
        harness.press(.escape)
        XCTAssertEqual((harness.compositor.top as? DialogLayer)?.modal.title, "Unsaved changes")
        harness.press(.char("d"))
        XCTAssertNil(harness.app.state.note)
        XCTAssertEqual(harness.app.state.message?.text, "Discarded the changes to Plans.md")
        XCTAssertNil(drafts?.load(draftID), "the draft is gone")
        let notes = try await ray.list("/byteclub").map(\.name).filter { $0.hasSuffix(".md") }
        XCTAssertEqual(notes, ["Budget.md"], "nothing was written back")
    }

    /// Without live updates the save finds out: an update of a gone note (a conflict whose
    /// merge finds no note) and a rename of one both say who deleted it, then ask.
    func testASaveThatFindsTheNoteGoneSaysWhoDeletedItAndAsks() async throws {
        let (harness, ray) = try await annsApp(notes: ["Plans.txt": "Day 1: Lyon\n", "Budget.txt": "100\n"], live: false)
        try await harness.open(note: "Plans.txt")
        harness.press(.char("!"))
        _ = try await ray.delete("/byteclub/Plans.txt")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the question") { harness.compositor.top is DialogLayer }
        XCTAssertEqual((harness.compositor.top as? DialogLayer)?.modal.title, "Deleted by ray")
        XCTAssertEqual(harness.app.state.note?.banner, "Deleted by ray · Ctrl-S saves it again as a new note · Esc closes")
        // The dialog and the banner say it; no message stays behind the dialog (issue 43 §3).
        XCTAssertNil(harness.app.state.message)
        assertNeverSaysChanged(harness)
        harness.press(.escape)
        XCTAssertEqual(harness.app.state.message?.text, "Not saved; your text is kept as a draft")
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "!Day 1: Lyon\n")
        XCTAssertEqual(harness.app.state.note?.isEditing, true)

        // Marked deleted now (the banner says so): Esc, Save saves it again as a new note and closes.
        harness.press(.escape)
        XCTAssertEqual((harness.compositor.top as? DialogLayer)?.modal.title, "Unsaved changes")
        harness.press(.char("s"))
        XCTAssertFalse(harness.compositor.top is DialogLayer, "no second question")
        await harness.waitUntil("saved again and closed") {
            harness.app.state.note == nil && harness.app.state.message?.text == "Saved \"Plans.txt\""
        }
        let (saved, _) = try await ray.read("/byteclub/Plans.txt")
        XCTAssertEqual(String(decoding: saved, as: UTF8.self), "!Day 1: Lyon\n")

        // A new title for a note that is gone: the rename finds it gone, and says who.
        try await harness.open(note: "Budget.txt")
        _ = try await ray.delete("/byteclub/Budget.txt")
        harness.press(.ctrl("t"), .end)
        for key in KeyDecoder.decode(" 2027") { harness.press(key) }
        harness.press(.ctrl("s"))
        await harness.waitUntil("the question") { harness.compositor.top is DialogLayer }
        XCTAssertEqual((harness.compositor.top as? DialogLayer)?.modal.title, "Deleted by ray")
        assertNeverSaysChanged(harness)
        harness.press(.char("s"))
        await harness.waitUntil("saved under its new title") { harness.app.state.message?.text == "Saved \"Budget 2027.txt\"" }
        let (data, _) = try await ray.read("/byteclub/Budget 2027.txt")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "100\n")
    }
}
