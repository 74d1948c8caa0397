import Foundation
import Imaging
import TestSupport
import XCTest

/// Every picture format in a real terminal: a PNG, a GIF, a WebP and an SVG drawn in a note's
/// rendered view (one sized by its link) and counted and drawn in PanoPhotos, where an import
/// puts a vault's pictures (an album); a picture the app cannot draw is one row.
final class PictureFormatsEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var notes: URL { app.club.appendingPathComponent("byteclub") }

    /// A 160×80 picture: its color on the left half, white on the right. Two colors a row, so
    /// `capture-pane -e` (which writes a color only where it changes, across rows too) names the
    /// picture's color on every row of it, and its width shows.
    static func halves(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> RGBImage {
        RGBImage(width: 160, height: 80, pixels: (0..<(160 * 80)).flatMap { $0 % 160 < 80 ? [r, g, b] : [255, 255, 255] })
    }

    /// The pictures, each in a color of its own, and that color's index among xterm's 256:
    /// red, green, blue and yellow are corners of the color cube.
    static func pictures() throws -> [(name: String, data: Data, color: Int)] {
        let indices = (0..<(160 * 80)).map { UInt8($0 % 160 < 80 ? 0 : 1) }
        return [
            ("shot.png", try PNG.encode(halves(255, 0, 0)), 196),
            // The first frame green; the second, never shown, magenta.
            ("anim.gif", try GIF.encode(width: 160, height: 80, palette: [(0, 255, 0), (255, 255, 255), (255, 0, 255)],
                                        frames: [indices, indices.map { $0 == 0 ? 2 : 1 }]), 46),
            ("photo.webp", try WebP.encode(halves(0, 0, 255)), 21),
            ("icon.svg", Data(#"""
                <svg xmlns="http://www.w3.org/2000/svg" width="160" height="80">
                  <rect width="80" height="80" fill="#ffff00"/><rect x="80" width="80" height="80" fill="#ffffff"/>
                </svg>
                """#.utf8), 226),
        ]
    }

    /// Puts the pictures in an album, `photos/Attachments/`, as an import of a vault does.
    func writePictures() throws -> [(name: String, data: Data, color: Int)] {
        let album = notes.appendingPathComponent("photos/Attachments")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        let pictures = try Self.pictures()
        for picture in pictures { try picture.data.write(to: album.appendingPathComponent(picture.name)) }
        return pictures
    }

    /// 256 colors without `ech`, `rep` or `bce`: curses writes every blank of a picture as a
    /// colored space. On xterm-256color it erases runs of them with the background color, and
    /// tmux's capture has no cells (and no colors) for erased ones.
    static let term = "screen-256color"

    /// The screen's rows with their colors as escapes, trailing cells kept (`capture-pane -e -N`):
    /// without `-N`, a row of colored blanks (a picture's) is cut to nothing, its colors with it.
    static func cells(_ tmux: TmuxSession) -> [Substring] {
        ((try? tmux.run(["capture-pane", "-p", "-e", "-N", "-t", tmux.session])) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// Whether `row` (a line of `capture-pane -e`) has cells in 256-color `index`, as a
    /// background or a foreground (chafa draws a solid block either way).
    static func colored(_ row: Substring, _ index: Int) -> Bool {
        row.contains("48;5;\(index)m") || row.contains("38;5;\(index)m") || row.contains("48;5;\(index);") || row.contains("38;5;\(index);")
    }

    func testEachFormatIsDrawnInTheRenderedViewAndOneThatCannotBeIsOneRow() throws {
        // Tall enough for the whole note: each picture's slot is 9 rows at 80 columns (78 / 8).
        let tmux = try app.launch(width: 80, height: 70, term: Self.term)
        tmux.waitFor("Welcome to Byte Club")
        let pictures = try writePictures()
        try Data("II*\0".utf8).write(to: notes.appendingPathComponent("photos/scan.tiff"))
        try Data("not a picture".utf8).write(to: notes.appendingPathComponent("photos/broken.png"))
        // By name, as Obsidian finds them (the album is found), with captions to find each slot by.
        let text = pictures.map { "![[\($0.name)]]\n\ncaption of \($0.name)" }.joined(separator: "\n\n")
            + "\n\n![the scan](photos/scan.tiff)\n\n![[broken.png]]\n\nThe end."
        try text.write(to: notes.appendingPathComponent("Formats.md"), atomically: true, encoding: .utf8)
        try openRendered("Formats", in: tmux)

        // Each picture's slot (the rows above the blank before its caption) in its color.
        let screen = tmux.waitFor("each picture drawn in its color") { screen in
            let plain = screen.split(separator: "\n", omittingEmptySubsequences: false)
            let colored = Self.cells(tmux)
            return pictures.allSatisfy { picture in
                guard let caption = plain.firstIndex(where: { $0.contains("caption of \(picture.name)") }), caption >= 11,
                      colored.count > caption else { return false }
                return colored[(caption - 10)..<(caption - 1)].allSatisfy { Self.colored($0, picture.color) }
                    && !screen.contains("▣ \(picture.name)")
            }
        }
        // The TIFF is one row (its name and why), its caption right under it: no blank slot; the
        // PNG that is no picture (its thumbnail failed) one row with its size.
        let lines = tmux.waitFor("the broken PNG's one row") { $0.contains("▣ broken.png · 13 B · cannot be drawn") }
            .split(separator: "\n", omittingEmptySubsequences: false)
        let tiff = try XCTUnwrap(lines.firstIndex { $0.contains("▣ scan.tiff · TIFF pictures are not drawn") }, screen)
        XCTAssertTrue(lines[tiff + 1].contains("the scan"), "\(lines)")
        let broken = try XCTUnwrap(lines.firstIndex { $0.contains("▣ broken.png") })
        XCTAssertTrue(lines[broken + 1].trimmingCharacters(in: .whitespaces).isEmpty && lines[broken + 2].contains("The end."), "\(lines)")
    }

    /// A vault's SVG icon stays at its vault path when imported (an attachment, beside the notes,
    /// not in an album): the note's link to it draws it all the same.
    func testAPictureKeptBesideItsNoteIsDrawn() throws {
        let tmux = try app.launch(width: 80, height: 40, term: Self.term)
        tmux.waitFor("Welcome to Byte Club")
        let icon = try XCTUnwrap(try Self.pictures().first { $0.name == "icon.svg" })
        // The vault imported into the club's folder itself: its note at the top, its icon in icons/.
        let vault = notes
        try FileManager.default.createDirectory(at: vault.appendingPathComponent("icons"), withIntermediateDirectories: true)
        try icon.data.write(to: vault.appendingPathComponent("icons/logo.svg"))
        try "The club's flag:\n\n![flag](icons/logo.svg)\n\ncaption of the flag".write(to: vault.appendingPathComponent("Flag.md"), atomically: true, encoding: .utf8)
        try openRendered("Flag", in: tmux)
        tmux.waitFor("the flag drawn in its color") { screen in
            let plain = screen.split(separator: "\n", omittingEmptySubsequences: false)
            let colored = Self.cells(tmux)
            // The picture's slot is above its alt text ("flag"), which is above the caption.
            guard let alt = plain.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "flag" }), alt >= 7, colored.count > alt else { return false }
            return colored[(alt - 6)..<(alt - 2)].allSatisfy { Self.colored($0, icon.color) } && !screen.contains("▣ logo.svg")
        }
    }

    /// Lists the notes again, filters them down to `title` and opens it in the rendered view.
    func openRendered(_ title: String, in tmux: TmuxSession) throws {
        try tmux.type("r")
        tmux.waitFor(title)
        try tmux.type("/")
        try tmux.type(title)
        try tmux.press("Enter")
        tmux.waitFor("the filter showing only \(title)") { $0.split(separator: "\n").contains { $0.contains("/ \(title)") && $0.contains("1 of") } }
        try tmux.type("v")
        tmux.waitFor("Rendered view")
    }

    /// The cell size the app reads from its terminal: `TIOCGWINSZ`'s pixel fields as tmux fills
    /// them (tmux 3.3 says 16×32 with no client attached), or the 10×20 the app assumes without.
    func cellSize(_ tmux: TmuxSession) throws -> (width: Int, height: Int) {
        let tty = try tmux.run(["display-message", "-p", "-t", tmux.session, "#{pane_tty}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let script = """
            import fcntl, struct, sys, termios
            with open(sys.argv[1], "rb", buffering=0) as tty:
                rows, columns, x, y = struct.unpack("HHHH", fcntl.ioctl(tty, termios.TIOCGWINSZ, bytes(8)))
            print(x // columns if x >= columns else 0, y // rows if y >= rows else 0)
            """
        let result = try ChildProcess.run(["/usr/bin/python3", "-c", script, tty], within: 10)
        let numbers = result.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard numbers.count == 2, numbers[0] > 0, numbers[1] > 0 else { return (10, 20) }
        return (numbers[0], numbers[1])
    }

    func testASizedPictureIsDrawnAtItsSize() throws {
        let tmux = try app.launch(term: Self.term)
        tmux.waitFor("Welcome to Byte Club")
        _ = try writePictures()
        // 320×160 pixels (the picture's own 2:1) over the terminal's cell: 20 columns and 5 rows
        // of 16×32 cells, 32 and 8 of 10×20 ones.
        let cell = try cellSize(tmux)
        let (columns, rows) = ((320 + cell.width - 1) / cell.width, (160 + cell.height - 1) / cell.height)
        try "Sized:\n\n![[icon.svg|320x160]]\n\nunder it".write(to: notes.appendingPathComponent("Sized.md"), atomically: true, encoding: .utf8)
        try openRendered("Sized", in: tmux)
        // Its rows in yellow (and white), then the blank row between paragraphs; above them, the blank after "Sized:".
        tmux.waitFor("the icon drawn in \(rows) rows") { screen in
            let plain = screen.split(separator: "\n", omittingEmptySubsequences: false)
            let colored = Self.cells(tmux)
            guard !screen.contains("▣ icon.svg"), let under = plain.firstIndex(where: { $0.contains("under it") }), under >= rows + 2,
                  colored.count > under else { return false }
            return ((under - rows - 1)..<(under - 1)).allSatisfy { Self.colored(colored[$0], 226) }
                && !Self.colored(colored[under - rows - 2], 226) && !Self.colored(colored[under - 1], 226)
        }
        let plain = tmux.capture().split(separator: "\n", omittingEmptySubsequences: false)
        // -N: trailing cells kept, the picture's white half among them.
        let colored = Self.cells(tmux)
        let under = try XCTUnwrap(plain.firstIndex { $0.contains("under it") })
        // As wide as its columns: its cells (yellow, then white) from column 1 (the view's margin) on.
        for row in (under - rows - 1)..<(under - 1) {
            let cells = Self.pictureColumns(colored[row])
            XCTAssertGreaterThanOrEqual(cells.count, columns - 1, "\(colored[row])")
            XCTAssertLessThanOrEqual(cells.max() ?? 0, columns, "\(colored[row])")
        }
    }

    func testPanoPhotosCountsAndDrawsEachFormat() throws {
        let tmux = try app.launch(term: Self.term)
        tmux.waitFor("Welcome to Byte Club")
        let pictures = try writePictures()
        try tmux.type("2")
        tmux.waitFor("alps-sunrise.jpg")
        try tmux.type("r")
        tmux.waitFor(all: ["▸ Attachments/", "Album · 4 photos"])
        // The album is first: Enter opens it, and each picture's row has its thumbnail in its color.
        try tmux.press("Home")
        try tmux.press("Enter")
        tmux.waitFor(all: [".. (all albums)"] + pictures.map(\.name))
        for picture in pictures {
            tmux.waitFor("\(picture.name)'s thumbnail") { _ in
                let colored = Self.cells(tmux)
                let plain = tmux.capture().split(separator: "\n", omittingEmptySubsequences: false)
                guard let row = plain.firstIndex(where: { $0.contains(picture.name) }), row < colored.count else { return false }
                return Self.colored(colored[row], picture.color)
            }
        }
        XCTAssertFalse(tmux.capture().contains("no preview"), tmux.capture())
    }

    /// The columns (from 0) of the cells of `row` drawn on a 256-color background, read from
    /// its escapes (the row's first cell taken as the default's: the view's margin).
    static func pictureColumns(_ row: Substring) -> [Int] {
        var columns: [Int] = []
        var column = 0
        var colored = false
        var index = row.startIndex
        while index < row.endIndex {
            if row[index] == "\u{1B}", let end = row[index...].firstIndex(of: "m") {
                let parameters = row[row.index(index, offsetBy: 2)..<end].split(separator: ";", omittingEmptySubsequences: false)
                var k = 0
                while k < parameters.count {
                    switch parameters[k] {
                    case "48" where k + 2 < parameters.count: colored = true; k += 2
                    case "38" where k + 2 < parameters.count: k += 2
                    case "49", "0", "": colored = false
                    default: break
                    }
                    k += 1
                }
                index = row.index(after: end)
                continue
            }
            if colored { columns.append(column) }
            column += 1
            index = row.index(after: index)
        }
        return columns
    }
}
