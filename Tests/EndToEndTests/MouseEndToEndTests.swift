import Foundation
import Imaging
import TestSupport
import XCTest

/// The mouse in a real terminal: tmux is sent the bytes a terminal sends under SGR mouse
/// reporting (mode 1006: `ESC [ < button ; column ; row M` for a press, `m` for its release,
/// buttons 64 and 65 for the wheel), and the screen is read back. In the Notes list a click
/// selects, a double click opens and the wheel scrolls; in the editor the wheel scrolls the
/// text and a click puts the cursor on the character under it (wide characters counted as
/// two cells, past the end of a line at its end); in the Transfers panel the wheel scrolls the
/// rows and a click selects the transfer the panel's keys then act on.
final class MouseEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var notes: URL { app.club.appendingPathComponent("byteclub") }

    /// An SGR press and release of the left button at a 0-based cell.
    static func click(x: Int, y: Int) -> String { "\u{1B}[<0;\(x + 1);\(y + 1)M\u{1B}[<0;\(x + 1);\(y + 1)m" }

    /// One notch of the wheel (down, or up) at a 0-based cell: a press with no release.
    static func wheel(down: Bool, x: Int, y: Int) -> String { "\u{1B}[<\(down ? 65 : 64);\(x + 1);\(y + 1)M" }

    static func lines(_ screen: String) -> [String] { screen.components(separatedBy: "\n") }

    /// The row (0-based) of the first line containing `text`.
    static func row(of text: String, in screen: String) -> Int? { lines(screen).firstIndex { $0.contains(text) } }

    /// Forty notes of sixty numbered lines; Note 07 has a line of CJK text.
    ///
    /// The list is newest first by the server's time (the file's ctime, in whole seconds), then
    /// by name, and forty writes may cross a second anywhere. Note 12 and then Note 07 are
    /// written last, so they are in the newest second or alone in a newer one: whatever the
    /// clock, Note 07 is among the first 7 rows and Note 12 among the first 12, above the fold
    /// of a 24-row terminal. (Setting the mtime, as this once did, does not order the list.)
    func makeNotes() throws {
        try FileManager.default.createDirectory(at: notes.appendingPathComponent("photos"), withIntermediateDirectories: true)
        for n in (1...40).filter({ $0 != 7 && $0 != 12 }) + [12, 7] {
            let name = String(format: "Note %02d", n)
            var lines = (1...60).map { String(format: "n%02d line %02d", n, $0) }
            if n == 7 { lines[11] = "你好世界abc" }
            try lines.joined(separator: "\n").write(to: notes.appendingPathComponent(name + ".txt"), atomically: true, encoding: .utf8)
        }
    }

    func testNotesListAndEditorByMouse() throws {
        try makeNotes()
        let tmux = try app.launch(width: 80, height: 24)
        var screen = tmux.waitFor("the notes listed") { Self.row(of: "Note ", in: $0) != nil && $0.contains("? help") }

        // The wheel scrolls the list: one notch down, the row three below the top is at the top.
        let top = try XCTUnwrap(Self.row(of: "Note ", in: screen))
        let firstName = String(Self.lines(screen)[top].split(separator: " ").prefix(2).joined(separator: " "))
        let fourthName = String(Self.lines(screen)[top + 3].split(separator: " ").prefix(2).joined(separator: " "))
        try tmux.type(Self.wheel(down: true, x: 10, y: top + 2))
        screen = tmux.waitFor("the list scrolled by three rows") { screen in
            let lines = Self.lines(screen)
            return lines.count > top && lines[top].contains(fourthName) && !screen.contains(firstName + " ")
        }
        try tmux.type(Self.wheel(down: false, x: 10, y: top + 2))
        screen = tmux.waitFor("the list scrolled back") { Self.lines($0)[top].contains(firstName) }

        // A click selects: `d` then asks about the clicked note (five rows below the selected
        // first one, whichever note the list put there), not the first one.
        let target = top + 5
        let clicked = String(Self.lines(screen)[target].split(separator: " ").prefix(2).joined(separator: " "))
        XCTAssertTrue(clicked.hasPrefix("Note "), Self.lines(screen)[target])
        try tmux.type(Self.click(x: 12, y: target))
        try tmux.type("d")
        tmux.waitFor("Delete \"\(clicked).txt\"")
        try tmux.press("Escape")
        tmux.waitFor("the dialog closed") { !$0.contains("Delete \"\(clicked).txt\"") }

        // A double click opens the note under the pointer (once the list is drawn again whole).
        screen = tmux.waitFor("Note 12 listed") { Self.row(of: "Note 12", in: $0) != nil }
        let other = try XCTUnwrap(Self.row(of: "Note 12", in: screen))
        try tmux.type(Self.click(x: 12, y: other) + Self.click(x: 12, y: other))
        // The editor shows Note 12.
        tmux.waitFor(all: ["n12 line 01", "Note 12"])
        try tmux.press("Escape")
        tmux.waitFor("the editor closed") { !$0.contains("n12 line 01") }

        // Note 07, opened by a double click; then the wheel scrolls its text by three rows a notch.
        screen = tmux.waitFor("Note 07 listed") { Self.row(of: "Note 07", in: $0) != nil }
        let seven = try XCTUnwrap(Self.row(of: "Note 07", in: screen))
        try tmux.type(Self.click(x: 12, y: seven) + Self.click(x: 12, y: seven))
        screen = tmux.waitFor("n07 line 01")
        let bodyTop = try XCTUnwrap(Self.row(of: "n07 line 01", in: screen))
        try tmux.type(Self.wheel(down: true, x: 20, y: bodyTop + 5) + Self.wheel(down: true, x: 20, y: bodyTop + 5))
        screen = tmux.waitFor("the text scrolled by six rows") { screen in
            Self.lines(screen)[bodyTop].hasPrefix("n07 line 07") && !screen.contains("n07 line 01")
        }

        // A click on the right half of 世 puts the cursor before it; a click past the end of a
        // line puts it at the end.
        let cjk = try XCTUnwrap(Self.row(of: "你好世界abc", in: screen))
        XCTAssertTrue(Self.lines(screen)[cjk].hasPrefix("你好世界abc"), "the body starts at column 0")
        try tmux.type(Self.click(x: 5, y: cjk))
        try tmux.type("X")
        tmux.waitFor("你好X世界abc")
        let fifteen = try XCTUnwrap(Self.row(of: "n07 line 15", in: tmux.waitFor("n07 line 15")))
        try tmux.type(Self.click(x: 60, y: fifteen))
        try tmux.type("Y")
        tmux.waitFor("n07 line 15Y")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Note 07.txt\"")
        let saved = try String(contentsOf: notes.appendingPathComponent("Note 07.txt"), encoding: .utf8).components(separatedBy: "\n")
        XCTAssertEqual(saved[11], "你好X世界abc")
        XCTAssertEqual(saved[14], "n07 line 15Y")
        XCTAssertEqual(saved.count, 60)
    }

    /// The pane's mouse modes as tmux tracks them: SGR encoding, and press, release and drag
    /// reporting (mode 1002, which the editor's drag selection needs; tmux keeps one of 1000/1002).
    func mouseModes(_ tmux: TmuxSession) -> String {
        ((try? tmux.run(["display-message", "-p", "-t", tmux.session, "#{mouse_sgr_flag}#{mouse_button_flag}"])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Under `TERM=screen-256color`, whose terminfo knows only the X10 encoding (`kmous=\E[M`),
    /// the app still asks for SGR: X10 cannot say which button was released nor reach past
    /// column 223.
    func testMouseReportingIsOnWhileRunningAndOffAfterQuitAndAfterSIGTERM() throws {
        let tmux = try app.launch(width: 80, height: 24, term: "screen-256color")
        tmux.waitFor("Welcome to Byte Club")
        XCTAssertTrue(AppHarness.eventually("SGR mouse reports on") { self.mouseModes(tmux) == "11" }, mouseModes(tmux))
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
        XCTAssertEqual(mouseModes(tmux), "00", "quitting turns the reports off")

        try app.launch(width: 80, height: 24, term: "screen-256color")
        tmux.waitFor("Welcome to Byte Club")
        // A click, sent as SGR, on the PanoPhotos tab.
        try tmux.type(Self.click(x: 13, y: 0))
        tmux.waitFor("alps-sunrise.jpg")
        XCTAssertTrue(AppHarness.eventually("SGR mouse reports on again") { self.mouseModes(tmux) == "11" })
        let pid = try XCTUnwrap(app.appPID())
        kill(pid, SIGTERM)
        tmux.waitFor(app.exitLine(128 + SIGTERM))
        XCTAssertEqual(mouseModes(tmux), "00", "a signal turns the reports off too")
    }

    /// Thirty photos of 64 KB in ~/trip (a small real JPEG each, padded after its end marker).
    func makeTrip() throws -> URL {
        let trip = app.home.appendingPathComponent("trip")
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        let pixels = [UInt8](repeating: 128, count: 32 * 8 * 3)
        let jpeg = try JPEG.encode(RGBImage(width: 32, height: 8, pixels: pixels), quality: 80)
        for n in 1...30 {
            var data = jpeg
            data.append(contentsOf: [UInt8](repeating: UInt8(n), count: (64 << 10) - jpeg.count))
            try data.write(to: trip.appendingPathComponent(String(format: "trip-%02d.jpg", n)))
        }
        return trip
    }

    func testTransfersPanelByMouse() throws {
        let trip = try makeTrip()
        // Slow enough that most uploads are still waiting when the panel is looked at.
        let tmux = try app.launch(["--data-dir", app.club.path, "--download-dir", app.downloads.path, "--bwlimit", "8K",
                                   "--transfers", "2"], width: 80, height: 24)
        tmux.waitFor("Welcome to Byte Club")
        try tmux.type("2")
        tmux.waitFor("alps-sunrise.jpg")
        try tmux.type("u")
        tmux.waitFor("Upload a photo")
        try tmux.type(trip.path)
        try tmux.press("Enter")
        tmux.waitFor("trip-12.jpg")
        try tmux.type("*")
        tmux.waitFor("30 marked")
        try tmux.press("Enter")
        // The batch's first words last until its first photo lands, which a loaded machine may
        // reach before the screen is looked at.
        tmux.waitFor("the uploads under way") { $0.contains("Uploading 30 photos") || $0.contains("Uploaded \"trip-") }
        try tmux.type("T")
        var screen = tmux.waitFor("the panel with its first rows") { $0.contains("Esc/c cancel") && $0.contains("trip-01.jpg") }
        XCTAssertFalse(screen.contains("trip-30.jpg"), "thirty rows do not fit in 24 lines:\n\(screen)")
        let first = try XCTUnwrap(Self.row(of: "trip-01.jpg", in: screen))

        // Three notches down: nine rows further, trip-10 is at the top and trip-30 not yet shown.
        let notch = Self.wheel(down: true, x: 30, y: first + 2)
        try tmux.type(notch + notch + notch)
        screen = tmux.waitFor("the rows scrolled by nine") { screen in
            Self.row(of: "trip-10.jpg", in: screen) == first && !screen.contains("trip-01.jpg")
        }
        // A click selects trip-14; `c` cancels that one and no other.
        let fourteen = try XCTUnwrap(Self.row(of: "trip-14.jpg", in: screen))
        try tmux.type(Self.click(x: 20, y: fourteen))
        try tmux.type("c")
        screen = tmux.waitFor("trip-14 cancelled") { screen in
            Self.lines(screen).contains { $0.contains("trip-14.jpg") && $0.contains("cancelled") }
        }
        XCTAssertFalse(Self.lines(screen).contains { $0.contains("trip-10.jpg") && $0.contains("cancelled") }, screen)
        // A click beside the rows (on the panel's hint line) does not reach the photos list below.
        let hint = try XCTUnwrap(Self.row(of: "Esc/c cancel", in: screen))
        try tmux.type(Self.click(x: 40, y: hint) + Self.click(x: 40, y: hint))
        try tmux.type(Self.wheel(down: true, x: 30, y: first + 2))
        tmux.waitFor("the panel scrolled once more") { Self.row(of: "trip-13.jpg", in: $0) == first }
        XCTAssertTrue(tmux.capture().contains("Esc/c cancel"), "the panel is still open")
    }
}
