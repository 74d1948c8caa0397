import TerminalUI
import XCTest

final class KeyDecoderTests: XCTestCase {
    func testArrowsAndModifiedArrows() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D"), [.up, .down, .right, .left])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}OA\u{1B}OD"), [.up, .left], "application cursor mode")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;2C\u{1B}[1;2A"), [.shifted(.right), .shifted(.up)], "Shift selects")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;6C\u{1B}[1;4D"), [.shifted(.wordRight), .shifted(.wordLeft)], "Shift with Ctrl or Alt")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;2H\u{1B}[1;2F\u{1B}[1;6H\u{1B}[1;6F"),
                       [.shifted(.home), .shifted(.end), .shifted(.documentStart), .shifted(.documentEnd)])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[5;2~\u{1B}[6;2~\u{1B}[3;2~"), [.shifted(.pageUp), .shifted(.pageDown), .delete])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[a\u{1B}[d"), [.shifted(.up), .shifted(.left)], "rxvt's Shift-arrows")
        XCTAssertEqual(Key.shifted(.up).label, "Shift-↑")
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
        XCTAssertEqual(KeyDecoder.decode("\u{1B}\u{7F}\u{1B}\u{08}"), [.altBackspace, .altBackspace])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}d\u{1C}"), [.alt("d"), .ctrl("\\")], "Alt-D; Ctrl-\\ is a key in raw mode")
        var decoder = KeyDecoder()
        XCTAssertEqual(decoder.feed(Array("\u{1B}".utf8)), [])
        XCTAssertTrue(decoder.takeLoneEscape(), "curses' KEY_BACKSPACE after it makes Alt-Backspace")
        XCTAssertFalse(decoder.hasPending)
    }

    func testEscapeWaitsForTheRestOfASequence() {
        var decoder = KeyDecoder()
        XCTAssertEqual(decoder.feed(Array("\u{1B}".utf8)), [])
        XCTAssertTrue(decoder.hasPending)
        XCTAssertEqual(decoder.feed(Array("[1;5".utf8)), [])
        XCTAssertEqual(decoder.feed(Array("Cq".utf8)), [.wordRight, .char("q")])
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
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<0;12;3m"), [.pointer(MouseEvent(.release(.left), x: 11, y: 2))], "releases are not clicks")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[<2;1;1M"), [.pointer(MouseEvent(.press(.right), x: 0, y: 0))], "right button")
        XCTAssertEqual(KeyDecoder.decode([0x1B, 0x5B, 0x4D, 32, 33 + 4, 33 + 7]), [.mouse(x: 4, y: 7)], "X10 report")
    }

    func testIgnoredSequences() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[201~"), [], "a paste end without a start")
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
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kRIT5"), .wordRight)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kLFT3"), .wordLeft)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kRIT2"), .shifted(.right), "tmux-256color's Shift-→")
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kRIT6"), .shifted(.wordRight))
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kHOM6"), .shifted(.documentStart))
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kDC2"), .delete)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: K.shiftUp), .shifted(.up), "xterm's kri")
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: K.shiftLeft), .shifted(.left))
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: K.shiftPageDown), .shifted(.pageDown))
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kHOM5"), .documentStart)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kEND5"), .documentEnd)
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kEND3"), .end, "Alt-End is End")
        XCTAssertEqual(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kDC5"), .delete)
        XCTAssertNil(KeyDecoder.key(cursesKeyCode: 0o1000, name: "kLFT3x"))
        XCTAssertNil(KeyDecoder.key(cursesKeyCode: K.mouse))
        // Characters from wget_wch go through the byte decoder.
        var decoder = KeyDecoder()
        XCTAssertEqual(decoder.feed(scalar: "好"), [.char("好")])
        XCTAssertEqual(decoder.feed(scalar: "\u{1B}") + decoder.feed(scalar: "[") + decoder.feed(scalar: "Z"), [.backTab])
    }

    func testWordMovesAndDocumentEnds() {
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;5D\u{1B}[1;5C"), [.wordLeft, .wordRight], "Ctrl-arrows")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;3D\u{1B}[1;3C"), [.wordLeft, .wordRight], "Alt-arrows")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;7C\u{1B}[1;6D"), [.wordRight, .shifted(.wordLeft)], "Ctrl-Alt; Ctrl-Shift selects")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}Od\u{1B}Oc"), [.wordLeft, .wordRight], "rxvt's Ctrl-arrows")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}\u{1B}[D\u{1B}\u{1B}[C"), [.wordLeft, .wordRight], "rxvt's Alt-arrows")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}\u{1B}[A\u{1B}\u{1B}"), [.escape, .up, .escape, .escape], "Esc then another key")
        var decoder = KeyDecoder()
        XCTAssertEqual(decoder.feed(Array("\u{1B}\u{1B}".utf8)) + decoder.feed(Array("[".utf8)), [], "held for the arrow")
        XCTAssertEqual(decoder.feed(Array("D".utf8)), [.wordLeft])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}b\u{1B}f"), [.alt("b"), .alt("f")], "Alt-B/F stay letters for the key tables")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;5H\u{1B}[1;5F"), [.documentStart, .documentEnd])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;5~\u{1B}[4;5~\u{1B}[7;5~\u{1B}[8;5~"),
                       [.documentStart, .documentEnd, .documentStart, .documentEnd])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[1;3H"), [.home], "Alt-Home is Home")
        XCTAssertEqual(Key.wordLeft.label, "Ctrl-←")
        XCTAssertEqual(Key.documentEnd.description, "Ctrl-End")
    }

    func testBracketedPasteIsOneKey() {
        XCTAssertEqual(KeyDecoder.decode("a\u{1B}[200~hi\u{1B}[201~b"), [.char("a"), .paste("hi"), .char("b")])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[200~\u{1B}[201~"), [.paste("")])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[200~one\r\ntwo\rthree\nfour\r\u{1B}[201~"), [.paste("one\ntwo\nthree\nfour\n")],
                       "CR LF and CR become LF")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[200~\u{1B}[A\t\u{7F}\u{1B}[201~"), [.paste("\u{1B}[A\t\u{7F}")],
                       "keys inside a paste are text")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[200~你好 🎉\u{1B}[201~"), [.paste("你好 🎉")])
        XCTAssertEqual(KeyDecoder.decode([0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E, 0x61, 0xFF, 0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]),
                       [.paste("a\u{FFFD}")], "invalid UTF-8 is replaced")
    }

    func testPasteSplitOverReadsWaitsThroughFlushes() {
        var decoder = KeyDecoder()
        XCTAssertEqual(decoder.feed(Array("\u{1B}[20".utf8)), [])
        XCTAssertEqual(decoder.feed(Array("0~ab".utf8)), [])
        XCTAssertTrue(decoder.isInPaste)
        XCTAssertEqual(decoder.flush(), [], "quiet input does not end a paste")
        XCTAssertTrue(decoder.hasPending)
        XCTAssertEqual(decoder.feed(Array("c\r".utf8)), [])
        XCTAssertEqual(decoder.feed(Array("\n\u{1B}".utf8)), [], "a lone ESC inside a paste may start its end marker")
        XCTAssertEqual(decoder.flush(), [])
        XCTAssertEqual(decoder.feed(Array("[20".utf8)), [])
        XCTAssertEqual(decoder.feed(Array("1~x".utf8)), [.paste("abc\n"), .char("x")])
        XCTAssertFalse(decoder.isInPaste)
        XCTAssertFalse(decoder.hasPending)
        // An ESC in the paste that is not the marker stays text.
        XCTAssertEqual(decoder.feed(Array("\u{1B}[200~\u{1B}".utf8)), [])
        XCTAssertEqual(decoder.feed(Array("[1~\u{1B}[201~".utf8)), [.paste("\u{1B}[1~")])
    }

    func testLargePasteArrivingOneCharacterAtATime() {
        // 1 MiB of lines, delivered as wget_wch does: one scalar per call, flushes between reads.
        let line = String(repeating: "Grüße 你好 ", count: 4) + "🎉\r"
        var text = ""
        while text.utf8.count < 1 << 20 { text += line }
        var decoder = KeyDecoder()
        var keys: [Key] = []
        for scalar in "\u{1B}[200~".unicodeScalars { keys += decoder.feed(scalar: scalar) }
        for (i, scalar) in text.unicodeScalars.enumerated() {
            keys += decoder.feed(scalar: scalar)
            if i % 4_096 == 0 { keys += decoder.flush() }
        }
        for scalar in "\u{1B}[201~".unicodeScalars { keys += decoder.feed(scalar: scalar) }
        keys += decoder.flush()
        XCTAssertEqual(keys.count, 1)
        guard case .paste(let pasted) = keys.first else { return XCTFail("expected a paste, got \(keys.prefix(3))") }
        let expected = String(text.map { $0 == "\r" ? "\n" : $0 })
        XCTAssertEqual(Array(pasted.utf8), Array(expected.utf8))
    }

    func testLabels() {
        XCTAssertEqual(Key.ctrl("s").label, "Ctrl-S")
        XCTAssertEqual(Key.backTab.label, "Shift-Tab")
        XCTAssertEqual(Key.f(1).label, "F1")
        XCTAssertEqual(Key.up.label, "↑")
        XCTAssertEqual(Key.char(" ").label, "Space")
    }
}
