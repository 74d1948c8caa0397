import TerminalUI
import XCTest

final class KeyDecoderTests: XCTestCase {
    func testArrowsAndModifiedArrows() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D"), [.up, .down, .right, .left])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}OA\u{1B}OD"), [.up, .left], "application cursor mode")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;5C\u{1B}[1;2A"), [.right, .up], "modifiers are dropped")
    }

    func testEditingAndFunctionKeys() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~"), [.home, .end, .home, .end])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[5~\u{1B}[6~\u{1B}[3~\u{1B}[2~"), [.pageUp, .pageDown, .delete, .insert])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}OP\u{1B}OQ\u{1B}OR\u{1B}OS"), [.f(1), .f(2), .f(3), .f(4)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[15~\u{1B}[17~\u{1B}[24~"), [.f(5), .f(6), .f(12)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[Z"), [.backTab])
    }

    func testLoneEscapeAndAlt() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}"), [.escape])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}\u{1B}"), [.escape, .escape])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}x"), [.alt("x")])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}\u{7F}"), [.escape, .backspace])
    }

    func testEscapeWaitsForTheRestOfASequence() {
        var decoder = KeyDecoder()
        XCTAssertEqual(decoder.feed(Array("\u{1B}".utf8)), [])
        XCTAssertTrue(decoder.hasPending)
        XCTAssertEqual(decoder.feed(Array("[1;5".utf8)), [])
        XCTAssertEqual(decoder.feed(Array("Cq".utf8)), [.right, .char("q")])
        XCTAssertEqual(decoder.feed(Array("\u{1B}".utf8)), [])
        XCTAssertEqual(decoder.flush(), [.escape], "quiet input turns a held ESC into the Esc key")
    }

    func testControlKeys() {
        XCTAssertEqual(KeyDecoder.decode("\r\n\t\u{7F}\u{08}"), [.enter, .enter, .tab, .backspace, .backspace])
        XCTAssertEqual(KeyDecoder.decode("\u{13}\u{0C}\u{1A}\u{19}\u{14}\u{03}"),
                       [.ctrl("s"), .ctrl("l"), .ctrl("z"), .ctrl("y"), .ctrl("t"), .ctrl("c")])
    }

    func testUTF8() {
        XCTAssertEqual(KeyDecoder.decode("aü你🎉"), [.char("a"), .char("ü"), .char("你"), .char("🎉")])
        var decoder = KeyDecoder()
        let bytes = Array("你".utf8)
        XCTAssertEqual(decoder.feed(bytes[0..<2]), [], "a split character waits for its last byte")
        XCTAssertEqual(decoder.feed(bytes[2...]), [.char("你")])
        XCTAssertEqual(KeyDecoder.decode([0xFF, 0x61]), [.char("a")], "invalid bytes are skipped")
        XCTAssertEqual(KeyDecoder.decode([0xE4, 0xBD]), [], "a truncated character at the end is dropped")
    }

    func testMouse() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<0;12;3M"), [.mouse(x: 11, y: 2)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<0;12;3m"), [], "releases are not clicks")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<2;1;1M"), [], "right button")
        XCTAssertEqual(KeyDecoder.decode([0x1B, 0x5B, 0x4D, 32, 33 + 4, 33 + 7]), [.mouse(x: 4, y: 7)], "X10 report")
    }

    func testIgnoredSequences() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[200~hi\u{1B}[201~"), [.char("h"), .char("i")], "paste markers")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[I\u{1B}[O"), [], "focus reports")
    }

    func testCursesKeyCodes() {
        typealias K = KeyDecoder.CursesKeyCode
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: K.up), .up)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: K.pageDown), .pageDown)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: K.backTab), .backTab)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: K.f0 + 1), .f(1))
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: K.delete), .delete)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: K.resize), .resize)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kRIT5"), .right)
        XCTAssertNil(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kLFT3x"))
        XCTAssertNil(KeyDecoder.key(cursesKeyCode: K.mouse))
        // Characters from wget_wch go through the byte decoder.
        var decoder = KeyDecoder()
        XCTAssertEqual(decoder.feed(scalar: "好"), [.char("好")])
        XCTAssertEqual(decoder.feed(scalar: "\u{1B}") + decoder.feed(scalar: "[") + decoder.feed(scalar: "Z"), [.backTab])
    }

    func testLabels() {
        XCTAssertEqual(Key.ctrl("s").label, "Ctrl-S")
        XCTAssertEqual(Key.backTab.label, "Shift-Tab")
        XCTAssertEqual(Key.f(1).label, "F1")
        XCTAssertEqual(Key.up.label, "↑")
        XCTAssertEqual(Key.char(" ").label, "Space")
    }
}
