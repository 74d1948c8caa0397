import Foundation
import TerminalUI
import XCTest

/// OSC 52: the text base64-encoded in one sequence; inside tmux the same again, wrapped in
/// tmux's DCS passthrough with every ESC doubled.
@MainActor
final class ClipboardTests: XCTestCase {
    func testOSC52AndItsTmuxPassthrough() async {
        let plain = Terminal.clipboardSequence("http://x/s/t/ä", insideTmux: false)
        XCTAssertEqual(String(decoding: plain, as: UTF8.self), "\u{1B}]52;c;aHR0cDovL3gvcy90L8Ok\u{07}")
        let tmux = String(decoding: Terminal.clipboardSequence("http://x/s/t/ä", insideTmux: true), as: UTF8.self)
        XCTAssertEqual(tmux, "\u{1B}]52;c;aHR0cDovL3gvcy90L8Ok\u{07}" + "\u{1B}Ptmux;\u{1B}\u{1B}]52;c;aHR0cDovL3gvcy90L8Ok\u{07}\u{1B}\\")
    }
}
