import ByteClubApp
import Foundation
import TerminalUI
import XCTest

/// Help lists each key once, with what it does where the user is (issue 43): in the editor's
/// body Shift-Tab is "Outdent" on an indented list item and "Previous tab" elsewhere, never
/// both; in the Title, Tab and Enter go to the body; over the rendered view none of the editor's
/// keys are listed (the view keeps them); in the list, the list's keys.
@MainActor
final class HelpRowsAppTests: XCTestCase {
    var club: MembersClub?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    func testEachKeyIsListedOnceWithWhatItDoesWhereTheCursorIs() async throws {
        let club = try await MembersClub(notes: ["Plans.md": "Trip\n    - boots\nend\n"])
        self.club = club
        let harness = Harness(store: club.store(token: club.annToken))
        await harness.start()
        defer { harness.app.stopLiveUpdates() }

        func rows(_ key: Key) -> [String] { harness.compositor.commands().filter { $0.keys.contains(key) }.map(\.description) }
        func assertEachKeyOnce(_ place: String, file: StaticString = #filePath, line: UInt = #line) {
            let help = harness.compositor.commands()
            for key in Set(help.flatMap(\.keys)) {
                let holders = help.filter { $0.keys.contains(key) }.map(\.description)
                XCTAssertEqual(holders.count, 1, "\(place): \(key.label) is listed \(holders.count) times: \(holders)", file: file, line: line)
            }
        }

        assertEachKeyOnce("the list")
        XCTAssertEqual(rows(.backTab), ["Previous tab"])
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }

        // The body, on a line that is no list item: Shift-Tab goes to the other tab.
        XCTAssertEqual(rows(.backTab), ["Previous tab"])
        XCTAssertEqual(rows(.tab), ["Indent a list item (else four spaces)"])
        assertEachKeyOnce("the body")
        // On an indented list item it outdents, and help says only that.
        harness.press(.down)
        XCTAssertEqual(rows(.backTab), ["Outdent a list item"])
        assertEachKeyOnce("a list item")
        harness.press(.backTab)
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "Trip\n- boots\nend\n")
        XCTAssertEqual(harness.app.state.tab, .notes, "Shift-Tab outdented, as help said")
        XCTAssertEqual(rows(.backTab), ["Previous tab"], "nothing left to outdent")

        // The Title: Tab and Enter go to the body; Shift-Tab is the tabs'.
        harness.press(.ctrl("t"))
        XCTAssertEqual(rows(.tab), ["Title: go to the body"])
        XCTAssertEqual(rows(.enter), ["Title: go to the body"])
        XCTAssertEqual(rows(.backTab), ["Previous tab"])
        assertEachKeyOnce("the title")

        // The rendered view keeps every key but a few: none of the editor's rows are listed.
        harness.press(.enter, .alt("v"))
        XCTAssertNotNil(harness.app.state.noteView)
        let view = harness.compositor.commands()
        for words in ["Save the note", "Undo", "Indent a list item", "Close the editor", "Find in the note"] {
            XCTAssertFalse(view.contains { $0.description.hasPrefix(words) }, "\(words): \(view.map(\.description))")
        }
        XCTAssertEqual(rows(.backTab), ["Previous link or photo"])
        XCTAssertEqual(rows(.ctrl("o")), ["Back to the note the last followed link left"])
        XCTAssertTrue(view.contains { $0.keys == [.f(1)] && $0.description == "Show this help" })
        assertEachKeyOnce("the rendered view")
    }
}
