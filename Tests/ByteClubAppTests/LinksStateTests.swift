import TerminalUI
import XCTest
@testable import ByteClubApp

/// "Back"'s history: a few steps, the oldest dropped past the limit, the same note twice in a
/// row (in any case) kept once, at the place it was left last.
final class LinksStateTests: XCTestCase {
    func testHistoryKeepsTheLastStepsOnce() {
        var links = LinksState()
        links.push(LinkStop(path: "/byteclub/A.md"))
        links.push(LinkStop(path: "/BYTECLUB/a.md"))
        links.push(LinkStop(path: "/byteclub/B.md"))
        links.push(LinkStop(path: "/byteclub/A.md"))
        XCTAssertEqual(links.history.map(\.path), ["/byteclub/A.md", "/byteclub/B.md", "/byteclub/A.md"])
        for i in 0..<(LinksState.historyLimit + 5) { links.push(LinkStop(path: "/byteclub/N\(i).md")) }
        XCTAssertEqual(links.history.count, LinksState.historyLimit)
        XCTAssertEqual(links.history.first?.path, "/byteclub/N5.md")
        XCTAssertEqual(links.history.last?.path, "/byteclub/N\(LinksState.historyLimit + 4).md")
    }

    func testTheSameNoteTwiceInARowKeepsThePlaceItWasLeftLast() {
        var links = LinksState()
        var view = NoteViewState()
        view.scroll = 12
        links.push(LinkStop(path: "/byteclub/A.md", place: NotePlace(cursor: TextBuffer.Position(line: 1, offset: 2))))
        links.push(LinkStop(path: "/byteclub/a.md", place: NotePlace(cursor: TextBuffer.Position(line: 7, offset: 3), view: view)))
        XCTAssertEqual(links.history.count, 1)
        XCTAssertEqual(links.history.last?.place.cursor, TextBuffer.Position(line: 7, offset: 3))
        XCTAssertEqual(links.history.last?.place.view?.scroll, 12)
    }

    /// Where the open note is: the editor's cursor and the view as shown, without the backlinks
    /// (asked again when the view opens) or a pending start line.
    func testThePlaceOfTheOpenNote() {
        var state = AppState(backend: "test")
        XCTAssertEqual(NotePlace.current(in: state), NotePlace())
        var session = NoteSession(newNote: "d")
        session.editor = NoteEditorState(title: "T", body: "one\ntwo\n", isNew: false)
        session.editor.body.moveCursor(to: TextBuffer.Position(line: 1, offset: 2))
        state.note = session
        var view = NoteViewState(openedFromList: true)
        view.scroll = 4
        view.backlinks = [LinkingNote(path: "/byteclub/X.md", name: "X.md", modified: nil, modifiedBy: nil, line: 0, context: "")]
        view.startAtSourceLine = 9
        state.noteView = view
        let place = NotePlace.current(in: state)
        XCTAssertEqual(place.cursor, TextBuffer.Position(line: 1, offset: 2))
        XCTAssertEqual(place.view?.scroll, 4)
        XCTAssertEqual(place.view?.openedFromList, true)
        XCTAssertEqual(place.view?.backlinks, [])
        XCTAssertNil(place.view?.startAtSourceLine)
    }
}
