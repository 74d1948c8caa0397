import Foundation
import TestSupport
import XCTest

/// The editor holds several notes (issue 45), in a real terminal on a `byteclub serve`: a link
/// followed with unsaved edits opens the other note and keeps the edited one open, Back brings
/// it back with its edits and `[+]`, `Alt-1`/`Alt-2` and "Switch note" switch, and quitting with
/// two unsaved notes names both and loses neither. Then the editor's own settings: "Select all"
/// replaced by typing and cut by Ctrl-X, and "Line numbers" and "Soft wrap" changing the screen
/// and coming back after a restart from config.toml.
final class OpenNotesEndToEndTests: XCTestCase {
    var club: TwoMemberClub!

    override func tearDown() {
        club?.close()
    }

    /// The texts of ray's drafts on disk.
    func draftTexts() -> [String] {
        let drafts = club.app(.ray).drafts
        // The drafts themselves (`ID.json`), never a write's temporary file that a kill would leave unrenamed.
        return AppHarness.draftTexts(in: drafts)
    }

    func testALinkFollowedWithUnsavedEditsKeepsTheNoteOpenAndBackBringsItsEditsBack() throws {
        club = try TwoMemberClub(notes: [
            "Trip.md": "Day 1: Lyon\n[[Packing]] comes first\n",
            "Packing.md": "Boots\nRain jacket\n",
        ])
        let ray = try club.launch(.ray)
        ray.waitFor("Packing")
        try club.open("Trip", in: ray, showing: "Day 1: Lyon")

        // An edit, then the link: the other note opens, and Trip stays open (2/2), its draft on disk.
        try ray.type("Hello ")
        ray.waitFor(all: ["Hello Day 1: Lyon", "[+]"])
        try ray.press("Down")
        try ray.press("C-]")
        ray.waitFor("the packing list, with Trip kept open") { screen in
            screen.contains("Title: Packing") && screen.contains("Rain jacket") && screen.contains("2/2") && !screen.contains("[+]")
        }
        XCTAssertFalse(ray.capture().contains("Save (Ctrl-S)"), "never \"save first\"")
        XCTAssertTrue(draftTexts().contains { $0.contains("Hello Day 1: Lyon") }, "the edit is on disk while the note is not on screen")

        // Back: the edits are still there, with [+].
        try ray.press("C-o")
        ray.waitFor("Trip with its edits") { screen in
            screen.contains("Title: Trip") && screen.contains("Hello Day 1: Lyon") && screen.contains("[+]")
        }

        // Both edited: Alt-1 and Alt-2 switch between them, each with its own text.
        try ray.press("C-]")
        ray.waitFor(all: ["Title: Packing", "Rain jacket"])
        try ray.type("Socks ")
        ray.waitFor(all: ["Socks Boots", "2/2 [+]"])
        try ray.press("M-1")
        ray.waitFor("Alt-1: Trip") { $0.contains("Title: Trip") && $0.contains("Hello Day 1: Lyon") && $0.contains("1/2 [+]") }
        try ray.press("M-2")
        ray.waitFor("Alt-2: Packing") { $0.contains("Title: Packing") && $0.contains("Socks Boots") && $0.contains("2/2 [+]") }

        // "Switch note" lists the open notes, [+] on both; its 1 shows Trip.
        try ray.press("M-o")
        ray.waitFor("the switcher") { screen in
            screen.contains("Switch note") && screen.split(separator: "\n").contains { $0.contains("Trip.md") && $0.contains("[+]") }
                && screen.split(separator: "\n").contains { $0.contains("Packing.md") && $0.contains("[+]") }
        }
        try ray.type("1")
        ray.waitFor("the switcher's choice") { !$0.contains("Switch note") && $0.contains("Title: Trip") && $0.contains("Hello Day 1") }

        // Quitting (from the other tab: Shift-Tab on a line that is no list item) names both.
        try ray.press("BTab")
        ray.waitFor("the photos tab") { $0.contains("PanoPhotos") && !$0.contains("Title: Trip") }
        try ray.type("q")
        ray.waitFor(all: ["Quit byteclub?", "2 notes have unsaved changes", "Trip.md", "Packing.md"])
        try ray.type("q")
        ray.waitFor(club.app(.ray).exitLine(0))
        let drafts = draftTexts()
        XCTAssertTrue(drafts.contains { $0.contains("Hello Day 1: Lyon") }, "Trip's draft is kept: \(drafts)")
        XCTAssertTrue(drafts.contains { $0.contains("Socks Boots") }, "Packing's draft is kept: \(drafts)")
        XCTAssertEqual(club.text(ofNote: "Trip.md"), "Day 1: Lyon\n[[Packing]] comes first\n", "nothing was saved behind the user's back")
    }

    func testAChangeToANoteKeptOpenWaitsForItAndMergesWhenItIsBack() throws {
        club = try TwoMemberClub(notes: [
            "Trip.md": "Day 1: Lyon\n[[Packing]] comes first\n",
            "Packing.md": "Boots\nRain jacket\n",
        ])
        let ray = try club.launch(.ray)
        ray.waitFor("Packing")
        try club.open("Trip", in: ray, showing: "Day 1: Lyon")
        try ray.type("Mine: ")
        try ray.press("Down")
        try ray.press("C-]")
        ray.waitFor(all: ["Title: Packing", "Rain jacket", "2/2"])

        // Another member's change to Trip arrives (its row grows to 50 B) while Packing is on
        // screen: Packing is untouched, no banner on it.
        try club.write(note: "Trip.md", "Day 1: Lyon\n[[Packing]] comes first\nDay 2: Annecy\n")
        ray.waitFor("the change in the list") { AppHarness.listed("50 B", in: $0) }
        let packing = ray.capture()
        XCTAssertFalse(packing.contains("Ctrl-R merge now"), packing)
        XCTAssertTrue(packing.contains("Rain jacket") && !packing.contains("Day 2: Annecy"), packing)

        // Trip back: its edits, and the banner the change left; its save merges both (the
        // server keeps no revision of a file written on its disk for Ctrl-R to fetch).
        try ray.press("M-1")
        ray.waitFor(all: ["Title: Trip", "Mine: Day 1: Lyon", "Ctrl-R merge now", "[+]"])
        try ray.press("C-s")
        ray.waitFor(all: ["Merged with another member's changes", "Mine: Day 1: Lyon", "Day 2: Annecy"])
        XCTAssertEqual(club.text(ofNote: "Trip.md"), "Mine: Day 1: Lyon\n[[Packing]] comes first\nDay 2: Annecy\n")
        XCTAssertEqual(club.text(ofNote: "Packing.md"), "Boots\nRain jacket\n")

        // Trip closed, the list on screen: "Switch note" there brings back the note still kept open.
        try ray.press("Escape")
        ray.waitFor("Closed Trip.md")
        try ray.press("M-o")
        ray.waitFor("the switcher from the list") { $0.contains("Switch note") && $0.contains("Packing.md") }
        try ray.press("Enter")
        ray.waitFor("Packing again") { $0.contains("Title: Packing") && $0.contains("Rain jacket") && !$0.contains("Switch note") }
    }

    func testAKillWithTwoEditedNotesOpenLosesNeither() throws {
        club = try TwoMemberClub(notes: [
            "Trip.md": "Day 1: Lyon\n[[Packing]] comes first\n",
            "Packing.md": "Boots\nRain jacket\n",
        ])
        let ray = try club.launch(.ray)
        ray.waitFor("Packing")
        try club.open("Trip", in: ray, showing: "Day 1: Lyon")
        try ray.type("Mine: ")
        try ray.press("Down")
        try ray.press("C-]")
        ray.waitFor(all: ["Title: Packing", "Rain jacket", "2/2"])
        // Typed just now into the note on screen, killed at once: its journal and the kept
        // note's draft are both on disk.
        try ray.type("Socks ")
        ray.waitFor(all: ["Socks Boots", "2/2 [+]"])
        AppHarness.eventually("both drafts on disk") {
            self.draftTexts().contains { $0.contains("Mine: Day 1") } && self.draftTexts().contains { $0.contains("Socks Boots") }
        }
        let pid = try XCTUnwrap(club.app(.ray).appPID())
        XCTAssertEqual(Foundation.kill(pid, SIGKILL), 0)
        ray.waitFor(club.app(.ray).exitLine(137))

        _ = try club.launch(.ray)
        ray.waitFor("2 unsaved drafts kept from last time")
        try club.open("Trip", in: ray, showing: "Mine: Day 1: Lyon")
        ray.waitFor(all: ["Restored your unsaved draft", "[+]"])
    }

    func testSelectAllIsReplacedByTypingAndCutByCtrlX() throws {
        club = try TwoMemberClub(notes: ["Packing.md": "Boots\nRain jacket\nSocks\n"])
        let ray = try club.launch(.ray)
        ray.waitFor("Packing")
        try club.open("Packing", in: ray, showing: "Rain jacket")
        try ray.press("M-s")
        try ray.type("Only a hat")
        ray.waitFor("everything replaced") { $0.contains("Only a hat") && !$0.contains("Rain jacket") && !$0.contains("Boots") }
        try ray.press("C-s")
        ray.waitFor("Saved \"Packing.md\"")
        XCTAssertEqual(club.text(ofNote: "Packing.md"), "Only a hat")

        try ray.press("M-s")
        try ray.press("C-x")
        ray.waitFor("everything cut") { $0.contains("Copied") && !$0.contains("Only a hat") }
        try ray.press("C-v")
        ray.waitFor("pasted back") { $0.contains("Only a hat") && $0.contains("[+]") }
    }

    func testLineNumbersAndSoftWrapChangeTheScreenAndComeBackFromConfigToml() throws {
        let long = (1...24).map { "word\($0)" }.joined(separator: " ") + " TAILMARK"
        club = try TwoMemberClub(notes: ["Long.md": "short line\n\(long)\nlast line\n"])
        let config = club.app(.ray).base.appendingPathComponent("config/byteclub/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("# my own settings\n".utf8).write(to: config)

        let ray = try club.launch(.ray, width: 100, height: 30)
        ray.waitFor("Long")
        try club.open("Long", in: ray, showing: "short line")
        // Wrapped by default: the long line's end is on screen, on a row of its own.
        ray.waitFor("the wrapped tail") { $0.contains("TAILMARK") && !$0.contains("1 short line") }

        try ray.press("M-n")
        ray.waitFor("line numbers") { $0.contains("1 short line") && $0.contains("3 last line") }
        try ray.press("M-w")
        ray.waitFor("no wrap: the tail runs off the right") { $0.contains("Soft wrap off") && !$0.contains("TAILMARK") }
        // The cursor at the long line's end scrolls the view sideways to it.
        try ray.press("Down")
        try ray.press("End")
        ray.waitFor("scrolled sideways to the tail") { $0.contains("TAILMARK") && !$0.contains("word1 ") }
        // Typed where the cursor is shown: the text goes at the end of the long line.
        try ray.type("!")
        ray.waitFor("TAILMARK!")

        let written = AppHarness.text(config) ?? ""
        XCTAssertTrue(written.hasPrefix("# my own settings\n"), written)
        XCTAssertTrue(written.contains("line_numbers = true"), written)
        XCTAssertTrue(written.contains("soft_wrap = false"), written)

        // A restart: both settings come back from config.toml.
        try ray.press("C-z")
        ray.waitFor("the edit undone") { !$0.contains("TAILMARK!") && !$0.contains("[+]") }
        try ray.press("Escape")
        ray.waitFor("Closed Long.md")
        try ray.type("q")
        ray.waitFor(club.app(.ray).exitLine(0))
        _ = try club.launch(.ray)
        ray.waitFor("Long")
        try club.open("Long", in: ray, showing: "short line")
        ray.waitFor("numbered and unwrapped again") { $0.contains("1 short line") && $0.contains("2 word1") && !$0.contains("TAILMARK") }
    }
}
