import ByteClubApp
import Foundation
import TerminalUI
import TestSupport
import XCTest

/// docs/keys.md is ``KeyReference``'s page, and that page holds every row the help overlay shows
/// in a running app: a key added to a table reaches the page (this test fails until it is
/// re-recorded), and the page cannot miss a screen's keys that help lists.
@MainActor
final class KeyReferenceTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    static var page: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/keys.md")
    }

    func testDocsKeysIsTheKeyTablesAsMarkdown() async throws {
        assertGoldenText(KeyReference.markdown(), at: Self.page)
    }

    /// The words tests and the design find keys by are on the page, under the group help
    /// shows them in.
    func testThePageListsTheKeysByTheirWords() async throws {
        let sections = KeyReference.sections()
        func listed(_ words: String, in group: String) -> Bool {
            sections.first { $0.name == group }?.commands.contains { $0.description.contains(words) } ?? false
        }
        for words in ["Find in the note", "Replace", "Go to line", "Open in $EDITOR", "Toggle the task", "Rendered view", "Insert a photo"] {
            XCTAssertTrue(listed(words, in: "Editor"), words)
        }
        XCTAssertTrue(listed("Follow the link", in: "Links"))
        XCTAssertTrue(listed("Back to the note", in: "Links"))
        XCTAssertTrue(listed("Backlinks", in: "Links"))
        XCTAssertTrue(listed("Open in $EDITOR", in: "Notes"))
        XCTAssertTrue(listed("Show this help", in: "General"))
        // A row once, with all its keys: the editor's "F1" is inside the lists' "? / F1".
        let help = sections.first { $0.name == "General" }?.commands.filter { $0.description == "Show this help" } ?? []
        XCTAssertEqual(help.map(\.keys), [[.char("?"), .f(1)]])
        // Ctrl-C quits (asking) in the lists and copies in the editor; "Quit at once" is never
        // what it does, so help never lists it, and neither does the page.
        XCTAssertFalse(listed("Quit at once", in: "General"))
        let markdown = KeyReference.markdown()
        XCTAssertTrue(markdown.contains("| `Ctrl-]` | Follow the link under the cursor (\\[\\[Title\\]\\], \\[x\\](Note.md)) |"), "Markdown in a description is shown, not linked")
    }

    /// What F1 lists on the screens of a running app is all on the page.
    func testEveryRowHelpShowsInTheAppIsOnThePage() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let harness = Harness(store: club.store())
        await harness.start()
        let sections = KeyReference.sections()
        func assertOnPage(_ screen: String, file: StaticString = #filePath, line: UInt = #line) {
            let help = harness.compositor.commands()
            XCTAssertFalse(help.isEmpty, screen, file: file, line: line)
            for command in help {
                let rows = sections.first { $0.name == command.group }?.commands ?? []
                let covered = rows.contains { $0 == command || ($0.description == command.description && Set(command.keys).isSubset(of: $0.keys) && !command.keys.isEmpty) }
                XCTAssertTrue(covered, "\(screen): \"\(command.keyLabel)  \(command.description)\" (\(command.group)) is not on the page", file: file, line: line)
            }
        }

        assertOnPage("the Notes list")
        harness.press(.char("/"))
        assertOnPage("the Notes list's filter")
        harness.press(.escape, .char("T"))
        assertOnPage("the Transfers panel")
        harness.press(.char("T"), .char("2"))
        assertOnPage("the PanoPhotos list")
        harness.press(.char("1"), .enter)
        await harness.waitUntil("the note to open") { harness.app.state.note?.isEditing == true }
        assertOnPage("the editor")
        harness.press(.ctrl("f"))
        assertOnPage("the editor's find bar")
    }
}
