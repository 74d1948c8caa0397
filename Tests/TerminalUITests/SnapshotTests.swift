import TerminalUI
import TestSupport
import XCTest

/// Whole screens rendered into a grid and compared with golden text (see `assertSnapshot`).
@MainActor
final class SnapshotTests: XCTestCase {
    func testTabBarNotesActive() async {
        let screen = Fixture.Screen()
        let canvas = Fixture.render([screen], width: 80, height: 24)
        assertSnapshot(canvas, named: "tabbar-notes-80x24")
        let theme = canvas.theme
        XCTAssertEqual(canvas.style(x: canvas.column(of: "Notes", inRow: 0)!, y: 0), theme.tabActive)
        XCTAssertEqual(canvas.style(x: canvas.column(of: "PanoPhotos", inRow: 0)!, y: 0), theme.tabInactive)
    }

    func testTabBarPanoPhotosActive() async {
        let screen = Fixture.Screen(rows: [
            ListRow(["desk-anna-2026.jpg", "4.2 MB", "2026-11-21"]),
            ListRow(["pano-basement-lab.jpg", "7.9 MB", "2026-11-02"]),
        ], columns: Fixture.photoColumns)
        screen.tab = 1
        let canvas = Fixture.render([screen], width: 80, height: 24)
        assertSnapshot(canvas, named: "tabbar-panophotos-80x24")
        XCTAssertEqual(canvas.style(x: canvas.column(of: "PanoPhotos", inRow: 0)!, y: 0), canvas.theme.tabActive)
        XCTAssertEqual(canvas.style(x: canvas.column(of: "Notes", inRow: 0)!, y: 0), canvas.theme.tabInactive)
    }

    func testListWithSelection() async {
        let screen = Fixture.Screen()
        screen.list.selected = 2
        let canvas = Fixture.render([screen], width: 80, height: 24)
        assertSnapshot(canvas, named: "list-selection-80x24")
        // Row 0 is the tab bar, row 1 the header; the third note is on row 4, highlighted edge to edge.
        XCTAssertEqual(canvas.style(x: 0, y: 4), canvas.theme.selection)
        XCTAssertEqual(canvas.style(x: 79, y: 4), canvas.theme.selection)
        XCTAssertEqual(canvas.style(x: 0, y: 3), canvas.theme.text)
    }

    func testLongListScrolledAt120x36() async {
        let rows = (1...500).map { ListRow(["note-\($0).txt", "\($0 * 3) B", "2026-11-\(String(format: "%02d", $0 % 28 + 1)) 12:00"]) }
        let screen = Fixture.Screen(rows: rows)
        screen.list.selected = 99  // row 100: the list must scroll to show it
        let canvas = Fixture.render([screen], width: 120, height: 36)
        assertSnapshot(canvas, named: "list-scrolled-120x36")
        XCTAssertNotNil(canvas.column(of: "note-100.txt", inRow: 34), "the last list row, above the status bar")
    }

    func testFilteredList() async {
        let screen = Fixture.Screen()
        for key in KeyDecoder.decode("/chall") { _ = screen.list.handle(key, rows: screen.rows) }
        let canvas = Fixture.render([screen], width: 80, height: 24)
        assertSnapshot(canvas, named: "list-filtered-80x24")
        XCTAssertEqual(canvas.cursor, Point(x: 8, y: 22), "the cursor sits after the filter text")
    }

    func testFilterWithoutMatches() async {
        let screen = Fixture.Screen()
        for key in KeyDecoder.decode("/zzz\r") { _ = screen.list.handle(key, rows: screen.rows) }
        assertSnapshot(Fixture.render([screen], width: 80, height: 24), named: "list-nomatch-80x24")
    }

    func testEmptyList() async {
        let screen = Fixture.Screen(rows: [])
        assertSnapshot(Fixture.render([screen], width: 80, height: 24), named: "list-empty-80x24")
    }

    func testModalWithButtons() async {
        let dialog = DialogLayer(Modal(
            title: "Unsaved changes",
            body: ["“fizzbuzz-in-one-line.txt” has changes that are not saved."],
            buttons: ["Save", "Discard", "Cancel"]
        ), selected: 0) { _ in }
        let canvas = Fixture.render([Fixture.Screen(), dialog], width: 80, height: 24)
        assertSnapshot(canvas, named: "modal-buttons-80x24")
        let save = canvas.position(of: "[ Save ]")!
        XCTAssertEqual(canvas.style(x: save.x, y: save.y), canvas.theme.buttonSelected)
        let discard = canvas.position(of: "[ Discard ]")!
        XCTAssertEqual(canvas.style(x: discard.x, y: discard.y), canvas.theme.button)
        XCTAssertEqual(canvas.style(x: save.x + 2, y: save.y), canvas.theme.buttonSelected.adding(.underline), "hotkey letter")
    }

    func testModalWithProgress() async {
        let modal = Modal(
            title: "Uploading pano-basement-lab.jpg",
            progress: 0.42,
            progressDetail: "3.3 MB / 7.9 MB · 1.2 MB/s · 0:04 left",
            hint: "Esc cancel · b background"
        )
        let layer = DialogLayer(modal) { _ in }
        let canvas = Fixture.render([Fixture.Screen(), layer], width: 80, height: 24)
        assertSnapshot(canvas, named: "modal-progress-80x24")
        let big = Fixture.render([Fixture.Screen(), layer], width: 120, height: 36)
        assertSnapshot(big, named: "modal-progress-120x36")
        XCTAssertTrue(big.dump().contains("42%"))
    }

    func testHelpOverlay() async {
        let compositor = Compositor()
        compositor.push(Fixture.Screen())
        compositor.showHelp()
        let canvas = GridCanvas(width: 80, height: 24)
        compositor.render(into: canvas)
        assertSnapshot(canvas, named: "help-80x24")
        let big = GridCanvas(width: 120, height: 36)
        compositor.render(into: big)
        assertSnapshot(big, named: "help-120x36")
    }

    func testTooSmall() async {
        assertSnapshot(Fixture.render([Fixture.Screen()], width: 30, height: 8), named: "toosmall-30x8")
        assertSnapshot(Fixture.render([Fixture.Screen()], width: 1, height: 1), named: "toosmall-1x1")
        assertSnapshot(Fixture.render([Fixture.Screen()], width: 40, height: 10), named: "minimum-40x10")
        let empty = Fixture.render([Fixture.Screen()], width: 0, height: 0)
        XCTAssertEqual(empty.dump(), "")
    }

    func testWideCharacters() async {
        let rows = [
            ListRow(["你好 Grüße 🎉", "12 B", "2026-11-21 20:56"]),
            ListRow(["日本語のメモ.txt", "3.0 KB", "2026-11-20 10:00"]),
            ListRow(["cafe\u{301} combining.txt", "9 B", "2026-11-19 09:00"]),
            ListRow(["emoji-🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉.txt", "1 KB", "2026-11-18 08:00"]),
        ]
        let screen = Fixture.Screen(rows: rows)
        screen.status.message = StatusMessage("Saved “你好.txt”", kind: .success)
        let canvas = Fixture.render([screen], width: 80, height: 24)
        assertSnapshot(canvas, named: "wide-chars-80x24")
        // "你好 Grüße 🎉": 你 and 好 take two cells each, the emoji two; é's mark takes none.
        XCTAssertEqual(canvas.column(of: "好", inRow: 2), 3)
        XCTAssertEqual(canvas.column(of: "G", inRow: 2), 6)
        XCTAssertEqual(canvas.column(of: "🎉", inRow: 2), 12)
        XCTAssertEqual(canvas.column(of: " combining", inRow: 4), 5)
    }

    func testStatusBarBusyWithError() async {
        let screen = Fixture.Screen()
        screen.status = StatusBar(backend: "http://192.168.1.20:8080", isBusy: true, tick: 3,
                                  message: .error("Upload failed: connection refused (retrying in 4 s)"),
                                  progress: "↑ 42% 1.2 MB/s", hint: "? help")
        let canvas = Fixture.render([screen], width: 80, height: 24)
        assertSnapshot(canvas, named: "status-error-80x24")
        let x = canvas.column(of: "Upload failed", inRow: 23)!
        XCTAssertEqual(canvas.style(x: x, y: 23), canvas.theme.statusError)
        XCTAssertEqual(canvas.cell(x: x - 2, y: 23).text, StatusBar.spinnerFrames[3])
    }

    func testTextInputScrollsWideText() async {
        let canvas = GridCanvas(width: 24, height: 3)
        var state = TextInputState(text: "/home/anna/写真/パノラマ-2026.jpg")
        TextInput(prompt: "Path: ").render(into: canvas, area: Rect(x: 0, y: 1, width: 24, height: 1), state: &state)
        assertSnapshot(canvas, named: "textinput-24x3")
        XCTAssertEqual(canvas.cursor?.y, 1)
        XCTAssertLessThan(canvas.cursor!.x, 24)
    }
}
