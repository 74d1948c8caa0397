import TerminalUI
import XCTest

/// Mouse reports as terminals send them: SGR (mode 1006) presses, releases, drags, the wheel
/// and modifiers; legacy X10 bytes; and input that only looks like a report.
final class MouseDecoderTests: XCTestCase {
    private func pointer(_ action: MouseEvent.Action, _ x: Int, _ y: Int, _ modifiers: MouseEvent.Modifiers = []) -> Key {
        .pointer(MouseEvent(action, x: x, y: y, modifiers: modifiers))
    }

    func testSGRPressesReleasesAndButtons() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<0;1;1M\u{1B}[<0;1;1m"), [.mouse(x: 0, y: 0), pointer(.release(.left), 0, 0)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<1;300;90M"), [pointer(.press(.middle), 299, 89)], "columns past 223")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<2;5;6m"), [pointer(.release(.right), 4, 5)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<32;7;8M"), [pointer(.drag(.left), 6, 7)], "motion with the left button held")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<128;2;2M"), [pointer(.press(.other(8)), 1, 1)], "the back button")
    }

    func testSGRWheel() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<64;10;4M"), [pointer(.wheelUp, 9, 3)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<65;10;4M"), [pointer(.wheelDown, 9, 3)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<66;1;1M\u{1B}[<67;1;1M"), [pointer(.wheelLeft, 0, 0), pointer(.wheelRight, 0, 0)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<65;10;4M").first?.wheelRows, 3)
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<64;10;4M").first?.wheelRows, -3)
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<65;10;4m"), [], "a wheel has no release")
    }

    func testSGRModifiers() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<4;3;3M"), [pointer(.press(.left), 2, 2, .shift)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<8;3;3M"), [pointer(.press(.left), 2, 2, .alt)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<16;3;3M"), [pointer(.press(.left), 2, 2, .ctrl)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<81;3;3M"), [pointer(.wheelDown, 2, 2, .ctrl)], "Ctrl-wheel")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<68;3;3M").first?.wheelColumns, -3, "Shift-wheel pans")
    }

    func testMalformedReportsAreDroppedAndWhatFollowsSurvives() {
        let bad = [
            "\u{1B}[<0;12M", "\u{1B}[<0;1;2;3M", "\u{1B}[<;1;1M", "\u{1B}[<0;0;5M", "\u{1B}[<0;5;0M",
            "\u{1B}[<0;99999999999999999999999;1M", "\u{1B}[<999999;1;1M", "\u{1B}[<256;1;1M", "\u{1B}[<0;-1;1M",
            "\u{1B}[<35;4;4M",  // motion with no button: mode 1003, never asked for
            "\u{1B}[<0;1:2;1M",
        ]
        for text in bad {
            XCTAssertEqual(KeyDecoder.decode(text + "a"), [.char("a")], text.debugDescription)
        }
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<0;100000;1M"), [], "six digits: no terminal is that wide")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<0;99999;99999M"), [.mouse(x: 99998, y: 99998)],
                       "beyond the screen is the layers' business (they hit-test nothing there)")
    }

    func testTruncatedReportsWaitThenDrop() {
        var decoder = KeyDecoder()
        XCTAssertEqual(decoder.feed(Array("\u{1B}[<65;10".utf8)), [], "half a report waits")
        XCTAssertEqual(decoder.feed(Array(";4Mx".utf8)), [pointer(.wheelDown, 9, 3), .char("x")])
        XCTAssertEqual(decoder.feed(Array("\u{1B}[<0;3".utf8)), [])
        XCTAssertEqual(decoder.flush(), [], "a report cut off at the end of the input is dropped, not typed")
        XCTAssertEqual(decoder.feed(Array("q".utf8)), [.char("q")])
        XCTAssertEqual(KeyDecoder.decode([0x1B, 0x5B, 0x4D, 32, 40]), [], "a truncated X10 report")
    }

    func testX10Reports() {
        func x10(_ code: Int, _ x: Int, _ y: Int) -> [UInt8] { [0x1B, 0x5B, 0x4D, UInt8(32 + code), UInt8(33 + x), UInt8(33 + y)] }
        XCTAssertEqual(KeyDecoder.decode(x10(0, 4, 7)), [.mouse(x: 4, y: 7)])
        XCTAssertEqual(KeyDecoder.decode(x10(3, 4, 7)), [pointer(.release(nil), 4, 7)], "X10 does not say which button")
        XCTAssertEqual(KeyDecoder.decode(x10(64, 0, 0)), [pointer(.wheelUp, 0, 0)])
        XCTAssertEqual(KeyDecoder.decode(x10(65 + 16, 1, 2)), [pointer(.wheelDown, 1, 2, .ctrl)])
        XCTAssertEqual(KeyDecoder.decode([0x1B, 0x5B, 0x4D, 32, 20, 40] + Array("z".utf8)), [.char("z")],
                       "a cell byte below the offset (a wrapped column) is dropped")
    }
}
