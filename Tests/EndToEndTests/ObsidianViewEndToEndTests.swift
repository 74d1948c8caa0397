import Foundation
import TestSupport
import XCTest

/// Obsidian's Markdown in the rendered view, in a real terminal (issue 55): a callout drawn as
/// a box; another note's section embedded inline; a heading link and a block link opened at
/// their place (in the view and in the editor) and `Ctrl-O` back.
final class ObsidianViewEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var notes: URL { app.club.appendingPathComponent("byteclub") }

    /// A note long enough that its second day and its block are screens below its top.
    static let trip = (["# Trip"] + (1...40).map { "filler \($0)" } + ["## Day 2", "Swim to the rocks and back."]
        + (41...80).map { "filler \($0)" } + ["A block far down. ^swim", "## Day 3"] + (81...120).map { "filler \($0)" }).joined(separator: "\n\n")

    /// A short note of days, one of whose sections is embedded.
    static let days = "# Days\n\nfiller 1\n\n## Day 2\n\nSwim to the rocks and back.\n\n## Day 3\n\nfiller 3\n"

    /// Whether `screen` shows `text` not followed by a digit ("filler 1" is not "filler 12").
    static func shows(_ screen: String, _ text: String) -> Bool {
        var rest = Substring(screen)
        while let range = rest.range(of: text) {
            if range.upperBound == rest.endIndex || !rest[range.upperBound].isNumber { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }

    /// Writes the notes, refreshes, filters to `name` and presses `v`.
    func openRendered(_ tmux: TmuxSession, name: String, notes written: [String: String]) throws {
        tmux.waitFor("Welcome to Byte Club")
        for (title, text) in written {
            try text.write(to: notes.appendingPathComponent(title + ".md"), atomically: true, encoding: .utf8)
        }
        try tmux.type("r")
        tmux.waitFor(name)
        try tmux.type("/")
        try tmux.type(name)
        try tmux.press("Enter")
        tmux.waitFor("the filter showing only \(name)") { screen in
            screen.split(separator: "\n").contains { $0.contains("/ \(name)") && $0.contains("1 of") }
        }
        try tmux.type("v")
        tmux.waitFor("Rendered view")
    }

    func testACalloutIsABoxAndAnEmbeddedSectionIsDrawnInline() throws {
        let tmux = try app.launch()
        let showcase = """
            > [!warning] Mind the tide
            > Back before **six**.

            > [!faq]- Folded question
            > Not shown.

            Day two, as planned:

            ![[Days#Day 2]]

            The end.
            """
        try openRendered(tmux, name: "Showcase", notes: ["Showcase": showcase, "Days": Self.days])
        let screen = tmux.waitFor(all: ["╭─ Warning · Mind the tide", "│ Back before six.", "▸ Faq · Folded question",
                                        "┌─ ⧉ Days#Day 2", "│ Swim to the rocks and back.", "The end."])
        XCTAssertFalse(screen.contains("[!warning]"), "no callout source in the view: \(screen)")
        XCTAssertFalse(screen.contains("Not shown."), "a folded callout shows its title only: \(screen)")
        XCTAssertFalse(Self.shows(screen, "filler 1") || Self.shows(screen, "filler 3"), "only the section is embedded: \(screen)")
        let rows = screen.split(separator: "\n")
        let top = try XCTUnwrap(rows.firstIndex { $0.contains("╭─ Warning · Mind the tide") })
        XCTAssertTrue(rows[top + 2].contains("╰───"), "the box closes under its body: \(screen)")
        XCTAssertTrue(rows[top + 1].trimmingCharacters(in: .whitespaces).hasSuffix("│"), "the box has its right edge: \(screen)")
    }

    func testHeadingAndBlockLinksOpenAtTheirPlaceAndCtrlOGoesBack() throws {
        let tmux = try app.launch()
        try openRendered(tmux, name: "Pointers", notes: ["Pointers": "Go to [[Trip#Day 2]] or [[Trip#^swim]].", "Trip": Self.trip])
        tmux.waitFor("Trip › Day 2")

        // The view: Tab picks the heading link, Enter opens Trip with Day 2 at the top.
        try tmux.press("Tab")
        try tmux.press("Enter")
        let atDay = tmux.waitFor("Trip at Day 2") { $0.contains("Trip.md") && $0.contains("Day 2") && $0.contains("Swim to the rocks") }
        XCTAssertFalse(Self.shows(atDay, "filler 40") || Self.shows(atDay, "filler 1"), "opened at the heading, not the top: \(atDay)")
        try tmux.press("C-o")
        tmux.waitFor("back in Pointers") { $0.contains("Pointers.md") && $0.contains("Trip › Day 2") && !$0.contains("Swim to the rocks") }

        // The block link: the next link (Back kept the one picked), opened at its paragraph.
        try tmux.press("Tab")
        try tmux.press("Enter")
        let atBlock = tmux.waitFor("Trip at the block") { $0.contains("Trip.md") && $0.contains("A block far down.") }
        XCTAssertFalse(atBlock.contains("^swim"), "the block id is not drawn: \(atBlock)")
        XCTAssertFalse(atBlock.contains("Swim to the rocks"), "opened at the block, not the heading: \(atBlock)")
        try tmux.press("C-o")
        tmux.waitFor("back in Pointers again") { $0.contains("Pointers.md") && $0.contains("Trip › Day 2") }

        // The editor: its follow key (Ctrl-]) on the heading link opens Trip's source at Day 2.
        try tmux.type("e")
        tmux.waitFor("Go to [[Trip#Day 2]]")
        try tmux.press("Right", "Right", "Right", "Right", "Right", "Right", "Right")
        try tmux.press("C-]")
        let edited = tmux.waitFor("the editor at Day 2") { $0.contains("## Day 2") && !$0.contains("Go to [[Trip") }
        XCTAssertFalse(Self.shows(edited, "filler 3"), "the editor scrolled to the heading: \(edited)")
        try tmux.press("C-o")
        tmux.waitFor("Go to [[Trip#Day 2]]")
    }

    func testALinkToAHeadingOfTheSameNoteMovesThereAndCtrlOComesBack() throws {
        let tmux = try app.launch()
        let within = (["Jump to [[#Far away]] first."] + (1...60).map { "filler \($0)" } + ["## Far away", "The far end."]).joined(separator: "\n\n")
        try openRendered(tmux, name: "Within", notes: ["Within": within])
        tmux.waitFor("Jump to Far away first.")
        try tmux.press("Tab")
        try tmux.press("Enter")
        let far = tmux.waitFor("the view at the heading") { $0.contains("The far end.") && !$0.contains("Jump to Far away") }
        XCTAssertTrue(far.contains("Within.md"), far)
        try tmux.press("C-o")
        tmux.waitFor("the view at the top again") { $0.contains("Jump to Far away first.") && !$0.contains("The far end.") }

        // In the editor, Ctrl-] on the link does the same.
        try tmux.type("e")
        tmux.waitFor("Jump to [[#Far away]] first.")
        try tmux.press("Right", "Right", "Right", "Right", "Right", "Right", "Right", "Right", "Right")
        try tmux.press("C-]")
        tmux.waitFor("the editor at the heading") { $0.contains("## Far away") && !$0.contains("Jump to [[#Far away]]") }
        try tmux.press("C-o")
        tmux.waitFor("the editor at the top again") { $0.contains("Jump to [[#Far away]] first.") && !$0.contains("## Far away") }
    }
}
