import Remote
import TerminalUI
import XCTest
@testable import ByteClubApp

/// The open notes as a value: the note on screen parked at its place and another shown,
/// `Alt-N`'s order kept, a note still loading never kept, and what a quit question says.
final class OpenNotesStateTests: XCTestCase {
    /// A note being edited, `edited`: with a change the server does not have.
    func session(_ title: String, edited: Bool) -> NoteSession {
        var session = NoteSession(newNote: "draft-" + title)
        session.editor.title = TextInputState(text: title)
        session.version = edited ? 1 : 0
        return session
    }

    func testTheShownNoteIsParkedAtItsPlaceAndComesBackWithItsEdits() {
        var state = AppState(backend: "club")
        state.note = session("Trip", edited: true)
        state.note?.editor.body.insert("my words")
        state.parkShownNote()
        XCTAssertNil(state.note)
        XCTAssertEqual(state.buffers.parked.map(\.editor.title.text), ["Trip"])
        state.note = session("Packing", edited: true)
        XCTAssertEqual(state.openNotes.map(\.editor.title.text), ["Trip", "Packing"])
        XCTAssertEqual(state.shownNoteIndex, 1)

        state.showOpenNote(at: 0)
        XCTAssertEqual(state.note?.editor.title.text, "Trip")
        XCTAssertEqual(state.note?.editor.body.text, "my words", "the edits came back with the note")
        XCTAssertEqual(state.note?.isModified, true)
        XCTAssertEqual(state.openNotes.map(\.editor.title.text), ["Trip", "Packing"], "Alt-1 and Alt-2 keep their notes")
        XCTAssertEqual(state.shownNoteIndex, 0)

        state.showOpenNote(at: 1)
        XCTAssertEqual(state.note?.editor.title.text, "Packing")
        XCTAssertEqual(state.openNotes.map(\.editor.title.text), ["Trip", "Packing"])
        state.showOpenNote(at: 7)
        XCTAssertEqual(state.note?.editor.title.text, "Packing", "no such note: nothing moves")
    }

    func testALoadingNoteIsDroppedNotKeptAndTheViewGoesWithTheNote() {
        var state = AppState(backend: "club")
        state.note = NoteSession(loading: RemoteEntry(kind: .file, name: "Slow.md", path: "/byteclub/Slow.md"))
        state.noteView = NoteViewState(openedFromList: false)
        state.parkShownNote()
        XCTAssertNil(state.note)
        XCTAssertNil(state.noteView)
        XCTAssertTrue(state.buffers.parked.isEmpty)
        XCTAssertTrue(state.openNotes.isEmpty)
    }

    func testTheQuitQuestionNamesEveryUnsavedNoteWhenThereAreSeveral() {
        var state = AppState(backend: "club")
        XCTAssertNil(state.unsavedNotesSentence)
        XCTAssertFalse(state.hasUnsavedEdits)
        state.note = session("Trip", edited: true)
        XCTAssertEqual(state.unsavedNotesSentence, "A note has unsaved changes (its draft is kept for next time).")
        state.parkShownNote()
        XCTAssertTrue(state.hasUnsavedEdits, "a note kept open behind counts")
        XCTAssertTrue(state.needsQuitConfirmation)
        state.note = session("Clean", edited: false)
        state.parkShownNote()
        state.note = session("Packing", edited: true)
        XCTAssertEqual(state.unsavedNotesSentence,
                       "2 notes have unsaved changes (their drafts are kept for next time): Trip.md, Packing.md.")
    }

    func testAnOutboxAnswerForAParkedNoteChangesOnlyThatNote() {
        var state = AppState(backend: "club")
        state.note = session("Trip", edited: true)
        state.parkShownNote()
        state.note = session("Packing", edited: true)
        state.updateParked(draftID: "draft-Trip") { $0.savedVersion = $0.version }
        XCTAssertEqual(state.buffers.parked.first?.isModified, false)
        XCTAssertEqual(state.note?.isModified, true, "the note on screen is another note")
        state.updateParked(draftID: "draft-Packing") { $0.savedVersion = -5 }
        XCTAssertEqual(state.note?.savedVersion, 0, "only a parked note is changed by draft")
    }
}
