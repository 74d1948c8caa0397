import ByteClubApp
import ClubServer
import Foundation
import NoteMerge
import Remote
import Synchronization
import TerminalUI
import TestSupport
import XCTest

/// Three-way merges in the app, against a real club server with two members over HTTP: ann
/// edits a note in the app while ray commits to it; her save (or Ctrl-R) merges.
@MainActor
final class MergeTests: XCTestCase {
    static let base = "Day 1: Lyon\nDay 2: rest\nDay 3: home\n"
    var club: MembersClub?
    var draftsDirectory: URL!

    override func setUp() async throws {
        draftsDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-merge-drafts-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        await club?.close()
        club = nil
        try? FileManager.default.removeItem(at: draftsDirectory)
    }

    var plans: URL { club!.base.appendingPathComponent("club/byteclub/Plans.txt") }
    var drafts: [Draft] { DraftStore(directory: draftsDirectory).all() }

    /// Ann's app with Plans.txt open (without live updates, unless `live`), and ray's store.
    private func annEditing(live: Bool = false, gate: UploadGate = UploadGate()) async throws -> (Harness, any RemoteStore) {
        let club = try await MembersClub(notes: ["Plans.txt": Self.base])
        self.club = club
        // Ray commits once through the API first, so the opened rev's text is in the history.
        let ray = club.store(token: club.rayToken)
        _ = try await ray.upload(data: Data(Self.base.utf8), to: "/byteclub/Plans.txt", mode: .overwrite, autorename: false)
        let store: any RemoteStore = live ? club.store(token: club.annToken) : GatedStore(base: club.store(token: club.annToken), gate: gate)
        let harness = Harness(store: store, drafts: DraftStore(directory: draftsDirectory))
        await harness.start()
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }
        return (harness, ray)
    }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    /// Ray's commit over whatever the note is now.
    /// ann's " (ann)" and ray's "Annecy" on the same line, Ctrl-S, and the merge view up.
    private func annInTheMergeView(gate: UploadGate = UploadGate()) async throws -> Harness {
        let (harness, ray) = try await annEditing(gate: gate)
        harness.press(.down, .end)
        type(harness, " (ann)")
        try await rayWrites("Day 1: Lyon\nDay 2: Annecy\nDay 3: home\n", ray)
        harness.press(.ctrl("s"))
        await harness.waitUntil("the merge view") { harness.app.state.note?.merge != nil }
        return harness
    }

    private func rayWrites(_ text: String, _ ray: any RemoteStore) async throws {
        _ = try await ray.upload(data: Data(text.utf8), to: "/byteclub/Plans.txt", mode: .overwrite, autorename: false)
    }

    private func text() -> String? { try? String(contentsOf: plans, encoding: .utf8) }

    func testEditsToDifferentLinesAreMergedAndSavedWithoutAsking() async throws {
        let (harness, ray) = try await annEditing()
        harness.press(.down, .down, .end)
        type(harness, " (ann)")
        try await rayWrites("Day 1: Paris\nDay 2: rest\nDay 3: home\n", ray)
        harness.press(.ctrl("s"))
        await harness.waitUntil("the merge saved") { harness.app.state.message?.text == "Merged with ray's changes" }
        XCTAssertEqual(text(), "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)\n")
        XCTAssertFalse(harness.compositor.top is DialogLayer, "nothing was asked")
        let session = try XCTUnwrap(harness.app.state.note)
        XCTAssertEqual(session.editor.body.text, "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)\n", "the editor shows the merge")
        XCTAssertFalse(session.isModified)
        XCTAssertNil(session.merge)
        XCTAssertEqual(session.editor.body.cursor.line, 2, "the cursor stays on its line")
        XCTAssertEqual(drafts, [], "the draft goes once the server confirmed")

        // The next save updates the merged rev; Ctrl-Z takes the merge back in the editor.
        type(harness, "!")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the next save") { harness.app.state.message?.text == "Saved \"Plans.txt\"" }
        XCTAssertEqual(text(), "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)!\n")
        harness.press(.ctrl("z"), .ctrl("z"))
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "Day 1: Lyon\nDay 2: rest\nDay 3: home (ann)\n")
    }

    func testOverlappingEditsOpenTheMergeViewAndEachChoiceSaves() async throws {
        let expected: [(Key, String)] = [
            (.char("m"), "Day 1: Lyon\nDay 2: rest (ann)\nDay 3: home\n"),
            (.char("t"), "Day 1: Lyon\nDay 2: Annecy\nDay 3: home\n"),
            (.char("b"), "Day 1: Lyon\nDay 2: rest (ann)\nDay 2: Annecy\nDay 3: home\n"),
        ]
        for (index, (key, result)) in expected.enumerated() {
            let (harness, ray) = try await annEditing()
            harness.press(.down, .end)
            type(harness, " (ann)")
            try await rayWrites("Day 1: Lyon\nDay 2: Annecy\nDay 3: home\n", ray)
            harness.press(.ctrl("s"))
            await harness.waitUntil("the merge view") { harness.app.state.note?.merge != nil }
            let merge = try XCTUnwrap(harness.app.state.note?.merge)
            XCTAssertEqual(merge.conflictCount, 1)
            XCTAssertEqual(merge.who, "ray")
            XCTAssertEqual(harness.app.state.message?.text, "1 conflict with ray's changes: m mine · t theirs · b both")
            if index == 0 {
                for (width, height) in ShellSnapshotTests.sizes {
                    assertSnapshot(harness.render(width: width, height: height), named: "merge-\(width)x\(height)")
                }
                let listed = Set(harness.compositor.commands().map(\.description))
                for command in MergeViewKeys.descriptions { XCTAssertTrue(listed.contains(command), "help misses \(command)") }
                // Ctrl-C here asks before quitting, as `q` does in the lists.
                XCTAssertTrue(harness.compositor.commands().contains { $0.keys == [.ctrl("c")] && $0.description.hasPrefix("Quit (asks first") })
                XCTAssertFalse(listed.contains("Quit at once"), "Ctrl-C in the merge view asks first")
                // Tiny terminals, and scrolling past either end, draw without trouble.
                harness.press(.end, .end, .end, .pageDown, .home, .up, .pageUp, .down)
                for (width, height) in [(1, 1), (12, 5), (40, 10)] { _ = harness.render(width: width, height: height) }
                harness.press(.home)
                XCTAssertNotNil(harness.render(width: 80, height: 24).position(of: "▶ Conflict 1 of 1"))
            }
            // Until the server has the merge, the text and the draft are ann's own.
            XCTAssertEqual(harness.app.state.note?.editor.body.text, "Day 1: Lyon\nDay 2: rest (ann)\nDay 3: home\n")
            XCTAssertEqual(drafts.first?.body, "Day 1: Lyon\nDay 2: rest (ann)\nDay 3: home\n")
            XCTAssertEqual(drafts.first?.baseRev, harness.app.state.note?.baseRev)
            type(harness, "xyz")  // not keys of the merge view: nothing happens
            XCTAssertEqual(harness.app.state.note?.editor.body.text, "Day 1: Lyon\nDay 2: rest (ann)\nDay 3: home\n")
            harness.press(key)
            await harness.waitUntil("the merge saved") { harness.app.state.message?.text == "Merged with ray's changes" }
            XCTAssertEqual(text(), result)
            XCTAssertEqual(harness.app.state.note?.editor.body.text, result)
            XCTAssertNil(harness.app.state.note?.merge)
            XCTAssertEqual(drafts, [])
            // The merge is the server's text: the journal on the way out (and a journal write
            // still scheduled by the typing) leaves no draft of it behind.
            XCTAssertTrue(harness.app.journal())
            XCTAssertEqual(drafts, [], "no draft of the saved merge")
            await club?.close()
            club = nil
        }
    }

    func testTheMergeViewsOtherWaysOutKeepTheText() async throws {
        let (harness, ray) = try await annEditing()
        harness.press(.down, .end)
        type(harness, " (ann)")
        let mine = "Day 1: Lyon\nDay 2: rest (ann)\nDay 3: home\n"
        try await rayWrites("Day 1: Lyon\nDay 2: Annecy\nDay 3: home\n", ray)
        harness.press(.ctrl("s"))
        await harness.waitUntil("the merge view") { harness.app.state.note?.merge != nil }

        // Cancel: back to her text, nothing saved, the draft kept over the old base.
        harness.press(.escape)
        XCTAssertNil(harness.app.state.note?.merge)
        XCTAssertEqual(harness.app.state.note?.editor.body.text, mine)
        XCTAssertEqual(harness.app.state.message?.text, "Not merged; your text is kept as a draft · Ctrl-R merges again")
        XCTAssertEqual(text(), "Day 1: Lyon\nDay 2: Annecy\nDay 3: home\n")
        XCTAssertEqual(drafts.map(\.body), [mine])

        // Ctrl-R merges again; Overwrite puts hers over his.
        harness.press(.ctrl("r"))
        await harness.waitUntil("the merge view again") { harness.app.state.note?.merge != nil }
        harness.press(.char("o"))
        await harness.waitUntil("the overwrite") { harness.app.state.message?.text == "Saved \"Plans.txt\"" }
        XCTAssertEqual(text(), mine)

        // Reload theirs: his text in the editor, hers a draft of its own.
        harness.press(.documentStart, .down, .end)
        type(harness, " again")
        try await rayWrites("Day 1: Lyon\nDay 2: rest (ray)\nDay 3: home\n", ray)
        harness.press(.ctrl("r"))
        await harness.waitUntil("the merge view for reload") { harness.app.state.note?.merge != nil }
        harness.press(.char("?"))
        XCTAssertTrue(harness.compositor.top is HelpOverlay, "? still opens help")
        harness.press(.escape)
        harness.press(.char("r"))
        await harness.waitUntil("theirs reloaded") { harness.app.state.note?.editor.body.text.contains("rest (ray)") ?? false }
        XCTAssertTrue(drafts.contains { $0.body.contains(" again") && $0.title.hasSuffix("(my version)") })

        // Save as copy: hers beside his.
        harness.press(.documentStart, .down, .end)
        type(harness, "!")
        try await rayWrites("Day 1: Lyon\nDay 2: rest (ray, twice)\nDay 3: home\n", ray)
        harness.press(.ctrl("r"))
        await harness.waitUntil("the merge view for the copy") { harness.app.state.note?.merge != nil }
        harness.press(.char("s"))
        await harness.waitUntil("the copy") { harness.app.state.message?.text.hasPrefix("Saved \"Plans (conflicted copy of") == true }
        XCTAssertEqual(text(), "Day 1: Lyon\nDay 2: rest (ray, twice)\nDay 3: home\n")
    }

    func testAFailedMergedSaveKeepsTheDraftAndCtrlSRetries() async throws {
        let gate = UploadGate()
        let harness = try await annInTheMergeView(gate: gate)
        gate.failing.withLock { $0 = true }
        harness.press(.char("b"))
        await harness.waitUntil("the failure") { harness.app.state.message?.kind == .error }
        XCTAssertEqual(harness.app.state.message?.text.hasPrefix("Could not save the merge with ray's changes:"), true)
        XCTAssertNotNil(harness.app.state.note?.merge, "the merge view keeps the choices")
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "Day 1: Lyon\nDay 2: rest (ann)\nDay 3: home\n")
        XCTAssertEqual(drafts.map(\.body), ["Day 1: Lyon\nDay 2: rest (ann)\nDay 3: home\n"])
        XCTAssertEqual(text(), "Day 1: Lyon\nDay 2: Annecy\nDay 3: home\n")

        gate.failing.withLock { $0 = false }
        harness.press(.ctrl("s"))
        await harness.waitUntil("the retry") { harness.app.state.message?.text == "Merged with ray's changes" }
        XCTAssertEqual(text(), "Day 1: Lyon\nDay 2: rest (ann)\nDay 2: Annecy\nDay 3: home\n")
        XCTAssertEqual(drafts, [])
    }

    func testCtrlRAfterTheBannerMergesAndClearsIt() async throws {
        let (harness, ray) = try await annEditing(live: true)
        harness.press(.down, .down, .end)
        type(harness, " (ann)")
        try await rayWrites("Day 1: Paris\nDay 2: rest\nDay 3: home\n", ray)
        await harness.waitUntil("the banner") { harness.app.state.note?.remoteChange != nil }
        harness.press(.ctrl("r"))
        await harness.waitUntil("the merge") { harness.app.state.message?.text == "Merged with ray's changes" }
        XCTAssertEqual(text(), "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)\n")
        XCTAssertNil(harness.app.state.note?.remoteChange)
        XCTAssertNil(harness.app.state.note?.banner)
        harness.press(.ctrl("r"))
        await harness.waitUntil("nothing to merge") { harness.app.state.message?.text.hasPrefix("Nothing to merge") ?? false }
        XCTAssertEqual(harness.app.state.message?.text, "Nothing to merge: no one changed \"Plans.txt\" since you opened it")
        harness.app.stopLiveUpdates()
    }

    func testTextTypedWhileTheMergeIsSavedGoesOntoTheMerge() async throws {
        let gate = UploadGate()
        let (harness, ray) = try await annEditing(gate: gate)
        harness.press(.down, .down, .end)
        type(harness, " (ann)")
        try await rayWrites("Day 1: Paris\nDay 2: rest\nDay 3: home\n", ray)
        // The first upload is the save that conflicts; the second, the merge.
        gate.holding.withLock { $0 = true }
        gate.holdNumber.withLock { $0 = gate.uploads.withLock { $0 } + 2 }
        harness.press(.ctrl("s"))
        await harness.waitUntil("the merged save on its way") { gate.held.withLock { $0 } }
        type(harness, "!")
        gate.holding.withLock { $0 = false }
        await harness.waitUntil("the merge") { harness.app.state.message?.text.hasPrefix("Merged with ray's changes") ?? false }
        XCTAssertEqual(harness.app.state.message?.text, "Merged with ray's changes; you typed more since, not saved yet")
        XCTAssertEqual(text(), "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)\n")
        let session = try XCTUnwrap(harness.app.state.note)
        XCTAssertEqual(session.editor.body.text, "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)!\n")
        XCTAssertTrue(session.isModified)
        await harness.waitUntil("the draft of the newer text") { self.drafts.first?.body.hasSuffix("(ann)!\n") ?? false }
        XCTAssertEqual(drafts.first?.baseRev, session.baseRev, "over the merged rev, which has ray's line")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save") { harness.app.state.message?.text == "Saved \"Plans.txt\"" }
        XCTAssertEqual(text(), "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)!\n")
    }

    /// Esc while the merge view says "Saving the merge with ray's changes…" (its save in
    /// flight) went to the view, which said "Saving the merge…" and stayed: once saved, the
    /// editor was back, and a following `H` was typed into the note. Now no key of the meantime
    /// reaches the note, and Esc closes it once the server has the merge.
    func testEscWhileTheMergeIsSavedClosesTheNoteOnceSavedAndNoKeyReachesIt() async throws {
        let gate = UploadGate()
        let harness = try await annInTheMergeView(gate: gate)
        let mine = "Day 1: Lyon\nDay 2: rest (ann)\nDay 3: home\n"
        // The next upload is the merge's save: held until the keys are in.
        gate.holdNumber.withLock { $0 = gate.uploads.withLock { $0 } + 1 }
        gate.holding.withLock { $0 = true }
        harness.press(.char("b"))
        await harness.waitUntil("the merge's save on its way") { gate.held.withLock { $0 } }
        harness.press(.escape, .char("H"), .char("x"))
        XCTAssertEqual(harness.app.state.message?.text, "Saving the merge… the note closes once it is saved")
        XCTAssertNotNil(harness.app.state.note?.merge, "the view stays while its save is in flight")
        XCTAssertEqual(harness.app.state.note?.editor.body.text, mine, "no key typed into the note")

        gate.holding.withLock { $0 = false }
        await harness.waitUntil("the note closed once saved") { harness.app.state.note == nil }
        XCTAssertEqual(harness.app.state.message?.text, "Merged with ray's changes · Closed Plans.txt")
        XCTAssertEqual(text(), "Day 1: Lyon\nDay 2: rest (ann)\nDay 2: Annecy\nDay 3: home\n")
        XCTAssertEqual(drafts, [], "no draft: nothing was typed after the merge")
        // The list has the keys: H is its history.
        harness.press(.char("H"))
        await harness.waitUntil("the note's history") { harness.app.state.history != nil }
    }

    /// Other keys while the merge is saved are the view's (nothing reaches the note), and a
    /// save that fails keeps the note open with the view, Esc or not.
    func testAMergeSaveThatFailsAfterEscKeepsTheNoteOpen() async throws {
        let gate = UploadGate()
        let harness = try await annInTheMergeView(gate: gate)
        // The merge's save fails; its answer comes on a later turn of the queue than these keys.
        gate.failing.withLock { $0 = true }
        harness.press(.char("b"), .escape)
        XCTAssertEqual(harness.app.state.message?.text, "Saving the merge… the note closes once it is saved")
        await harness.waitUntil("the failure") { harness.app.state.message?.kind == .error }
        XCTAssertNotNil(harness.app.state.note?.merge, "the view keeps the choices")
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "Day 1: Lyon\nDay 2: rest (ann)\nDay 3: home\n")
        gate.failing.withLock { $0 = false }
        harness.press(.ctrl("s"))
        await harness.waitUntil("the retry") { harness.app.state.message?.text == "Merged with ray's changes" }
        XCTAssertNotNil(harness.app.state.note, "the retry's save leaves the note open: its Esc was for the failed one")
    }

    func testCtrlROnANoteNotOnTheServerSaysWhy() async throws {
        let harness = Harness(store: FakeStore(files: []))
        await harness.start()
        harness.press(.char("n"))
        harness.press(.ctrl("r"))
        XCTAssertEqual(harness.app.state.message?.text, "Nothing to merge: this note is not on the server yet")
        XCTAssertNil(harness.app.state.note?.merge)
    }

    func testAServerWithoutMembersIsAnotherMember() async throws {
        let club = try await SampleClubServer()
        defer { Task { await club.close() } }
        let store = club.store()
        let harness = Harness(store: store, drafts: DraftStore(directory: draftsDirectory))
        await harness.start()
        let welcome = try await store.metadata("/byteclub/Welcome to Byte Club.txt")
        let original = try String(decoding: await store.read(welcome.path).data, as: UTF8.self)
        // Someone else's commit through the API: the opened rev's text goes into the history.
        _ = try await store.upload(data: Data(original.utf8), to: welcome.path, mode: .overwrite, autorename: false)
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }
        harness.press(.documentEnd)
        type(harness, "Mine at the end")
        _ = try await store.upload(data: Data(("Theirs first\n" + original).utf8), to: welcome.path, mode: .overwrite, autorename: false)
        harness.press(.ctrl("s"))
        await harness.waitUntil("the merge") { harness.app.state.message?.text == "Merged with another member's changes" }
        let merged = String(decoding: try await store.read(welcome.path).data, as: UTF8.self)
        XCTAssertTrue(merged.hasPrefix("Theirs first\n"))
        XCTAssertTrue(merged.hasSuffix("Mine at the end"))
    }

    func testSeveralConflictsAreChosenOneByOne() async throws {
        let (harness, ray) = try await annEditing()
        harness.press(.end)
        type(harness, " (ann)")
        harness.press(.down, .down, .end)
        type(harness, " (ann)")
        try await rayWrites("Day 1: Lyon (ray)\nDay 2: rest\nDay 3: home (ray)\n", ray)
        harness.press(.ctrl("s"))
        await harness.waitUntil("the merge view") { harness.app.state.note?.merge != nil }
        XCTAssertEqual(harness.app.state.note?.merge?.conflictCount, 2)
        harness.press(.ctrl("s"))
        XCTAssertEqual(harness.app.state.message?.text, "2 conflicts left: m mine · t theirs · b both")
        harness.press(.char("n"))
        XCTAssertEqual(harness.app.state.note?.merge?.selected, 1)
        harness.press(.char("p"))
        XCTAssertEqual(harness.app.state.note?.merge?.selected, 0)
        harness.press(.char("t"))
        XCTAssertEqual(harness.app.state.note?.merge?.selected, 1, "on to the next open conflict")
        XCTAssertEqual(harness.app.state.note?.merge?.openCount, 1)
        let canvas = harness.render(width: 120, height: 36)
        XCTAssertNotNil(canvas.position(of: "Conflict 1 of 2: ray's"))
        XCTAssertNotNil(canvas.position(of: "▶ Conflict 2 of 2"))
        harness.press(.char("m"))
        await harness.waitUntil("the merge saved") { harness.app.state.message?.text == "Merged with ray's changes" }
        XCTAssertEqual(text(), "Day 1: Lyon (ray)\nDay 2: rest\nDay 3: home (ann)\n")
    }
}

/// The descriptions of the merge view's keys, as help lists them.
enum MergeViewKeys {
    static let descriptions = ["Keep your lines for this conflict", "Keep their lines for this conflict", "Keep both: yours, then theirs",
                               "Overwrite: your text over theirs", "Save as copy: your text beside theirs",
                               "Reload theirs (your text stays a draft)", "Cancel: back to your text, not saved"]
}

/// Whether ``GatedStore`` fails uploads, or holds one until let go.
final class UploadGate: Sendable {
    let failing = Mutex(false)
    /// Which upload (counted from 1) waits while ``holding`` is set.
    let holdNumber = Mutex(0)
    let holding = Mutex(false)
    let uploads = Mutex(0)
    /// Whether the upload to hold is waiting.
    let held = Mutex(false)
}

/// Forwards to a store (no live calls: no longpolls race the test), failing uploads with a
/// network error while its gate says so.
struct GatedStore: ForwardingStore {
    let base: any RemoteStore
    let gate: UploadGate

    func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        if gate.failing.withLock({ $0 }) { throw .network("Connection refused") }
        let number = gate.uploads.withLock { count in
            count += 1
            return count
        }
        if number == gate.holdNumber.withLock({ $0 }) {
            gate.held.withLock { $0 = true }
            // Polled: the test lets go by clearing the flag.
            while gate.holding.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
        }
        return try await base.upload(data: data, to: path, mode: mode, autorename: autorename)
    }
    func latestCursor(_ folder: String, recursive: Bool) async throws(RemoteError) -> RemoteCursor { throw .notSupported("change cursors") }
    func longpoll(_ cursor: RemoteCursor, timeout: TimeInterval) async throws(RemoteError) -> LongpollAnswer { throw .notSupported("longpolls") }
    func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges { throw .notSupported("changes") }
}
