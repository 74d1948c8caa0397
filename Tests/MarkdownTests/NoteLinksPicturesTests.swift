import Markdown
import XCTest

/// An import moves a vault's pictures under `photos/`, where PanoPhotos looks; the notes'
/// picture links follow them (issue 43, "Bring a vault").
final class NoteLinksPicturesTests: XCTestCase {
    let moves = [
        "/byteclub/assets/deck.jpg": "/byteclub/photos/assets/deck.jpg",
        "/byteclub/trips/map one.jpg": "/byteclub/photos/trips/map one.jpg",
    ]

    func testMarkdownAndWikiPictureLinksFollowTheirPictures() {
        let text = "# Welcome\n![the deck](assets/deck.jpg) and ![[deck.jpg]]\n[a note](Other.md) ![web](https://x.org/a.jpg)\n"
        let (moved, count) = NoteLinks.relocatingPictures(in: text, folder: "/byteclub", moves: moves)
        XCTAssertEqual(count, 2)
        XCTAssertEqual(moved, "# Welcome\n![the deck](<photos/assets/deck.jpg>) and ![[photos/assets/deck.jpg]]\n[a note](Other.md) ![web](https://x.org/a.jpg)\n",
                       "each link keeps its own style")
        // And the new links lead where the pictures are.
        let targets = NoteLinks.scan(moved).filter(\.isImage).map { $0.target(inFolder: "/byteclub") }
        XCTAssertEqual(targets.prefix(2), [.photo("/byteclub/photos/assets/deck.jpg"), .photo("/byteclub/photos/assets/deck.jpg")])
    }

    /// Issue 55: `![[lisbon.jpg|300]]` stays a wiki link with its size (and an alias its alias),
    /// never `![lisbon.jpg](…)`.
    func testAWikiPictureKeepsItsStyleItsSizeAndItsText() {
        let text = "![[deck.jpg|300]] ![[Deck.JPG|100x145]]\n![[map one.jpg|the map]]\n"
        let (moved, rewrites) = NoteLinks.relocatedPictures(in: text, folder: "/byteclub/trips", moves: moves)
        XCTAssertEqual(moved, "![[../photos/assets/deck.jpg|300]] ![[../photos/assets/deck.jpg|100x145]]\n![[../photos/trips/map one.jpg|the map]]\n")
        XCTAssertEqual(rewrites.map(\.original), ["![[deck.jpg|300]]", "![[Deck.JPG|100x145]]", "![[map one.jpg|the map]]"])
        let links = NoteLinks.scan(moved)
        XCTAssertEqual(links.map(\.syntax), [.wiki, .wiki, .wiki])
        XCTAssertEqual(links.map { $0.target(inFolder: "/byteclub/trips") },
                       [.photo("/byteclub/photos/assets/deck.jpg"), .photo("/byteclub/photos/assets/deck.jpg"), .photo("/byteclub/photos/trips/map one.jpg")])
        XCTAssertEqual(links.last?.text, "the map")
    }

    /// A picture in a table (`![[deck.jpg\|200]]`, its bar escaped) follows its picture with
    /// the bar still escaped, so the table keeps its cells.
    func testAWikiPictureInATableKeepsItsEscapedBar() {
        let text = "| a | b |\n|---|---|\n| x | ![[deck.jpg\\|200]] |\n"
        let (moved, rewrites) = NoteLinks.relocatedPictures(in: text, folder: "/byteclub/trips", moves: moves)
        XCTAssertEqual(moved, "| a | b |\n|---|---|\n| x | ![[../photos/assets/deck.jpg\\|200]] |\n")
        XCTAssertEqual(rewrites.map(\.original), ["![[deck.jpg\\|200]]"])
    }

    func testANoteInASubfolderGetsAPathFromItsOwnFolder() {
        let text = "![map](<map one.jpg>)\n![](../assets/deck.jpg)\n"
        let (moved, count) = NoteLinks.relocatingPictures(in: text, folder: "/byteclub/trips", moves: moves)
        XCTAssertEqual(count, 2)
        XCTAssertEqual(moved, "![map](<../photos/trips/map one.jpg>)\n![](<../photos/assets/deck.jpg>)\n")
        let targets = NoteLinks.scan(moved).map { $0.target(inFolder: "/byteclub/trips") }
        XCTAssertEqual(targets, [.photo("/byteclub/photos/trips/map one.jpg"), .photo("/byteclub/photos/assets/deck.jpg")])
    }

    func testWhatDidNotMoveOrIsCodeOrAmbiguousIsLeftAsWritten() {
        let twins = ["/byteclub/a/x.jpg": "/byteclub/photos/a/x.jpg", "/byteclub/b/x.jpg": "/byteclub/photos/b/x.jpg"]
        let text = "`![[x.jpg]]` in code\n![[x.jpg]]\n![kept](photos/old.jpg)\n"
        let (same, count) = NoteLinks.relocatingPictures(in: text, folder: "/byteclub", moves: twins)
        XCTAssertEqual(count, 0, "two moved pictures are called x.jpg: not guessed")
        XCTAssertEqual(same, text)
        XCTAssertEqual(NoteLinks.relocatingPictures(in: text, folder: "/byteclub", moves: [:]).text, text)
    }

    func testRelativePaths() {
        XCTAssertEqual(NoteLinks.relative(from: "/byteclub", to: "/byteclub/photos/a.jpg"), "photos/a.jpg")
        XCTAssertEqual(NoteLinks.relative(from: "/byteclub/trips/day", to: "/byteclub/photos/a.jpg"), "../../photos/a.jpg")
        XCTAssertEqual(NoteLinks.relative(from: "/byteclub/photos", to: "/byteclub/photos/a.jpg"), "a.jpg")
    }
}
