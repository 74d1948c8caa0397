import Foundation
import TestSupport
import XCTest

/// Tags and pins in real terminals, seen live by the whole club: ray pins and tags a note,
/// and ann's list shows the pin first and the tags on its row with no key pressed there;
/// `/#trip` filters ann's list by the tag, and `byteclub ls --tag trip` lists the note.
final class TagsEndToEndTests: XCTestCase {
    var club: TwoMemberClub!
    /// The embedded club's app, for the tests that need one member only.
    var app: AppHarness?
    private var secondName = ""

    override func tearDown() {
        club?.close()
        app?.close()
    }

    /// The line of `screen` that lists `title`, outside the status bar.
    static func row(_ title: String, in screen: String) -> (index: Int, text: String)? {
        for (index, line) in screen.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.contains(title) && !line.contains("? help") {
            return (index, String(line))
        }
        return nil
    }

    func testAPinAndTagsMadeByOneMemberAppearInTheOthersListWithoutAKey() throws {
        club = try TwoMemberClub(notes: ["Plans.txt": "Meet on Friday\n", "Older.txt": "Last year's trip\n"])
        let (ray, ann) = try club.launchBoth(waitingFor: "Older")
        ann.waitFor("Plans")
        // Whichever is second (newest first, then by name) is pinned and comes first.
        let before = ann.capture()
        let (first, second) = (Self.row("Plans", in: before)?.index ?? 0) < (Self.row("Older", in: before)?.index ?? 0)
            ? ("Plans", "Older") : ("Older", "Plans")
        secondName = second + ".txt"

        try ray.type("j")
        try ray.type("*")
        ray.waitFor("Pinned \"\(second)\"")
        try ray.type("#")
        ray.waitFor("Tags of \"\(second)\"")
        // A bad name is refused with a clear message; the dialog keeps what was typed.
        try ray.type("bad-name")
        try ray.press("Enter")
        ray.waitFor("'-' is not allowed")
        try ray.press("C-u")
        try ray.type("Trip boat")
        try ray.press("Enter")
        ray.waitFor("Tags of \"\(second)\" saved")
        ray.waitFor("⚑ \(second)  #trip #boat")

        // ann presses nothing: the journal brings the change, the app asks for the tags.
        let screen = ann.waitFor("the pin and the tags in ann's list") { screen in
            guard let pinned = Self.row(second, in: screen), let other = Self.row(first, in: screen) else { return false }
            return pinned.text.contains("⚑ \(second)  #trip #boat") && pinned.index < other.index
        }
        XCTAssertTrue(AppHarness.listed(first, in: screen), screen)

        // `/#trip` filters by the tag.
        try ann.type("/#trip")
        ann.waitFor("\(first) gone from the filtered list") { screen in
            Self.row(second, in: screen) != nil && !AppHarness.listed(first, in: screen)
        }
        try ann.press("Escape")

        // The CLI sees the same tags.
        let listing = try cli(["ls", "/byteclub", "--tag", "trip"])
        XCTAssertEqual(listing.status, 0, listing.error)
        XCTAssertTrue(listing.output.contains(secondName), listing.output)
        XCTAssertEqual(listing.output.split(separator: "\n").count, 1, listing.output)
        let tags = try cli(["tag", "/byteclub/" + secondName])
        XCTAssertEqual(tags.output, "pinned\ntrip\nboat\n")
    }

    /// Issue 53 §10: a tag and a pin added from the shell while the app is open on the embedded
    /// club show on the note's row within a few seconds, no key pressed; a tag removed there goes
    /// from the row the same way. (`byteclub tag` runs a server of its own over the folder: the
    /// app's server takes in what that one journalled, and reads the tags it wrote.)
    func testATagAddedFromTheShellShowsInTheOpenAppWithoutAKey() throws {
        let app = try AppHarness()
        self.app = app
        let tmux = try app.launch()
        let first = tmux.waitFor("Welcome to Byte Club")
        XCTAssertFalse(first.contains("#trip"), first)

        let tagged = try app.cli(["tag", "Welcome to Byte Club", "+trip", "+pinned", "--data-dir", app.club.path])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        XCTAssertEqual(Set(tagged.stdout.split(separator: "\n").map(String.init)), ["trip", "pinned"])
        tmux.waitFor("the pin and the tag on the row, no key pressed", timeout: 10) { screen in
            Self.row("Welcome to Byte Club", in: screen)?.text.contains("⚑ Welcome to Byte Club  #trip") == true
        }

        let untagged = try app.cli(["tag", "Welcome to Byte Club", "-trip", "--data-dir", app.club.path])
        XCTAssertEqual(untagged.status, 0, untagged.stderr)
        tmux.waitFor("the tag gone from the row, the pin kept", timeout: 10) { screen in
            guard let row = Self.row("Welcome to Byte Club", in: screen)?.text else { return false }
            return row.contains("⚑ Welcome to Byte Club") && !row.contains("#trip")
        }
    }

    /// Runs `byteclub ARGS --server URL --token ray's` to its end.
    func cli(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = try AppHarness.binary
        process.arguments = arguments + ["--server", club.url, "--token", club.token(of: .ray)]
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
