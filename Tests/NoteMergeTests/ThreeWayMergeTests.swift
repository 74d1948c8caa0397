@testable import NoteMerge
import XCTest

/// diff3 on notes: clean merges, overlaps, insertions, deletions, line endings and wide text.
final class ThreeWayMergeTests: XCTestCase {
    private let base = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"

    /// Byte-exact comparison, since `String ==` treats "é" and "e\u{301}" as equal.
    private func assertBytes(_ actual: String?, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.map { Array($0.utf8) }, Array(expected.utf8), "got \(actual.debugDescription)", file: file, line: line)
    }

    private func conflicts(_ result: MergeResult) -> [MergeConflict] {
        result.chunks.compactMap { chunk in
            if case .conflict(let conflict) = chunk { return conflict }
            return nil
        }
    }

    // MARK: Clean merges

    func testEditsToDifferentLinesMergeCleanly() {
        let mine = "one\nTWO\nthree\nfour\nfive\nsix\nseven\n"
        let theirs = "one\ntwo\nthree\nfour\nfive\nSIX\nseven\n"
        let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
        XCTAssertTrue(result.isClean)
        assertBytes(result.text, "one\nTWO\nthree\nfour\nfive\nSIX\nseven\n")
    }

    /// Both sides inserted at one place, and some of the lines are the same on both (a burst
    /// saved unheard before a crash, then saved again over the older base with more typed): the
    /// shared lines once, what each added around them taken (the simulation's app histories,
    /// seed 27 on the club server, doubled lines 3–5 before). Different lines at the same place
    /// still conflict.
    func testInsertionsAtOnePlaceShareTheirCommonLinesOnce() {
        let base = "title\n"
        let mine = "title\nline 3\nline 4\nline 5\nline 17\n"
        let theirs = "title\nline 8\nline 11\nline 3\nline 4\nline 5\n"
        assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs).text, "title\nline 8\nline 11\nline 3\nline 4\nline 5\nline 17\n")
        // Where the two put different lines at the same place beside the shared ones: a conflict there alone.
        let other = ThreeWayMerge.merge(base: base, mine: "title\nA\nshared\nmine\n", theirs: "title\nB\nshared\ntheirs\n")
        XCTAssertEqual(conflicts(other).map(\.mine), ["A\n", "mine\n"])
        XCTAssertEqual(conflicts(other).map(\.theirs), ["B\n", "theirs\n"])
        assertBytes(other.resolved([.both, .both]), "title\nA\nB\nshared\nmine\ntheirs\n")
        // Nothing shared: one conflict, as before.
        XCTAssertEqual(conflicts(ThreeWayMerge.merge(base: base, mine: "title\nmine\n", theirs: "title\ntheirs\n")).count, 1)
        // A change of base lines on both sides is not refined: still one conflict.
        XCTAssertEqual(conflicts(ThreeWayMerge.merge(base: "a\nb\nc\n", mine: "a\nX\nshared\nc\n", theirs: "a\nY\nshared\nc\n")).count, 1)
    }

    func testEditsToNeighbouringLinesDoNotOverlap() {
        let mine = "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n"
        let theirs = "one\ntwo\nthree\nFOUR\nfive\nsix\nseven\n"
        assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs).text, "one\ntwo\nTHREE\nFOUR\nfive\nsix\nseven\n")
    }

    func testOneSideUnchangedGivesTheOther() {
        let mine = "zero\none\ntwo\nthree\nfive\nsix\nseven\neight\n"
        assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: base).text, mine)
        assertBytes(ThreeWayMerge.merge(base: base, mine: base, theirs: mine).text, mine)
        assertBytes(ThreeWayMerge.merge(base: base, mine: base, theirs: base).text, base)
    }

    func testBothSidesMakingTheSameChangeIsNoConflict() {
        let same = "one\ntwo\n3\nfour\nfive\nsix\nseven\n"
        let result = ThreeWayMerge.merge(base: base, mine: same, theirs: same)
        XCTAssertTrue(result.isClean)
        assertBytes(result.text, same)
        // The same change plus one each elsewhere.
        let mine = "ONE\ntwo\n3\nfour\nfive\nsix\nseven\n"
        let theirs = "one\ntwo\n3\nfour\nfive\nsix\nSEVEN\n"
        assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs).text, "ONE\ntwo\n3\nfour\nfive\nsix\nSEVEN\n")
    }

    func testIdenticalInsertionsAtTheSamePlaceAreNoConflict() {
        let inserted = "one\ntwo\nnew line\nthree\nfour\nfive\nsix\nseven\n"
        let result = ThreeWayMerge.merge(base: base, mine: inserted, theirs: inserted)
        XCTAssertTrue(result.isClean)
        assertBytes(result.text, inserted)
    }

    func testInsertionsAndDeletionsElsewhereMerge() {
        let mine = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"  // appended
        let theirs = "one\nthree\nfour\nfive\nsix\nseven\n"  // deleted "two"
        assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs).text, "one\nthree\nfour\nfive\nsix\nseven\neight\n")
    }

    func testEmptyTexts() {
        assertBytes(ThreeWayMerge.merge(base: "", mine: "", theirs: "").text, "")
        assertBytes(ThreeWayMerge.merge(base: "", mine: "a\n", theirs: "").text, "a\n")
        assertBytes(ThreeWayMerge.merge(base: "a\n", mine: "", theirs: "a\n").text, "")
        let both = ThreeWayMerge.merge(base: "", mine: "a\n", theirs: "b\n")
        XCTAssertEqual(both.conflictCount, 1)
        assertBytes(both.resolved([.both]), "a\nb\n")
    }

    // MARK: Conflicts

    func testOverlappingEditsConflict() {
        let mine = "one\ntwo\nthree (mine)\nfour\nfive\nsix\nseven\n"
        let theirs = "one\ntwo\nthree (theirs)\nfour\nfive\nsix\nSEVEN\n"
        let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
        XCTAssertFalse(result.isClean)
        XCTAssertNil(result.text)
        XCTAssertEqual(conflicts(result), [MergeConflict(base: "three\n", mine: "three (mine)\n", theirs: "three (theirs)\n")])
        XCTAssertEqual(result.chunks.count, 3)
        // Their change elsewhere is in the stable text whatever is chosen.
        assertBytes(result.resolved([.mine]), "one\ntwo\nthree (mine)\nfour\nfive\nsix\nSEVEN\n")
        assertBytes(result.resolved([.theirs]), "one\ntwo\nthree (theirs)\nfour\nfive\nsix\nSEVEN\n")
        assertBytes(result.resolved([.both]), "one\ntwo\nthree (mine)\nthree (theirs)\nfour\nfive\nsix\nSEVEN\n")
    }

    func testOverlappingRangesBecomeOneConflict() {
        // Mine changes two-three, theirs three-four: one region, two-four.
        let mine = "one\n2\n3\nfour\nfive\nsix\nseven\n"
        let theirs = "one\ntwo\nIII\nIV\nfive\nsix\nseven\n"
        let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
        XCTAssertEqual(conflicts(result), [MergeConflict(base: "two\nthree\nfour\n", mine: "2\n3\nfour\n", theirs: "two\nIII\nIV\n")])
        assertBytes(result.resolved([.theirs]), theirs)
        assertBytes(result.resolved([.mine]), mine)
    }

    func testDifferentInsertionsAtTheSamePlaceConflict() {
        let mine = "one\ntwo\nmine added\nthree\nfour\nfive\nsix\nseven\n"
        let theirs = "one\ntwo\ntheirs added\nthree\nfour\nfive\nsix\nseven\n"
        let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
        XCTAssertEqual(conflicts(result), [MergeConflict(base: "", mine: "mine added\n", theirs: "theirs added\n")])
        assertBytes(result.resolved([.both]), "one\ntwo\nmine added\ntheirs added\nthree\nfour\nfive\nsix\nseven\n")
    }

    func testDeletionAgainstAnEditConflicts() {
        let mine = "one\ntwo\nfour\nfive\nsix\nseven\n"  // deleted "three"
        let theirs = "one\ntwo\nthree, edited\nfour\nfive\nsix\nseven\n"
        let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
        XCTAssertEqual(conflicts(result), [MergeConflict(base: "three\n", mine: "", theirs: "three, edited\n")])
        assertBytes(result.resolved([.mine]), mine)
        assertBytes(result.resolved([.theirs]), theirs)
        assertBytes(result.resolved([.both]), theirs)
    }

    func testInsertionBesideTheOtherSidesEditConflicts() {
        // Theirs edits "three"; mine adds a line right after it: which belongs where is not clear.
        let mine = "one\ntwo\nthree\nafter three\nfour\nfive\nsix\nseven\n"
        let theirs = "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n"
        let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
        XCTAssertEqual(result.conflictCount, 1)
        assertBytes(result.resolved([.both]), "one\ntwo\nthree\nafter three\nTHREE\nfour\nfive\nsix\nseven\n")
    }

    func testAgreedLinesAtTheEndsOfAConflictStayOutOfIt() {
        let mine = "one\nX\nthree mine\nfour\nfive\nsix\nseven\n"
        let theirs = "one\nX\nthree theirs\nfour\nfive\nsix\nseven\n"
        let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
        XCTAssertEqual(conflicts(result).map(\.mine), ["three mine\n"])
        XCTAssertEqual(conflicts(result).map(\.theirs), ["three theirs\n"])
        assertBytes(result.resolved([.theirs]), theirs)
    }

    func testSeveralConflictsResolveInOrder() {
        let mine = "1m\ntwo\nthree\nfour\nfive\nsix\n7m\n"
        let theirs = "1t\ntwo\nthree\nFOUR\nfive\nsix\n7t\n"
        let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
        XCTAssertEqual(result.conflictCount, 2)
        assertBytes(result.resolved([.theirs, .mine]), "1t\ntwo\nthree\nFOUR\nfive\nsix\n7m\n")
        assertBytes(result.resolved([.both, .theirs]), "1m\n1t\ntwo\nthree\nFOUR\nfive\nsix\n7t\n")
        // Past the choices given, mine is kept.
        assertBytes(result.resolved([.theirs]), "1t\ntwo\nthree\nFOUR\nfive\nsix\n7m\n")
    }

    // MARK: Line endings and text

    func testCRLFIsKept() {
        let base = "one\r\ntwo\r\nthree\r\nfour\r\n"
        let mine = "ONE\r\ntwo\r\nthree\r\nfour\r\n"
        let theirs = "one\r\ntwo\r\nthree\r\nFOUR\r\nfive\r\n"
        assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs).text, "ONE\r\ntwo\r\nthree\r\nFOUR\r\nfive\r\n")
        // "Both" at the end of a CRLF note without a final newline adds a CRLF between them.
        let result = ThreeWayMerge.merge(base: "a\r\nb", mine: "a\r\nmine", theirs: "a\r\ntheirs")
        XCTAssertEqual(result.lineEnding, "\r\n")
        assertBytes(result.resolved([.both]), "a\r\nmine\r\ntheirs")
    }

    func testLineEndingsAreCompared() {
        // One side turned a line into CRLF, the other edited another line.
        let mine = "one\r\ntwo\nthree\nfour\nfive\nsix\nseven\n"
        let theirs = "one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n"
        assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs).text, "one\r\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n")
    }

    func testMissingFinalNewline() {
        let base = "one\ntwo\nthree"
        // Mine edits the first line; theirs the last, still without a newline.
        assertBytes(ThreeWayMerge.merge(base: base, mine: "ONE\ntwo\nthree", theirs: "one\ntwo\nTHREE").text, "ONE\ntwo\nTHREE")
        // Theirs adds the final newline; mine edits the first line.
        assertBytes(ThreeWayMerge.merge(base: base, mine: "ONE\ntwo\nthree", theirs: "one\ntwo\nthree\n").text, "ONE\ntwo\nthree\n")
        // Mine appends a line (so "three" gains a newline); theirs edits the first line.
        assertBytes(ThreeWayMerge.merge(base: base, mine: "one\ntwo\nthree\nfour", theirs: "One\ntwo\nthree").text, "One\ntwo\nthree\nfour")
        // Both append different lines: a conflict, and "both" keeps each on its own line.
        let result = ThreeWayMerge.merge(base: base, mine: "one\ntwo\nthree\nmine", theirs: "one\ntwo\nthree\ntheirs")
        XCTAssertEqual(result.conflictCount, 1)
        assertBytes(result.resolved([.both]), "one\ntwo\nthree\nmine\ntheirs")
        assertBytes(result.resolved([.theirs]), "one\ntwo\nthree\ntheirs")
        // Mine drops the final newline; theirs edits the first line.
        assertBytes(ThreeWayMerge.merge(base: "a\nb\n", mine: "a\nb", theirs: "A\nb\n").text, "A\nb")
        // Both made the same last line.
        assertBytes(ThreeWayMerge.merge(base: base, mine: "one\n2\nthree\nfour", theirs: "one\ntwo\nthree\nfour").text, "one\n2\nthree\nfour")
    }

    func testCJKAndEmoji() {
        let base = "你好\n世界\nGrüße\n🎉 派对\n"
        let mine = "你好，朋友\n世界\nGrüße\n🎉 派对\n"
        let theirs = "你好\n世界\nGrüße\n🎉🎉 派对开始\n"
        assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs).text, "你好，朋友\n世界\nGrüße\n🎉🎉 派对开始\n")
        let clash = ThreeWayMerge.merge(base: base, mine: "你好\n世界!\nGrüße\n🎉 派对\n", theirs: "你好\n世界?\nGrüße\n🎉 派对\n")
        XCTAssertEqual(conflicts(clash), [MergeConflict(base: "世界\n", mine: "世界!\n", theirs: "世界?\n")])
    }

    func testCanonicallyEquivalentLinesAreDifferentBytes() {
        // "é" precomposed and decomposed: String calls them equal, the file does not.
        let base = "caf\u{E9}\nx\n"
        let mine = "cafe\u{301}\nx\n"
        let theirs = "caf\u{E9}\ny\n"
        assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs).text, "cafe\u{301}\ny\n")
    }

    // MARK: Against a brute force

    /// Random small edits of a random text: a side that changed nothing gives the other, the same
    /// edit on both sides gives it once, and the sides can be swapped.
    func testRandomEditsAgainstTheirDefinition() {
        var generator = SplitMix(seed: 14)
        for _ in 0..<300 {
            let lines = (0..<Int.random(in: 0...30, using: &generator)).map { _ in "l\(Int.random(in: 0..<8, using: &generator))\n" }
            let base = lines.joined()
            let mine = mutate(lines, using: &generator).joined()
            let theirs = mutate(lines, using: &generator).joined()
            assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: base).text, mine)
            assertBytes(ThreeWayMerge.merge(base: base, mine: base, theirs: theirs).text, theirs)
            assertBytes(ThreeWayMerge.merge(base: base, mine: mine, theirs: mine).text, mine)
            // The merge is symmetric: swapping the sides swaps the choices, never the outcome.
            let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
            let swapped = ThreeWayMerge.merge(base: base, mine: theirs, theirs: mine)
            XCTAssertEqual(result.conflictCount, swapped.conflictCount)
            let all = { (choice: MergeChoice) in Array(repeating: choice, count: result.conflictCount) }
            assertBytes(result.resolved(all(.mine)), swapped.resolved(all(.theirs)))
            assertBytes(result.resolved(all(.theirs)), swapped.resolved(all(.mine)))
        }
    }

    func testDiffIsAMinimalCommonSubsequence() {
        var generator = SplitMix(seed: 7)
        for _ in 0..<400 {
            let a = (0..<Int.random(in: 0...25, using: &generator)).map { _ in Int32.random(in: 0..<5, using: &generator) }
            let b = (0..<Int.random(in: 0...25, using: &generator)).map { _ in Int32.random(in: 0..<5, using: &generator) }
            let pairs = LineDiff.matches(a, b)
            var lastA = -1, lastB = -1
            for (x, y) in pairs {
                XCTAssertGreaterThan(x, lastA)
                XCTAssertGreaterThan(y, lastB)
                XCTAssertEqual(a[x], b[y])
                lastA = x
                lastB = y
            }
            XCTAssertEqual(pairs.count, lcsLength(a, b), "a \(a) b \(b)")
            // Hunks and matches account for every line.
            let hunks = LineDiff.hunks(a, b)
            XCTAssertEqual(hunks.reduce(0) { $0 + $1.a.count } + pairs.count, a.count)
            XCTAssertEqual(hunks.reduce(0) { $0 + $1.b.count } + pairs.count, b.count)
        }
    }

    func testAWholeRewriteIsOneHunk() {
        let a = (0..<5_000).map { Int32($0) }
        let b = (5_000..<9_000).map { Int32($0) }
        XCTAssertEqual(LineDiff.hunks(a, b), [Hunk(a: 0..<5_000, b: 0..<4_000)])
    }

    private func lcsLength(_ a: [Int32], _ b: [Int32]) -> Int {
        var row = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var diagonal = 0
            for j in 0..<b.count {
                let above = row[j + 1]
                row[j + 1] = x == b[j] ? diagonal + 1 : max(row[j + 1], row[j])
                diagonal = above
            }
        }
        return row[b.count]
    }

    private func mutate(_ lines: [String], using generator: inout SplitMix) -> [String] {
        var lines = lines
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            let at = Int.random(in: 0...lines.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: lines.insert("new\(Int.random(in: 0..<100, using: &generator))\n", at: at)
            case 1 where at < lines.count: lines.remove(at: at)
            case 2 where at < lines.count: lines[at] = "changed\(Int.random(in: 0..<100, using: &generator))\n"
            default: break
            }
        }
        return lines
    }
}

/// A seeded generator, so a failure repeats.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
