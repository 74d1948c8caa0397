import ByteClubApp
import Foundation
import Remote
import Synchronization
import TerminalUI
import XCTest

/// A save whose answer comes after the editor stopped waiting for it (``OutboxRunner``'s 2 s
/// grace: the editor went on as queued) and is a conflict the sender could not merge. The open
/// editor, still holding the text it sent, asks as an answered save does: the merge view. It
/// used to leave only "… open it to merge" in the status bar, over a note that was open (a
/// fresh-clone run under load met it: the conflict test had to press Ctrl-S again).
@MainActor
final class LateConflictAppTests: XCTestCase {
    static let base = "Day 1: Lyon\nDay 2: rest\n"
    private var club: MembersClub?
    private var state: URL?

    override func tearDown() async throws {
        await club?.close()
        if let state { try? FileManager.default.removeItem(at: state) }
    }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    /// Ann's app with Plans.txt open and " (ann)" typed on day 2; ray has since changed day 2 on
    /// the server; ann's next upload waits at the gate until the test lets it go.
    private func annWithAConflictToCome(typingAfterTheSave: Bool) async throws -> (Harness, UploadGate) {
        let club = try await MembersClub(notes: ["Plans.txt": Self.base])
        self.club = club
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-late-conflict-\(UUID().uuidString)")
        self.state = state
        let gate = UploadGate()
        gate.holdNumber.withLock { $0 = 1 }
        gate.holding.withLock { $0 = true }
        let harness = Harness(store: GatedStore(base: club.store(token: club.annToken), gate: gate),
                              drafts: DraftStore(directory: state.appendingPathComponent("drafts"))) { configuration in
            configuration.outbox = Outbox(directory: state.appendingPathComponent("outbox"))
        }
        await harness.start()
        try await harness.open(note: "Plans.txt")
        harness.press(.down, .end)
        type(harness, " (ann)")
        let ray = club.store(token: club.rayToken)
        let current = try await ray.metadata("/byteclub/Plans.txt")
        _ = try await ray.upload(data: Data("Day 1: Lyon\nDay 2: sail to Sète\n".utf8), to: "/byteclub/Plans.txt",
                                 mode: .update(rev: current.rev ?? ""), autorename: false)

        harness.press(.ctrl("s"))
        await harness.waitUntil("ann's upload at the gate") { gate.held.withLock { $0 } }
        await harness.waitUntil("the editor done waiting: the save waits in the outbox") {
            harness.app.state.message?.text.hasPrefix("Saved \"Plans.txt\" in the outbox") == true
        }
        if typingAfterTheSave { type(harness, "!") }
        gate.holding.withLock { $0 = false }
        await harness.waitUntil("the sender's answer") { harness.app.state.offline.waiting == 0 }
        return (harness, gate)
    }

    func testAConflictAnsweredAfterTheEditorStoppedWaitingOpensTheMergeView() async throws {
        let (harness, _) = try await annWithAConflictToCome(typingAfterTheSave: false)
        await harness.waitUntil("the merge view, at once") { harness.app.state.note?.merge != nil }
        let merge = try XCTUnwrap(harness.app.state.note?.merge)
        XCTAssertEqual(merge.conflictCount, 1, "day 2, changed by both")
        let plans = try XCTUnwrap(club).base.appendingPathComponent("club/byteclub/Plans.txt")
        XCTAssertEqual(try String(contentsOf: plans, encoding: .utf8), "Day 1: Lyon\nDay 2: sail to Sète\n", "nothing of ann's saved over ray's")
    }

    /// Typed on since: that text is newer than what was sent, so nothing is asked unbidden; the
    /// next Ctrl-S merges, as the status bar says.
    func testTypedOnSinceTheConflictWaitsForTheNextSave() async throws {
        let (harness, _) = try await annWithAConflictToCome(typingAfterTheSave: true)
        await harness.waitUntil("the conflict said") { harness.app.state.message?.text.contains("merge") == true }
        XCTAssertNil(harness.app.state.note?.merge)
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "Day 1: Lyon\nDay 2: rest (ann)!\n")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the merge view after Ctrl-S") { harness.app.state.note?.merge != nil }
    }
}
