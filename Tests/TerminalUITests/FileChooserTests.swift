import Foundation
import TerminalUI
import TestSupport
import XCTest

/// A made-up file system for the chooser: folder path → entries; listing anything else fails.
private enum FakeFiles {
    struct Failure: LocalizedError {
        var errorDescription: String?
    }

    static let folders: [String: [FileEntry]] = [
        "/": [FileEntry(name: "home", isDirectory: true), FileEntry(name: "tmp", isDirectory: true)],
        "/home": [FileEntry(name: "anna", isDirectory: true)],
        "/home/anna": [
            FileEntry(name: "Pictures", isDirectory: true),
            FileEntry(name: "documents", isDirectory: true),
            FileEntry(name: ".cache", isDirectory: true),
            FileEntry(name: "Secret", isDirectory: true),
            FileEntry(name: "notes.txt", isDirectory: false, size: 812),
            FileEntry(name: "pano.JPG", isDirectory: false, size: 7_900_000),
            FileEntry(name: "desk.jpeg", isDirectory: false, size: 4_200_000),
            FileEntry(name: ".hidden.jpg", isDirectory: false, size: 10),
        ],
        "/home/anna/Pictures": [
            FileEntry(name: "pano-basement-lab.jpg", isDirectory: false, size: 7_912_345),
            FileEntry(name: "Desk-2026.jpg", isDirectory: false, size: 4_213_000),
            FileEntry(name: "readme.txt", isDirectory: false, size: 640),
            FileEntry(name: "Trips", isDirectory: true),
            FileEntry(name: "locked.jpg", isDirectory: false, size: 1_000, isReadable: false),
            FileEntry(name: "café-2025.jpeg", isDirectory: false, size: 2_048_000),
            FileEntry(name: "archive", isDirectory: true),
        ],
        "/home/anna/Pictures/Trips": [FileEntry(name: "berlin.jpg", isDirectory: false, size: 3_000_000)],
        "/home/anna/documents": [],
        "/tmp": [],
    ]

    static func list(_ url: URL) throws -> [FileEntry] {
        if url.path == "/home/anna/Secret" { throw Failure(errorDescription: "Permission denied") }
        guard let entries = folders[url.path] else { throw Failure(errorDescription: "No such folder") }
        return entries
    }
}

@MainActor
final class FileChooserTests: XCTestCase {
    private let home = URL(fileURLWithPath: "/home/anna")

    private func chooser(_ path: String = "/home/anna", showsAll: Bool = false) -> FileChooserState {
        FileChooserState(directory: URL(fileURLWithPath: path), showsAll: showsAll, homeDirectory: home, lister: FakeFiles.list)
    }

    private func names(_ state: FileChooserState) -> [String] { state.entries.map(\.name) }

    private func type(_ text: String, into state: inout FileChooserState) {
        for character in text { XCTAssertEqual(state.handle(.char(character)), .updated) }
    }

    func testFoldersFirstThenImagesByNameIgnoringCase() async {
        let state = chooser("/home/anna/Pictures")
        XCTAssertEqual(names(state), ["..", "archive", "Trips", "café-2025.jpeg", "Desk-2026.jpg", "locked.jpg", "pano-basement-lab.jpg"])
        XCTAssertEqual(state.directoryDisplay, "~/Pictures")
        XCTAssertNil(state.error)
        XCTAssertEqual(state.selectedEntry?.name, "..")
    }

    func testHiddenEntriesStayHiddenAndImageExtensionsIgnoreCase() async {
        let state = chooser()
        XCTAssertEqual(names(state), ["..", "documents", "Pictures", "Secret", "desk.jpeg", "pano.JPG"])
    }

    func testShowAllToggleKeepsTheSelection() async {
        var state = chooser()
        state.handle(.end)
        XCTAssertEqual(state.selectedEntry?.name, "pano.JPG")
        XCTAssertEqual(state.handle(.ctrl("a")), .updated)
        XCTAssertTrue(state.showsAll)
        XCTAssertEqual(names(state), ["..", "documents", "Pictures", "Secret", "desk.jpeg", "notes.txt", "pano.JPG"])
        XCTAssertEqual(state.selectedEntry?.name, "pano.JPG")
        state.handle(.ctrl("a"))
        XCTAssertFalse(state.showsAll)
        XCTAssertFalse(names(state).contains("notes.txt"))
    }

    func testCustomExtensions() async {
        let state = FileChooserState(directory: home, extensions: ["TXT"], homeDirectory: home, lister: FakeFiles.list)
        XCTAssertEqual(names(state), ["..", "documents", "Pictures", "Secret", "notes.txt"])
    }

    func testMovementKeysClamp() async {
        var state = chooser("/home/anna/Pictures")
        state.handle(.up)
        XCTAssertEqual(state.list.selected, 0)
        state.handle(.down)
        state.handle(.down)
        XCTAssertEqual(state.selectedEntry?.name, "Trips")
        state.handle(.end)
        XCTAssertEqual(state.list.selected, 6)
        state.handle(.down)
        XCTAssertEqual(state.list.selected, 6)
        state.list.pageSize = 4
        state.handle(.pageUp)
        XCTAssertEqual(state.list.selected, 2)
        state.handle(.pageUp)
        XCTAssertEqual(state.list.selected, 0)
        state.handle(.pageDown)
        XCTAssertEqual(state.list.selected, 4)
        state.handle(.home)
        XCTAssertEqual(state.list.selected, 0)
    }

    func testEnterOpensAFolderAndBackspaceGoesBack() async {
        var state = chooser()
        state.handle(.down)
        state.handle(.down)
        XCTAssertEqual(state.selectedEntry?.name, "Pictures")
        XCTAssertEqual(state.handle(.enter), .updated)
        XCTAssertEqual(state.directory.path, "/home/anna/Pictures")
        XCTAssertEqual(state.list.selected, 0)
        XCTAssertEqual(state.handle(.backspace), .updated)
        XCTAssertEqual(state.directory.path, "/home/anna")
        XCTAssertEqual(state.selectedEntry?.name, "Pictures", "back on the folder we came from")
        // ".." does the same as Backspace, up to the root, which has no "..".
        state.handle(.home)
        state.handle(.enter)
        XCTAssertEqual(state.directory.path, "/home")
        state.handle(.backspace)
        XCTAssertEqual(state.directory.path, "/")
        XCTAssertEqual(names(state), ["home", "tmp"])
        state.handle(.backspace)
        XCTAssertEqual(state.directory.path, "/", "nothing above the root")
    }

    func testEnterOnAFileChoosesIt() async {
        var state = chooser("/home/anna/Pictures")
        state.handle(.end)
        XCTAssertEqual(state.handle(.enter), .chosen(URL(fileURLWithPath: "/home/anna/Pictures/pano-basement-lab.jpg")))
    }

    func testTypingJumpsToAMatchingEntry() async {
        var state = chooser("/home/anna/Pictures")
        type("DE", into: &state)
        XCTAssertEqual(state.input.text, "DE")
        XCTAssertEqual(state.selectedEntry?.name, "Desk-2026.jpg")
    }

    func testBackspaceEditsATypedPath() async {
        var state = chooser("/home/anna/Pictures")
        type("ab", into: &state)
        XCTAssertEqual(state.handle(.backspace), .updated)
        XCTAssertEqual(state.input.text, "a")
        XCTAssertEqual(state.directory.path, "/home/anna/Pictures", "Backspace edited, it did not go up")
        XCTAssertEqual(state.handle(.left), .updated)
        XCTAssertEqual(state.input.cursor, 0)
    }

    func testTypedRelativePathIsChosen() async {
        var state = chooser()
        type("Pictures/Trips/berlin.jpg", into: &state)
        XCTAssertEqual(state.handle(.enter), .chosen(URL(fileURLWithPath: "/home/anna/Pictures/Trips/berlin.jpg")))
    }

    func testTypedPathWithTildeAndDotDot() async {
        var state = chooser("/home/anna/Pictures/Trips")
        type("~/desk.jpeg", into: &state)
        XCTAssertEqual(state.handle(.enter), .chosen(URL(fileURLWithPath: "/home/anna/desk.jpeg")))
        var other = chooser("/home/anna/Pictures/Trips")
        type("../../pano.JPG", into: &other)
        XCTAssertEqual(other.handle(.enter), .chosen(URL(fileURLWithPath: "/home/anna/pano.JPG")))
        var absolute = chooser("/tmp")
        type("/home/anna/Pictures//Trips/./berlin.jpg", into: &absolute)
        XCTAssertEqual(absolute.handle(.enter), .chosen(URL(fileURLWithPath: "/home/anna/Pictures/Trips/berlin.jpg")))
    }

    func testTypedHiddenFileCanBeChosen() async {
        var state = chooser()
        type(".hidden.jpg", into: &state)
        XCTAssertEqual(state.handle(.enter), .chosen(URL(fileURLWithPath: "/home/anna/.hidden.jpg")))
    }

    func testTypedFolderOpensAndClearsTheField() async {
        var state = chooser()
        type("Pictures/Trips/", into: &state)
        XCTAssertEqual(state.handle(.enter), .updated)
        XCTAssertEqual(state.directory.path, "/home/anna/Pictures/Trips")
        XCTAssertEqual(names(state), ["..", "berlin.jpg"])
        XCTAssertEqual(state.input.text, "")
        type("~", into: &state)
        state.handle(.enter)
        XCTAssertEqual(state.directory.path, "/home/anna")
    }

    func testMissingPathShowsAnErrorUntilTheNextKey() async {
        var state = chooser()
        type("nope.jpg", into: &state)
        XCTAssertEqual(state.handle(.enter), .updated)
        XCTAssertEqual(state.error, "Not found: ~/nope.jpg")
        XCTAssertEqual(state.directory.path, "/home/anna")
        XCTAssertEqual(state.input.text, "nope.jpg", "the path stays for fixing")
        state.handle(.backspace)
        XCTAssertNil(state.error)

        var deep = chooser()
        type("/no/such/place.jpg", into: &deep)
        deep.handle(.enter)
        XCTAssertEqual(deep.error, "Cannot read /no/such: No such folder")
    }

    func testNonImageFileIsRefusedUnlessShowingAll() async {
        var state = chooser()
        type("notes.txt", into: &state)
        XCTAssertEqual(state.handle(.enter), .updated)
        XCTAssertEqual(state.error, "Not an image file: notes.txt (Ctrl-A shows all files)")
        XCTAssertEqual(state.handle(.ctrl("a")), .updated)
        XCTAssertNil(state.error)
        XCTAssertEqual(state.handle(.enter), .chosen(URL(fileURLWithPath: "/home/anna/notes.txt")))
    }

    func testUnreadableFileAndFolder() async {
        var state = chooser("/home/anna/Pictures")
        type("locked", into: &state)
        XCTAssertEqual(state.selectedEntry?.name, "locked.jpg")
        state.handle(.ctrl("u"))
        XCTAssertEqual(state.input.text, "")
        XCTAssertEqual(state.handle(.enter), .updated)
        XCTAssertEqual(state.error, "Cannot read locked.jpg: permission denied")

        var home = chooser()
        type("Secret", into: &home)
        XCTAssertEqual(home.handle(.enter), .updated)
        XCTAssertEqual(home.error, "Cannot open ~/Secret: Permission denied")
        XCTAssertEqual(home.directory.path, "/home/anna", "still in the folder we were in")
        XCTAssertEqual(names(home).first, "..")
    }

    func testStartingInAnUnreadableFolderOffersTheWayUp() async {
        var state = chooser("/home/anna/Secret")
        XCTAssertEqual(state.error, "Cannot open ~/Secret: Permission denied")
        XCTAssertEqual(names(state), [".."])
        state.handle(.enter)
        XCTAssertEqual(state.directory.path, "/home/anna")
        XCTAssertNil(state.error)
        XCTAssertEqual(state.selectedEntry?.name, "Secret")
    }

    func testEscCancels() async {
        var state = chooser()
        type("abc", into: &state)
        XCTAssertEqual(state.handle(.escape), .cancelled)
    }

    func testLayerReportsOnceAndCloses() async {
        var results: [FileChooserResult] = []
        let compositor = Compositor()
        compositor.push(Fixture.Screen())
        let layer = FileChooser(state: chooser("/home/anna/Pictures")) { results.append($0) }
        compositor.push(layer)
        compositor.handle(.char("j"))
        XCTAssertEqual(layer.state.input.text, "j", "letters are typed, not list keys")
        XCTAssertEqual(compositor.handle(.tab), .consumed, "the screen below gets nothing")
        var interrupted = false
        compositor.onInterrupt = { interrupted = true }
        compositor.handle(.ctrl("c"))
        XCTAssertTrue(interrupted, "Ctrl-C passes through to quit")
        compositor.handle(.backspace)
        compositor.handle(.end)
        compositor.handle(.enter)
        XCTAssertEqual(results, [.chosen(URL(fileURLWithPath: "/home/anna/Pictures/pano-basement-lab.jpg"))])
        XCTAssertFalse(compositor.contains(layer))

        let again = FileChooser(state: chooser()) { results.append($0) }
        compositor.push(again)
        compositor.handle(.escape)
        XCTAssertEqual(results.last, .cancelled)
        XCTAssertFalse(compositor.contains(again))
        let help = again.commands().map(\.keyLabel)
        XCTAssertTrue(help.contains("Ctrl-A"), "\(help)")
        XCTAssertTrue(help.contains("Backspace"), "\(help)")
    }

    func testClickSelectsDoubleClickOpensAndTheWheelScrolls() async throws {
        var results: [FileChooserResult] = []
        let compositor = Compositor()
        compositor.push(Fixture.Screen())
        let layer = FileChooser(state: chooser("/home/anna/Pictures")) { results.append($0) }
        var now = 100.0
        layer.clock = { now }
        compositor.push(layer)
        var canvas = GridCanvas(width: 60, height: 20)
        compositor.render(into: canvas)
        let trips = try XCTUnwrap(canvas.position(of: "Trips/"))
        compositor.handle(.mouse(x: trips.x + 2, y: trips.y))
        XCTAssertEqual(layer.state.selectedEntry?.name, "Trips")
        now += 1
        compositor.handle(.mouse(x: trips.x + 2, y: trips.y))
        XCTAssertEqual(layer.state.directoryDisplay, "~/Pictures", "a second click a second later is no double click")
        now += 0.2
        compositor.handle(.mouse(x: trips.x + 2, y: trips.y))
        XCTAssertEqual(layer.state.directoryDisplay, "~/Pictures/Trips", "a double click opens the folder")
        canvas = GridCanvas(width: 60, height: 20)
        compositor.render(into: canvas)
        let berlin = try XCTUnwrap(canvas.position(of: "berlin.jpg"))
        compositor.handle(.mouse(x: berlin.x, y: berlin.y))
        compositor.handle(.mouse(x: berlin.x, y: berlin.y))
        XCTAssertEqual(results, [.chosen(URL(fileURLWithPath: "/home/anna/Pictures/Trips/berlin.jpg"))])

        // The wheel over a short folder has nothing to scroll, and nothing reaches the screen below.
        let again = FileChooser(state: chooser("/home/anna/Pictures")) { results.append($0) }
        compositor.push(again)
        compositor.render(into: canvas)
        XCTAssertEqual(compositor.handle(.pointer(MouseEvent(.wheelDown, x: 5, y: 5))), .consumed)
        XCTAssertEqual(again.state.list.offset, 0)
        XCTAssertEqual(compositor.handle(.mouse(x: 0, y: 0)), .consumed, "a click beside the dialog stops there")
        XCTAssertEqual(results.count, 1)
    }

    func testSnapshotOfAFolder() async {
        var state = chooser("/home/anna/Pictures")
        state.handle(.end)
        let layer = FileChooser(state: state) { _ in }
        let canvas = Fixture.render([Fixture.Screen(), layer], width: 80, height: 24)
        assertSnapshot(canvas, named: "filechooser-80x24")
        let selected = canvas.position(of: "pano-basement-lab.jpg")!
        XCTAssertEqual(canvas.style(x: selected.x, y: selected.y), canvas.theme.selection)
        XCTAssertNotNil(canvas.position(of: "7.5 MiB"))
        XCTAssertNotNil(canvas.cursor, "the cursor is in the path field")
    }

    func testSnapshotWithAnError() async {
        var state = chooser()
        type("notes.txt", into: &state)
        state.handle(.enter)
        let layer = FileChooser(state: state) { _ in }
        let canvas = Fixture.render([Fixture.Screen(), layer], width: 80, height: 24)
        assertSnapshot(canvas, named: "filechooser-error-80x24")
        let error = canvas.position(of: "Not an image file")!
        XCTAssertEqual(canvas.style(x: error.x, y: error.y), canvas.theme.error)
    }

    func testRealFileSystemListing() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("chooser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data(count: 1234).write(to: root.appendingPathComponent("photo.jpg"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: root.appendingPathComponent("sub").path)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("dangling.jpg").path, withDestinationPath: "/nonexistent/x")

        let entries = try FileChooserState.listDirectory(root).sorted { $0.name < $1.name }
        XCTAssertEqual(entries, [
            FileEntry(name: "dangling.jpg", isDirectory: false, size: nil, isReadable: false),
            FileEntry(name: "link", isDirectory: true),
            FileEntry(name: "photo.jpg", isDirectory: false, size: 1234),
            FileEntry(name: "sub", isDirectory: true),
        ])
        XCTAssertThrowsError(try FileChooserState.listDirectory(root.appendingPathComponent("missing")))
        let missing = FileChooserState(directory: root.appendingPathComponent("missing"))
        let message = try XCTUnwrap(missing.error)
        XCTAssertTrue(message.hasPrefix("Cannot open \(root.path)/missing: "), message)
        XCTAssertGreaterThan(message.count, "Cannot open \(root.path)/missing: ".count + 5, "with a reason: \(message)")

        var state = FileChooserState(directory: root)
        XCTAssertEqual(names(state), ["..", "link", "sub", "dangling.jpg", "photo.jpg"])
        state.handle(.end)
        XCTAssertEqual(state.handle(.enter), .chosen(URL(fileURLWithPath: root.path + "/photo.jpg")))
    }
}
