import TerminalUI
import XCTest

/// The scanner on its own: which bytes are an answer, how long it is, when to wait for more,
/// and when the bytes are keys after all.
final class TerminalReplyScannerTests: XCTestCase {
    private func scan(_ text: String, atEnd: Bool = false, awaiting: Bool = false) -> TerminalReplyScanner.Scan {
        TerminalReplyScanner.scanString(ArraySlice(Array(text.utf8)), atEnd: atEnd, awaiting: awaiting)
    }

    func testWholeAnswersWithEitherTerminator() {
        XCTAssertEqual(scan("\u{1B}_Gi=31;OK\u{1B}\\rest"), .reply(.kittyGraphics(id: 31, ok: true), length: 12))
        XCTAssertEqual(scan("\u{1B}_Gi=7;ENOENT\u{07}"), .reply(.kittyGraphics(id: 7, ok: false), length: 14))
        XCTAssertEqual(scan("\u{1B}P>|foot(1.16)\u{1B}\\x"), .reply(.version("foot(1.16)"), length: 16))
    }

    func testTheAnswerIsTakenFromTheMiddleOfASlice() {
        let bytes = Array("ab\u{1B}P>|xterm(390)\u{07}cd".utf8)
        XCTAssertEqual(TerminalReplyScanner.scanString(bytes[2...], atEnd: true, awaiting: false),
                       .reply(.version("xterm(390)"), length: 15))
    }

    func testAnUnfinishedAnswerWaitsUnlessTheInputWentQuietWithNothingAsked() {
        for partial in ["\u{1B}_", "\u{1B}P>", "\u{1B}_Gi=31;O", "\u{1B}_Gi=31;OK\u{1B}"] {
            XCTAssertEqual(scan(partial), .needMore, partial.debugDescription)
            XCTAssertEqual(scan(partial, atEnd: true, awaiting: true), .needMore, "awaited: \(partial.debugDescription)")
            XCTAssertEqual(scan(partial, atEnd: true), .notAReply, "quiet, nothing asked: \(partial.debugDescription)")
        }
    }

    func testShapesThatAreNoAnswerAreKeys() {
        XCTAssertEqual(scan("\u{1B}_x"), .notAReply, "Alt-_ then x")
        XCTAssertEqual(scan("\u{1B}Pq"), .notAReply, "Alt-P then q (also a sixel introducer, never an answer)")
        XCTAssertEqual(scan("\u{1B}_Gab\u{01}"), .notAReply, "a control byte inside")
        XCTAssertEqual(scan("\u{1B}_Gab\u{1B}x"), .notAReply, "ESC not followed by a backslash")
        XCTAssertEqual(scan("x\u{1B}_G"), .notAReply, "not at the start")
    }

    func testAnOverlongStringIsKeysNotAnEndlessWait() {
        let long = "\u{1B}_G" + String(repeating: "a", count: TerminalReplyScanner.maxStringLength)
        XCTAssertEqual(scan(long, awaiting: true), .notAReply)
        XCTAssertEqual(scan(String(long.prefix(100)), awaiting: true), .needMore)
    }

    func testAnEmptyKittyAnswerIsStillTakenWhole() {
        // The shape fits (`ESC _ G`) with nothing after it: taken out as an answer, never keys.
        XCTAssertEqual(scan("\u{1B}_G\u{1B}\\"), .reply(.kittyGraphics(id: nil, ok: false), length: 5))
    }

    func testCSIAnswers() {
        func csi(_ parameters: String, _ final: Character) -> TerminalReply? {
            TerminalReplyScanner.csiReply(parameters: ArraySlice(Array(parameters.utf8)), final: final.asciiValue!)
        }
        XCTAssertEqual(csi("?62;4;22", "c"), .deviceAttributes([62, 4, 22]))
        XCTAssertEqual(csi("6;20;10", "t"), .cellSize(width: 10, height: 20))
        XCTAssertNil(csi("62;4", "c"), "no ?: not an answer to primary device attributes")
        XCTAssertNil(csi("8;24;80", "t"), "the text area size, not the cell size asked")
        XCTAssertNil(csi("1;5", "C"), "Ctrl-→ is a key")
    }
}
