import Foundation
import TerminalUI
import TestSupport
import XCTest

/// Marking several files in the chooser (Space, `*`), Enter on the marks, and Ctrl-F on a
/// folder, over a made-up file system.
@MainActor
final class FileChooserMarksTests: XCTestCase {
    nonisolated private static let folders: [String: [FileEntry]] = [
        "/home/ray": [
            FileEntry(name: "trip", isDirectory: true),
            FileEntry(name: "b.jpg", isDirectory: false, size: 10),
            FileEntry(name: "a.JPG", isDirectory: false, size: 10),
            FileEntry(name: "c.jpeg", isDirectory: false, size: 10),
            FileEntry(name: "locked.jpg", isDirectory: false, size: 10, isReadable: false),
            FileEntry(name: "notes.txt", isDirectory: false, size: 10),
        ],
        "/home/ray/trip": [
            FileEntry(name: "day-2.jpg", isDirectory: false, size: 10),
            FileEntry(name: "Day-1.jpg", isDirectory: false, size: 10),
            FileEntry(name: ".hidden.jpg", isDirectory: false, size: 10),
            FileEntry(name: "old", isDirectory: true),
            FileEntry(name: "readme.txt", isDirectory: false, size: 10),
        ],
        "/home/ray/trip/old": [],
        "/home": [FileEntry(name: "ray", isDirectory: true)],
    ]

    private struct Missing: Error {}

    private func chooser(_ path: String = "/home/ray") -> FileChooserState {
        FileChooserState(directory: URL(fileURLWithPath: path), homeDirectory: URL(fileURLWithPath: "/home/ray")) { url in
            guard let entries = Self.folders[url.path] else { throw Missing() }
            return entries
        }
    }

    private func url(_ path: String) -> URL { URL(fileURLWithPath: path) }

    func testSpaceMarksAndMovesDownAndEnterChoosesTheMarked() async {
        var state = chooser()
        XCTAssertEqual(state.entries.map(\.name), ["..", "trip", "a.JPG", "b.jpg", "c.jpeg", "locked.jpg"])
        state.list.selected = 2
        XCTAssertEqual(state.handle(.char(" ")), .updated)
        XCTAssertEqual(state.list.selected, 3, "Space moves on, so Spaces mark a run")
        state.handle(.down)
        state.handle(.char(" "))
        XCTAssertEqual(state.marked, [url("/home/ray/a.JPG"), url("/home/ray/c.jpeg")])
        XCTAssertTrue(state.isMarked("a.JPG"))
        XCTAssertFalse(state.isMarked("b.jpg"))
        // Unmarking: back on a.JPG.
        state.list.selected = 2
        state.handle(.char(" "))
        XCTAssertEqual(state.marked, [url("/home/ray/c.jpeg")])
        state.list.selected = 3
        state.handle(.char(" "))
        XCTAssertEqual(state.handle(.enter), .chosenMany([url("/home/ray/c.jpeg"), url("/home/ray/b.jpg")]), "in the order marked")
    }

    func testWhatCannotBeMarkedSaysWhy() async {
        var state = chooser()
        state.list.selected = 5
        state.handle(.char(" "))
        XCTAssertEqual(state.error, "Cannot read locked.jpg: permission denied")
        state.list.selected = 1
        state.handle(.char(" "))
        XCTAssertEqual(state.error, "Only files are marked; Ctrl-F offers a whole folder")
        XCTAssertEqual(state.marked, [])
    }

    func testStarMarksEveryImageThenUnmarksThem() async {
        var state = chooser()
        state.handle(.char("*"))
        XCTAssertEqual(state.marked, ["a.JPG", "b.jpg", "c.jpeg"].map { url("/home/ray/" + $0) }, "readable images only")
        // Marks survive a visit to another folder; Enter on a subfolder still opens it.
        state.list.selected = 1
        XCTAssertEqual(state.handle(.enter), .updated)
        XCTAssertEqual(state.directory.path, "/home/ray/trip")
        XCTAssertEqual(state.marked.count, 3)
        state.handle(.char("*"))
        XCTAssertEqual(state.marked.count, 5)
        state.handle(.char("*"))
        XCTAssertEqual(state.marked.count, 3, "all marked here: * unmarks them")
        XCTAssertEqual(state.handle(.enter), .chosenMany(["a.JPG", "b.jpg", "c.jpeg"].map { url("/home/ray/" + $0) }), "Enter on .. uploads")
    }

    func testSpaceAndStarAreTextWhileAPathIsTyped() async {
        var state = chooser()
        state.handle(.char("x"))
        state.handle(.char(" "))
        state.handle(.char("*"))
        XCTAssertEqual(state.input.text, "x *")
        XCTAssertEqual(state.marked, [])
    }

    func testCtrlFOffersTheFolderUnderTheCursorOrTheOneShown() async {
        var state = chooser()
        state.list.selected = 1
        XCTAssertEqual(state.handle(.ctrl("f")), .folder(url("/home/ray/trip"), files: [url("/home/ray/trip/Day-1.jpg"), url("/home/ray/trip/day-2.jpg")]))
        state.list.selected = 3
        XCTAssertEqual(state.handle(.ctrl("f")), .folder(url("/home/ray"), files: ["a.JPG", "b.jpg", "c.jpeg"].map { url("/home/ray/" + $0) }))
        var empty = chooser("/home/ray/trip/old")
        XCTAssertEqual(empty.handle(.ctrl("f")), .updated)
        XCTAssertEqual(empty.error, "No images in ~/trip/old")
    }

    func testMarksShowInTheDialog() async {
        var state = chooser()
        state.list.selected = 3
        state.handle(.char(" "))
        let layer = FileChooser(state: state) { _ in }
        let canvas = GridCanvas(width: 80, height: 24)
        layer.render(into: canvas, area: canvas.bounds)
        let screen = canvas.dump()
        XCTAssertTrue(screen.contains("✓ b.jpg"), screen)
        XCTAssertFalse(screen.contains("✓ a.JPG"))
        XCTAssertTrue(screen.contains("1 marked · Enter upload them"), screen)
    }
}
