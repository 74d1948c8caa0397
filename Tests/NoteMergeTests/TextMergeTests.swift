import NoteMerge
import XCTest

/// A change made outside a live note laid onto its shared text word by word (issue 68): nothing
/// either side wrote is lost, and nothing neither side wrote is doubled.
final class TextMergeTests: XCTestCase {
    /// The line merge keeps both sides of a conflict whole: a line added between two lines the
    /// members typed on put both lines in twice, with every word in them.
    func testALineAddedBetweenTwoLinesTypedOnIsThereOnceAndSoAreTheirWords() {
        let base = "shell1\n# Minutes\n\nAgenda: ann2\n ann3"
        let mine = "shell1 cy12\n# cy9 Minutes ann5\n cy10\nAgenda: cy11 ann2\n ann3 cy6"
        let theirs = "shell1\nshell8\nshell4\n# Minutes\n\nAgenda: ann2\n ann3"
        XCTAssertEqual(TextMerge.merged(base: base, mine: mine, theirs: theirs),
                       "shell1 cy12\nshell8\nshell4\n# cy9 Minutes ann5\n cy10\nAgenda: cy11 ann2\n ann3 cy6")
        let line = ThreeWayMerge.keepingBoth(base: base, mine: mine, theirs: theirs)
        XCTAssertEqual(line.components(separatedBy: "ann2").count - 1, 2, "the line merge doubles it: \(line)")
    }

    func testChangesApartAreBothMade() {
        let base = "monday: walk\ntuesday: swim\n"
        let mine = "monday: run\ntuesday: swim\n"
        let theirs = "monday: walk\ntuesday: swim far\n"
        XCTAssertEqual(TextMerge.merged(base: base, mine: mine, theirs: theirs), "monday: run\ntuesday: swim far\n")
    }

    /// The same word changed on both sides: mine stays, theirs' word follows it, apart.
    func testTheSameWordChangedOnBothSidesKeepsMineThenTheirs() {
        let merged = TextMerge.merged(base: "tuesday: swim\n", mine: "tuesday: bike\n", theirs: "tuesday: row\n")
        XCTAssertEqual(merged, "tuesday: bike row\n")
    }

    /// A line added is attached to the end of the line before (`⏎line`), not put at the start of
    /// the next, where a member typing meanwhile would be glued to it.
    func testALineAddedGoesAtTheEndOfTheLineBefore() {
        let edits = TextMerge.edits(base: "a\n\nb\n", mine: "a\n\nb\n", theirs: "a\nnew\n\nb\n")
        XCTAssertEqual(edits, [TextMerge.Edit(range: 1..<1, text: "\nnew")])
    }

    /// With no base, both texts are whole: theirs, ending a line, before mine.
    func testWithNoBaseBothTextsAreWhole() {
        XCTAssertEqual(TextMerge.merged(base: "", mine: "mine\n", theirs: "theirs\n"), "theirs\nmine\n")
        XCTAssertEqual(TextMerge.merged(base: "", mine: "mine", theirs: "theirs"), "mine theirs")
    }

    func testTheirDeletionOfWordsMineLeftIsMade() {
        XCTAssertEqual(TextMerge.merged(base: "one two three\n", mine: "zero one two three\n", theirs: "one three\n"), "zero one three\n")
    }

    func testTheEditsGoLastFirst() {
        let edits = TextMerge.edits(base: "a b c\n", mine: "a b c\n", theirs: "x a b c y\n")
        XCTAssertEqual(edits.map(\.range.lowerBound), edits.map(\.range.lowerBound).sorted(by: >))
    }

    /// A word typed after a space (`# x Minutes`) goes in as ` x` after the word before, as
    /// members type words: as `x ` after the space it leaned on that space, and another member's
    /// delete of the word after it (` word`, its space with it) glued it to the `#`.
    func testAWordAddedGoesInWithTheSpaceBeforeIt() {
        let edits = TextMerge.edits(base: "# Minutes\n", mine: "# Minutes, kept\n", theirs: "# cy25 Minutes\n")
        XCTAssertEqual(edits, [TextMerge.Edit(range: 1..<1, text: " cy25")])
    }

    /// A word deleted on one side, beside a word added on the other: still deleted.
    func testAWordDeletedBesideAWordAddedOnTheOtherSideStaysDeleted() {
        XCTAssertEqual(TextMerge.merged(base: "# cy3 cy5 cy9\n", mine: "# cy3 cy5 cy12 cy9\n", theirs: "# cy3 cy9\n"), "# cy3 cy12 cy9\n")
    }

    /// A live history's merge (seed 557): the minimal diff matched theirs' `ann8` with base's
    /// `ann10`, calling a deleted word a changed one, and the merge brought back the `ann8` mine had
    /// deleted. Words found once on each side anchor the diff first (patience diff's anchors).
    func testAWordMineDeletedIsNotBroughtBackByADiffThatMatchedItElsewhere() {
        let base = "# ann1 Minutes ann7\n bob6 ann10 ann8 ann5 ann2\nAgenda: bob4 bob9\n"
        let mine = "# ann1 ann23 Minutes ann13 ann7\n bob6 ann18 ann10 ann11 ann19 ann2 ann25\nAgenda: ann15 ann12 ann20 ann24 bob4 bob9 ann17\n ann16 ann21"
        let theirs = "# ann1 bob31 bob26 bob30 Minutes ann7\n bob6 ann8 bob28 ann5 bob27 ann2\nAgenda: bob4 bob9\n bob29"
        XCTAssertEqual(TextMerge.merged(base: base, mine: mine, theirs: theirs),
                       "# ann1 ann23 bob31 bob26 bob30 Minutes ann13 ann7\n bob6 ann18 ann11 bob28 ann19 bob27 ann2 ann25\n"
                       + "Agenda: ann15 ann12 ann20 ann24 bob4 bob9 ann17\n ann16 ann21 bob29")
    }

    /// Both deleted a word; theirs typed another in its place. Mine's deletion took the space
    /// before it, and theirs' word went in glued to the `#` (a live history, seed 2179): it keeps
    /// the space theirs had.
    func testAWordTypedInPlaceOfOneBothDeletedKeepsItsSpace() {
        XCTAssertEqual(TextMerge.merged(base: "# ann6 Minutes\n", mine: "# Minutes\n", theirs: "# bob29 Minutes\n"), "# bob29 Minutes\n")
    }
}
