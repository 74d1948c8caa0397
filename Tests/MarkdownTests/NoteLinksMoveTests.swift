import Markdown
import XCTest

/// Links follow a note or a folder that moved: by path, from the club folder or the note's own.
final class NoteLinksMoveTests: XCTestCase {
    func testLinksIntoAMovedFolderFollowItAndTitlesStay() {
        let text = "See [[Boats/Day one]] and [[Day one]], [the day](Boats/Day%20one.md#wind \"t\"), [[Boats/Day one.md|shown]] and `[[Boats/x]]`\n"
        let moved = NoteLinks.movingLinks(in: text, wasAt: "/byteclub/Index.md", isAt: "/byteclub/Index.md", root: "/byteclub",
                                          from: "/byteclub/Boats", to: "/byteclub/Sailing")
        XCTAssertEqual(moved.text, "See [[Sailing/Day one]] and [[Day one]], [the day](<Sailing/Day one.md#wind> \"t\"), [[Sailing/Day one.md|shown]] and `[[Boats/x]]`\n")
        XCTAssertEqual(moved.count, 3)
    }

    func testAMovedNotesOwnRelativeLinksAreWrittenFromItsNewFolder() {
        let text = "Back to [top](../Index.md) and ![deck](../photos/deck.jpg)\n"
        let moved = NoteLinks.movingLinks(in: text, wasAt: "/byteclub/Trips/Day.md", isAt: "/byteclub/Old/Trips/Day.md", root: "/byteclub",
                                          from: "/byteclub/Trips", to: "/byteclub/Old/Trips")
        XCTAssertEqual(moved.text, "Back to [top](../../Index.md) and ![deck](../../photos/deck.jpg)\n")
        XCTAssertEqual(moved.count, 2)
    }

    func testANoteMovedIntoAFolderIsFoundByItsNewPath() {
        let moved = NoteLinks.movingLinks(in: "[x](Day.md) [[Day]]\n", wasAt: "/byteclub/I.md", isAt: "/byteclub/I.md", root: "/byteclub",
                                          from: "/byteclub/Day.md", to: "/byteclub/Boats/Day.md")
        XCTAssertEqual(moved.text, "[x](Boats/Day.md) [[Day]]\n")
        XCTAssertEqual(NoteLinks.movingLinks(in: "nothing here\n", wasAt: "/byteclub/I.md", isAt: "/byteclub/I.md", root: "/byteclub",
                                             from: "/byteclub/Day.md", to: "/byteclub/B/Day.md").count, 0)
    }
}
