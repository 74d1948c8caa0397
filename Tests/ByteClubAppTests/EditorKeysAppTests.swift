import ByteClubApp
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// The editor's keys inside the app, against a real club server: the clipboard goes to the
/// terminal and to the register every note pastes from, Ctrl-C never quits the editor but asks
/// as `q` does elsewhere, keys typed while the screen is too small are dropped, help in the
/// editor lists only keys that work there, and Ctrl-F in the find bar opens the club search.
@MainActor
final class EditorKeysAppTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    /// A started app whose clipboard writes land in `copied`.
    private func harness(_ copied: @escaping @MainActor @Sendable (String) -> Void = { _ in }) async throws -> Harness {
        let club = try await SampleClubServer()
        self.club = club
        let harness = Harness(store: club.store()) { $0.clipboard = copied }
        await harness.start()
        return harness
    }

    private func openFirstNote(_ harness: Harness) async {
        harness.press(.enter)
        await harness.waitUntil("the note to open") { harness.app.state.note?.isEditing == true }
    }

    func testCopyGoesToTheTerminalAndTheRegisterAndCtrlCNeverQuitsTheEditor() async throws {
        let clipboard = Clipboard()
        let harness = try await harness { clipboard.texts.append($0) }
        await openFirstNote(harness)
        harness.press(.char("Q"))
        XCTAssertTrue(harness.app.state.hasUnsavedEdits)
        harness.press(.shifted(.right), .shifted(.right))
        harness.press(.ctrl("c"))
        XCTAssertNil(harness.quitStatus, "Ctrl-C copies in the editor")
        XCTAssertEqual(clipboard.texts.last, harness.app.state.note.map { String($0.editor.body.text.dropFirst().prefix(2)) })
        XCTAssertEqual(harness.app.state.clipboard, clipboard.texts.last)
        harness.press(.documentEnd, .ctrl("v"))
        XCTAssertTrue(harness.app.state.note?.editor.body.text.hasSuffix(clipboard.texts.last ?? "-") ?? false)

        // Help in the editor: Ctrl-C is Copy, not "Quit at once"; `?` is typed there, so F1 only.
        let help = harness.compositor.commands()
        XCTAssertTrue(help.contains { $0.description.hasPrefix("Copy") && $0.keys == [.ctrl("c")] })
        XCTAssertFalse(help.contains { $0.description == "Quit at once" })
        XCTAssertTrue(help.contains { $0.description == "Show this help" && $0.keys == [.f(1)] })
        for words in ["Find in the note", "Replace", "Go to line", "Toggle the task"] {
            XCTAssertTrue(help.contains { $0.description.contains(words) }, words)
        }
    }

    func testCtrlCOutsideTheEditorQuitsAsQDoes() async throws {
        let harness = try await harness()
        harness.press(.ctrl("c"))
        XCTAssertEqual(harness.quitStatus, 0)
    }

    func testKeysTypedWhileTheScreenIsTooSmallAreDropped() async throws {
        let harness = try await harness()
        await openFirstNote(harness)
        let before = harness.app.state.note?.editor.body.text
        _ = harness.render(width: 20, height: 5)
        harness.press(.char("z"), .enter, .backspace, .ctrl("v"))
        XCTAssertEqual(harness.app.state.note?.editor.body.text, before)
        XCTAssertFalse(harness.app.state.hasUnsavedEdits)
        _ = harness.render(width: 120, height: 36)
        harness.press(.char("z"))
        XCTAssertNotEqual(harness.app.state.note?.editor.body.text, before)
    }

    func testCtrlFInTheFindBarSearchesEveryNote() async throws {
        let harness = try await harness()
        await openFirstNote(harness)
        harness.press(.ctrl("f"), .char("c"), .char("l"), .char("u"), .char("b"))
        XCTAssertNotNil(harness.app.state.note?.editor.bar)
        harness.press(.ctrl("f"))
        XCTAssertEqual(harness.app.state.search?.query.text, "club")
    }
}

/// What the app wrote to the clipboard, in order.
@MainActor
private final class Clipboard {
    var texts: [String] = []
}
