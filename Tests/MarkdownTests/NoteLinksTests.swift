import Markdown
import XCTest

final class NoteLinksTests: XCTestCase {
    func testWikiLinksWithTextAndPart() {
        let links = NoteLinks.scan("See [[Trip plan]] and [[Budget|the money]], also [[Trip plan#Day 2]].")
        XCTAssertEqual(links.map(\.destination), ["Trip plan", "Budget", "Trip plan"])
        XCTAssertEqual(links.map(\.text), ["Trip plan", "the money", "Trip plan"])
        XCTAssertEqual(links[0].bytes, 4..<17)
        XCTAssertEqual(links.map { $0.target(inFolder: "/byteclub") }, [.note(title: "Trip plan"), .note(title: "Budget"), .note(title: "Trip plan")])
    }

    /// In a table the bar of `[[Note\|text]]` and `![[x.jpg\|100]]` is escaped, as Obsidian's
    /// help writes it ("Vertical bars in tables"): the backslash is not part of the name.
    func testAWikiLinksBarEscapedInATableSplitsItsText() {
        let text = "| a | b |\n|---|---|\n| [[Basic formatting syntax\\|Markdown syntax]] | ![[Engelbart.jpg\\|200]] |\n"
        let links = NoteLinks.scan(text)
        XCTAssertEqual(links.map(\.destination), ["Basic formatting syntax", "Engelbart.jpg"])
        XCTAssertEqual(links.map(\.text), ["Markdown syntax", "Engelbart.jpg"])
        XCTAssertEqual(links.map(\.size?.width), [nil, 200])
        XCTAssertEqual(links.map(\.line), [2, 2])
    }

    func testPicturesBothWays() {
        let text = "# Desk\n![desk](photos/desk.jpg) and ![[pano.jpg|300]] and ![[sea.jpg|The sea]]\n"
        let links = NoteLinks.scan(text)
        XCTAssertEqual(links.count, 3)
        XCTAssertTrue(links.allSatisfy(\.isImage))
        XCTAssertEqual(links.map { $0.target(inFolder: "/byteclub") },
                       [.photo("/byteclub/photos/desk.jpg"), .photo("/byteclub/photos/pano.jpg"), .photo("/byteclub/photos/sea.jpg")])
        XCTAssertEqual(links.map(\.text), ["desk", "pano.jpg", "The sea"])
        XCTAssertEqual(links[0].line, 1)
        XCTAssertEqual(links[0].bytes, 0..<24)
        XCTAssertEqual(links[1].bytes, 29..<46)
    }

    func testRelativeMarkdownLinksAndOtherSchemes() {
        let text = "[plan](Trip%20plan.md) [up](../etc/passwd) [web](https://example.com/x) ![far](https://example.com/a.jpg) [js](javascript:alert(1)) <https://club.example>"
        let targets = NoteLinks.scan(text).map { $0.target(inFolder: "/byteclub") }
        XCTAssertEqual(targets, [.path("/byteclub/Trip plan.md"), .path("/etc/passwd"), .web("https://example.com/x"),
                                 .web("https://example.com/a.jpg"), .elsewhere("javascript:alert(1)"), .web("https://club.example")])
        XCTAssertEqual(NoteLinks.scan("[x](../../../x.md)").map { $0.target(inFolder: "/byteclub") }, [.elsewhere("../../../x.md")])
    }

    /// Issue 69: cmark-gfm's table extension parses a paragraph right before a table again,
    /// without positions; its links were taken for autolinks ("elsewhere", line unknown). They
    /// are Markdown links on their own lines; a bare address there stays an autolink.
    func testALinkOnTheLineBeforeATableIsAMarkdownLinkInItsPlace() {
        let text = "# Plan\n\nSee [the sails](Sails.md) and ![deck](photos/deck.jpg), [the sails](Sails.md) again\nhttps://example.com/x\n| a | b |\n|---|---|\n| 1 | [c](Sails.md) |\n"
        let all = NoteLinks.scan(text)
        // GFM's bare autolinks have no position anywhere (LinksReport.placed finds their lines).
        XCTAssertEqual(all.filter { $0.syntax == .autolink }.map { $0.target(inFolder: "/byteclub") }, [.web("https://example.com/x")])
        let links = all.filter { $0.syntax != .autolink }
        XCTAssertEqual(links.map(\.syntax), [.markdown, .markdown, .markdown, .markdown])
        XCTAssertEqual(links.map(\.line), [2, 2, 2, 6])
        XCTAssertEqual(links.prefix(3).map(\.bytes), [4..<25, 30..<54, 56..<77])
        XCTAssertEqual(links.map { $0.target(inFolder: "/byteclub") },
                       [.path("/byteclub/Sails.md"), .photo("/byteclub/photos/deck.jpg"), .path("/byteclub/Sails.md"), .path("/byteclub/Sails.md")])
        XCTAssertEqual(links[0].text, "the sails")
    }

    func testNoLinksInCode() {
        let text = "Use `[[not a link]]` here.\n\n```\n[[nor this]]\n```\n\n    [[indented code]]\n\n[[but this]]"
        XCTAssertEqual(NoteLinks.scan(text).map(\.destination), ["but this"])
    }

    /// A link in an HTML comment is none (Obsidian leaves it out too); one right after a tag,
    /// `<br>[[Other File]]` as the Tasks plugin's vault writes it, is one.
    func testALinkRightAfterInlineHTMLIsALinkAndOneInACommentIsNot() {
        let text = "- [ ] Task with<br>[[Other File]] and<br>[[Other File#Some Header|h]]\n- gone: <!-- [[commented]] --> <b>[[bold]]</b>\n"
        XCTAssertEqual(NoteLinks.scan(text).map(\.destination), ["Other File", "Other File", "bold"])
    }

    func testOddBracketsAreNotLinks() {
        XCTAssertEqual(NoteLinks.scan("[[]] [[a [b]] [[x\ny]] [[ok]] ]] [[").map(\.destination), ["ok"])
        XCTAssertEqual(NoteLinks.scan("").count, 0)
    }

    func testTitleOfPath() {
        XCTAssertEqual(NoteLinks.title(ofPath: "/byteclub/Trip plan.md"), "Trip plan")
        XCTAssertEqual(NoteLinks.title(ofPath: "/byteclub/old.TXT"), "old")
        XCTAssertEqual(NoteLinks.title(ofPath: "/byteclub/photos/a.jpg"), "a.jpg")
    }
}
