import Markdown
import XCTest

/// Links rewritten in place (``NoteLinks/retargeting(_:_:)``): which links change is the core's
/// `LinkRewrite`'s to say (ClubKitTests' LinkRewriteTests); here each keeps all but its target.
final class NoteLinksRetargetTests: XCTestCase {
    /// `text` with its links, in the order written, given `targets` (nil: left).
    private func retarget(_ text: String, _ targets: [String?]) -> (text: String, count: Int) {
        let links = NoteLinks.scan(text)
        XCTAssertEqual(links.count, targets.count, "\(links)")
        let changes = zip(links, targets).compactMap { link, target in target.map { NoteLinks.Retarget(link: link, target: $0) } }
        return NoteLinks.retargeting(text, changes)
    }

    func testAWikiLinkKeepsItsPartItsShownTextAndItsBang() {
        let text = "See [[Trip plan]], [[trip PLAN|the trip]] and [[Trip plan#Day 2]].\nÉté: ![[Trip plan]] 🚤 [[Trip plan#Day 2|d2]]"
        let (renamed, count) = retarget(text, Array(repeating: "Voyage d'été", count: 5))
        XCTAssertEqual(count, 5)
        XCTAssertEqual(renamed, "See [[Voyage d'été]], [[Voyage d'été|the trip]] and [[Voyage d'été#Day 2]].\nÉté: ![[Voyage d'été]] 🚤 [[Voyage d'été#Day 2|d2]]")
    }

    /// A table's escaped bar stays escaped, or the rewrite would split the table's cell.
    func testAWikiLinkInATableKeepsItsEscapedBar() {
        let text = "| a | b |\n|---|---|\n| [[Old\\|the old one]] | [[Old#Part\\|p]] |\n"
        let (renamed, count) = retarget(text, ["New", "New"])
        XCTAssertEqual(count, 2)
        XCTAssertEqual(renamed, "| a | b |\n|---|---|\n| [[New\\|the old one]] | [[New#Part\\|p]] |\n")
    }

    func testAMarkdownLinkKeepsItsTextPartAndTitleAndIsAngledWhenItNeedsIt() {
        let text = "[the day](Boats/Day%20one.md#wind \"t\") [x](<Old Stuff/Plan A.md>) [y](Day.md) ![d](photos/d.jpg)\n"
        let (moved, count) = retarget(text, ["Sailing/Day one.md", "Old Stuff/Plan B.md", "Boats/Day.md", "../photos/d.jpg"])
        XCTAssertEqual(count, 4)
        XCTAssertEqual(moved, "[the day](<Sailing/Day one.md#wind> \"t\") [x](<Old Stuff/Plan B.md>) [y](Boats/Day.md) ![d](../photos/d.jpg)\n")
    }

    func testCRLFLinesTheTrailingNewlineAndUnchangedLinksAreKept() {
        let text = "a [[Old]]\r\nb [[Old|x]] [[Same]] [[Left]]\n"
        let (renamed, count) = retarget(text, ["New", "New", "Same", nil])
        XCTAssertEqual(count, 2, "a link whose target is already that is no change")
        XCTAssertEqual(renamed, "a [[New]]\r\nb [[New|x]] [[Same]] [[Left]]\n")
        XCTAssertEqual(NoteLinks.retargeting("nothing here\n", []).count, 0)
    }

    func testARelativePathClimbsOutOfTheFolder() {
        XCTAssertEqual(NoteLinks.relativePath(from: "/byteclub/Old/Trips", to: "/byteclub/Index.md"), "../../Index.md")
        XCTAssertEqual(NoteLinks.relativePath(from: "/byteclub", to: "/byteclub/Boats/Day.md"), "Boats/Day.md")
    }
}
