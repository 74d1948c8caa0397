import ClubKit
import Remote
import XCTest

/// Renames and moves keep links, in every form (issue 54): the core's ``LinkRewrite``, the one
/// rewrite the app's `R` and `m` (and a folder's rename) save through, deciding by the one
/// resolver which links led into what moved.
final class LinkRewriteTests: XCTestCase {
    /// The club's notes at `paths`, with `aliases` (alias → paths), as a resolver.
    private func notes(_ paths: [String], aliases: [String: [String]] = [:]) -> NoteResolver {
        let entries = paths.map { RemoteEntry(kind: .file, name: ($0 as NSString).lastPathComponent, path: $0) }
        return NoteResolver(entries: entries, root: "/byteclub", aliases: aliases.mapValues { $0.map { $0.lowercased() } })
    }

    /// `R` on "Plan A" in `Old Stuff/`: the title, the path and the Markdown links, each with its
    /// part, shown text or title kept; an alias, code, another title and a picture stay.
    func testARenameRewritesEveryFormOfLinkToTheNote() {
        let club = notes(["/byteclub/Home.md", "/byteclub/Old Stuff/Plan A.md", "/byteclub/Plan Apple.md"],
                         aliases: ["sailing": ["/byteclub/Old Stuff/Plan A.md"]])
        let rename = LinkRewrite(from: "/byteclub/Old Stuff/Plan A.md", to: "/byteclub/Old Stuff/Plan B.md", notes: club)
        let text = """
            [[Plan A]], [[plan a|the plan]], [[Plan A#Day 2]] and ![[Plan A]]
            [[Old Stuff/Plan A]] and [[Old Stuff/Plan A.md|the file]]
            [the plan](<Old Stuff/Plan A.md>), [again](Old%20Stuff/Plan%20A.md#top "t") and [bare](Old%20Stuff/Plan%20A)
            Left: [[Sailing]], `[[Plan A]]`, [[Plan Apple]], ![pic](photos/Plan A.jpg)

            """
        let (rewritten, count) = rename.rewrite(text, wasAt: "/byteclub/Home.md")
        XCTAssertEqual(rewritten, """
            [[Plan B]], [[Plan B|the plan]], [[Plan B#Day 2]] and ![[Plan B]]
            [[Old Stuff/Plan B]] and [[Old Stuff/Plan B.md|the file]]
            [the plan](<Old Stuff/Plan B.md>), [again](<Old Stuff/Plan B.md#top> "t") and [bare](<Old Stuff/Plan B>)
            Left: [[Sailing]], `[[Plan A]]`, [[Plan Apple]], ![pic](photos/Plan A.jpg)

            """)
        XCTAssertEqual(count, 9)
        XCTAssertEqual(rename.rewrite("nothing here\n", wasAt: "/byteclub/Home.md").count, 0)
    }

    /// A path's end keeps its length (`[[2025/Deep two]]` → `[[2025/Deep three]]`), and stays as
    /// written while it still names the note after a move above it.
    func testAPathsEndKeepsItsFormAndStaysWhileItStillNamesTheNote() {
        let club = notes(["/byteclub/Home.md", "/byteclub/Old Stuff/2025/Deep two.md"])
        let text = "[[2025/Deep two]] and [[Deep two]]\n"
        let renamed = LinkRewrite(from: "/byteclub/Old Stuff/2025/Deep two.md", to: "/byteclub/Old Stuff/2025/Deep three.md", notes: club)
        XCTAssertEqual(renamed.rewrite(text, wasAt: "/byteclub/Home.md").text, "[[2025/Deep three]] and [[Deep three]]\n")
        let moved = LinkRewrite(from: "/byteclub/Old Stuff", to: "/byteclub/Archive", notes: club)
        XCTAssertEqual(moved.rewrite(text, wasAt: "/byteclub/Home.md").count, 0, "both still name the note")
        XCTAssertEqual(moved.rewrite("[[Old Stuff/2025/Deep two]]\n", wasAt: "/byteclub/Home.md").text, "[[Archive/2025/Deep two]]\n")
    }

    /// A title that another note would answer to after the rename (nearer, or as near) is
    /// written as the path, so the link still leads where it did; links to that other note stay.
    func testATitleThatWouldLeadElsewhereIsWrittenAsThePath() {
        let club = notes(["/byteclub/Home.md", "/byteclub/Trips/Plan A.md", "/byteclub/Plan B.md"])
        let rename = LinkRewrite(from: "/byteclub/Trips/Plan A.md", to: "/byteclub/Trips/Plan B.md", notes: club)
        XCTAssertEqual(rename.rewrite("[[Plan A]] and [[Plan B]]\n", wasAt: "/byteclub/Home.md").text, "[[Trips/Plan B]] and [[Plan B]]\n")
    }

    func testLinksIntoAMovedFolderFollowItAndTitlesStay() {
        let club = notes(["/byteclub/Index.md", "/byteclub/Boats/Day one.md"])
        let text = "See [[Boats/Day one]] and [[Day one]], [the day](Boats/Day%20one.md#wind \"t\"), [[Boats/Day one.md|shown]], [[Boats/plan.pdf]] and `[[Boats/x]]`\n"
        let moved = LinkRewrite(from: "/byteclub/Boats", to: "/byteclub/Sailing", notes: club).rewrite(text, wasAt: "/byteclub/Index.md")
        XCTAssertEqual(moved.text, "See [[Sailing/Day one]] and [[Day one]], [the day](<Sailing/Day one.md#wind> \"t\"), [[Sailing/Day one.md|shown]], [[Sailing/plan.pdf]] and `[[Boats/x]]`\n")
        XCTAssertEqual(moved.count, 4)
    }

    func testAMovedNotesOwnRelativeLinksAreWrittenFromItsNewFolder() {
        let club = notes(["/byteclub/Index.md", "/byteclub/Trips/Day.md"])
        let move = LinkRewrite(from: "/byteclub/Trips", to: "/byteclub/Old/Trips", notes: club)
        let moved = move.rewrite("Back to [top](../Index.md) and ![deck](../photos/deck.jpg), [[Index]]\n", wasAt: "/byteclub/Trips/Day.md")
        XCTAssertEqual(moved.text, "Back to [top](../../Index.md) and ![deck](../../photos/deck.jpg), [[Index]]\n")
        XCTAssertEqual(moved.count, 2)
        XCTAssertEqual(move.now("/byteclub/Trips/Day.md"), "/byteclub/Old/Trips/Day.md")
        XCTAssertEqual(move.was("/byteclub/Old/Trips/Day.md"), "/byteclub/Trips/Day.md")
    }

    func testANoteMovedIntoAFolderIsFoundByItsNewPath() {
        let club = notes(["/byteclub/I.md", "/byteclub/Day.md"])
        let move = LinkRewrite(from: "/byteclub/Day.md", to: "/byteclub/Boats/Day.md", notes: club)
        XCTAssertEqual(move.rewrite("[x](Day.md) [[Day]] [y](/byteclub/Day.md)\n", wasAt: "/byteclub/I.md").text,
                       "[x](Boats/Day.md) [[Day]] [y](/byteclub/Boats/Day.md)\n")
    }

    /// The notes as they were, from a listing the move has reached already.
    func testTheNotesBeforeTheMoveFromAListingAfterIt() {
        let after = notes(["/byteclub/Home.md", "/byteclub/Old Stuff/Plan B.md"])
        let before = after.unmoved(from: "/byteclub/Old Stuff/Plan A.md", to: "/byteclub/Old Stuff/Plan B.md")
        XCTAssertEqual(before.entries.map(\.path), ["/byteclub/Home.md", "/byteclub/Old Stuff/Plan A.md"])
        XCTAssertEqual(before.entries.map(\.name), ["Home.md", "Plan A.md"])
        let rename = LinkRewrite(from: "/byteclub/Old Stuff/Plan A.md", to: "/byteclub/Old Stuff/Plan B.md", notes: before)
        XCTAssertEqual(rename.rewrite("[[Plan A]]\n", wasAt: "/byteclub/Home.md").text, "[[Plan B]]\n")
    }
}
