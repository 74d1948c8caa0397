import Markdown
import XCTest

/// `[[Old title]]` → `[[New title]]` for a rename: every form of the wiki link, any case, its
/// part and shown text kept; code, pictures, file-name links and other titles left alone.
final class NoteLinksRenameTests: XCTestCase {
    func testEveryFormOfTheLinkIsRenamed() {
        let text = "See [[Trip plan]], [[trip PLAN|the trip]] and [[Trip plan#Day 2]].\nÉté: [[Trip plan]] 🚤 [[Trip plan]]"
        let (renamed, count) = NoteLinks.renamingWikiLinks(in: text, from: "Trip plan", to: "Voyage d'été")
        XCTAssertEqual(count, 5)
        XCTAssertEqual(renamed, "See [[Voyage d'été]], [[Voyage d'été|the trip]] and [[Voyage d'été#Day 2]].\nÉté: [[Voyage d'été]] 🚤 [[Voyage d'été]]")
    }

    func testCodePicturesFileNamesAndOtherTitlesStay() {
        let text = """
            [[Trip planner]] and [[Trip plan.md]] and ![[Trip plan]]
            `[[Trip plan]]`
            ```
            [[Trip plan]]
            ```
            [x](Trip%20plan.md)
            """
        let (renamed, count) = NoteLinks.renamingWikiLinks(in: text, from: "Trip plan", to: "Journey")
        XCTAssertEqual(count, 0)
        XCTAssertEqual(renamed, text)
    }

    func testCRLFLinesAndTheTrailingNewlineAreKept() {
        let text = "a [[Old]]\r\nb [[Old|x]]\n"
        let (renamed, count) = NoteLinks.renamingWikiLinks(in: text, from: "old", to: "New")
        XCTAssertEqual(count, 2)
        XCTAssertEqual(renamed, "a [[New]]\r\nb [[New|x]]\n")
    }
}
