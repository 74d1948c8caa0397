import TerminalUI
import XCTest

/// Names from a server reach the screen: every control character, C0, DEL and C1 alike, is
/// drawn as U+FFFD in one cell, so none reaches the terminal to act on it.
@MainActor
final class ControlCharacterTests: XCTestCase {
    func testC0DelAndC1AreDrawnAsReplacementCharacters() async {
        let hostile = "a\u{1B}]0;PWNED\u{07}b\u{7F}c\u{9B}2J\u{85}\u{80}\u{9F}d\u{A0}e"
        let canvas = GridCanvas(width: 40, height: 1)
        let end = canvas.put(hostile, at: Point(x: 0, y: 0), style: .plain)
        XCTAssertEqual(end, TextWidth.of(hostile))
        let drawn = (0..<end).map { canvas.cell(x: $0, y: 0).text }.joined()
        XCTAssertEqual(drawn, "a\u{FFFD}]0;PWNED\u{FFFD}b\u{FFFD}c\u{FFFD}2J\u{FFFD}\u{FFFD}\u{FFFD}d\u{A0}e")
        for scalar in drawn.unicodeScalars {
            XCTAssertFalse(scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value), "U+\(String(scalar.value, radix: 16)) reached the screen")
        }
        for value: UInt32 in [0x00, 0x1B, 0x7F, 0x80, 0x85, 0x9B, 0x9F] {
            XCTAssertEqual(TextWidth.of(Unicode.Scalar(value)!), -1, "U+\(String(value, radix: 16)) is a control")
        }
        XCTAssertEqual(TextWidth.of(Unicode.Scalar(0xA0)!), 1, "no-break space is not a control")
    }
}
