import ByteClubApp
import Foundation
import TerminalUI
import XCTest

/// The link keys inside the app's editor, against a real club server: help lists "Follow the
/// link", "Back" and "Backlinks" on keys no other editor binding has, and with no link under the
/// cursor or no history the keys say so and change nothing.
@MainActor
final class LinkKeysAppTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    func testLinkKeysAreListedAndCollideWithNoOtherEditorKey() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let harness = Harness(store: club.store())
        await harness.start()
        harness.press(.enter)
        await harness.waitUntil("the note to open") { harness.app.state.note?.isEditing == true }

        let help = harness.compositor.commands()
        var linkKeys: [Key] = []
        for words in ["Follow the link", "Back to the note", "Backlinks"] {
            let command = try XCTUnwrap(help.first { $0.description.hasPrefix(words) }, words)
            linkKeys += command.keys
        }
        XCTAssertEqual(linkKeys, [.ctrl("]"), .ctrl("o"), .alt("l")])
        for key in linkKeys {
            let holders = help.filter { $0.keys.contains(key) }.map(\.description)
            XCTAssertEqual(holders.count, 1, "\(key.label) is bound once in the editor: \(holders)")
        }

        // No link under the cursor, no history: said, and the note stays open and unchanged.
        let text = harness.app.state.note?.editor.body.text
        harness.press(.documentEnd, .ctrl("]"))
        XCTAssertEqual(harness.app.state.message?.text, "No link under the cursor: put it on a [[link]] first")
        harness.press(.ctrl("o"))
        XCTAssertEqual(harness.app.state.message?.text, "No note to go back to: Back follows the links you followed")
        XCTAssertEqual(harness.app.state.note?.editor.body.text, text)
        XCTAssertEqual(harness.app.state.note?.isEditing, true)
    }
}
