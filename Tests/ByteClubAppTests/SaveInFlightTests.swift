import ByteClubApp
import Foundation
import Remote
import Synchronization
import TerminalUI
import XCTest

/// Another member's change that arrives while your own save is in flight (issue 23): the banner
/// for it must not vanish when your save succeeds; the app merges it or says it could not.
/// Against a real club server with two members: ann edits in the app, ray commits through the API
/// while ann's save has reached the server and its answer is held back.
@MainActor
final class SaveInFlightTests: XCTestCase {
    static let base = "Day 1: Lyon\nDay 2: rest\nDay 3: home\n"
    var club: MembersClub?
    var draftsDirectory: URL!

    override func setUp() async throws {
        draftsDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-inflight-drafts-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        await club?.close()
        club = nil
        try? FileManager.default.removeItem(at: draftsDirectory)
    }

    private var plans: URL { club!.base.appendingPathComponent("club/byteclub/Plans.txt") }
    private func text() -> String? { try? String(contentsOf: plans, encoding: .utf8) }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    /// Ann's app (live updates on) with Plans.txt open and " (ann)" typed at the end of day 3; her
    /// next save reaches the server and its answer then waits while `hold` says so. Ray's store.
    private func annTyping(hold: ReplyHold) async throws -> (Harness, any RemoteStore) {
        let club = try await MembersClub(notes: ["Plans.txt": Self.base])
        self.club = club
        let ray = club.store(token: club.rayToken)
        _ = try await ray.upload(data: Data(Self.base.utf8), to: "/byteclub/Plans.txt", mode: .overwrite, autorename: false)
        let store = HeldReplyStore(base: club.store(token: club.annToken), hold: hold)
        let harness = Harness(store: store, drafts: DraftStore(directory: draftsDirectory))
        await harness.start()
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }
        harness.press(.down, .down, .end)
        type(harness, " (ann)")
        return (harness, ray)
    }

    /// Ann presses Ctrl-S; once her text is on the server (answer held), ray commits his change
    /// on top of it, and the live updates put up the banner while her save is still in flight.
    private func rayCommitsDuringAnnsSave(_ harness: Harness, _ ray: any RemoteStore, hold: ReplyHold, rayText: String) async throws {
        hold.holding.withLock { $0 = true }
        harness.press(.ctrl("s"))
        await harness.waitUntil("ann's save on the server, its answer held") { hold.held.withLock { $0 } }
        XCTAssertEqual(text(), "Day 1: Lyon\nDay 2: rest\nDay 3: home (ann)\n")
        let current = try await ray.metadata("/byteclub/Plans.txt")
        _ = try await ray.upload(data: Data(rayText.utf8), to: "/byteclub/Plans.txt", mode: .update(rev: current.rev ?? ""), autorename: false)
        await harness.waitUntil("the banner, with ann's save still in flight") { harness.app.state.note?.remoteChange != nil }
        XCTAssertEqual(harness.app.state.note?.isSaving, true)
        XCTAssertEqual(harness.app.state.note?.banner?.hasPrefix("Changed by ray at"), true, harness.app.state.note?.banner ?? "no banner")
    }

    func testAChangeArrivingWhileASaveIsInFlightIsMergedWhenTheSaveSucceeds() async throws {
        let hold = ReplyHold()
        let (harness, ray) = try await annTyping(hold: hold)
        let rays = "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)\n"
        try await rayCommitsDuringAnnsSave(harness, ray, hold: hold, rayText: rays)
        hold.holding.withLock { $0 = false }
        await harness.waitUntil("ray's change taken into the editor") { harness.app.state.note?.editor.body.text == rays }
        await harness.waitUntil("the merge said") { harness.app.state.message?.text == "Merged with ray's changes" }
        let session = try XCTUnwrap(harness.app.state.note)
        XCTAssertNil(session.remoteChange, "taken in")
        XCTAssertNil(session.banner, "taken in, so the banner goes")
        XCTAssertFalse(session.isModified, "the editor holds exactly the server's newest text")
        XCTAssertEqual(text(), rays)
        // The base moved to ray's rev: the next save is a plain update.
        type(harness, "!")
        harness.press(.ctrl("s"))
        await harness.waitUntil("saved again") { harness.app.state.message?.text == "Saved \"Plans.txt\"" }
        XCTAssertEqual(text(), "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)!\n")
        harness.app.stopLiveUpdates()
    }

    /// A change whose banner was up before the save began is the one the save deals with (here
    /// overwritten on purpose from the merge view): once saved, no second merge runs and
    /// "Nothing to merge" never replaces "Saved".
    func testAChangeKnownBeforeTheSaveIsNotMergedAgainAfterIt() async throws {
        let hold = ReplyHold()
        let (harness, ray) = try await annTyping(hold: hold)
        let current = try await ray.metadata("/byteclub/Plans.txt")
        _ = try await ray.upload(data: Data("Day 1: Lyon\nDay 2: rest\nDay 3: away\n".utf8), to: "/byteclub/Plans.txt",
                                 mode: .update(rev: current.rev ?? ""), autorename: false)
        await harness.waitUntil("the banner before ann saves") { harness.app.state.note?.remoteChange != nil }
        harness.press(.ctrl("s"))
        await harness.waitUntil("the merge view (both changed day 3)") { harness.app.state.note?.merge != nil }
        harness.press(.char("o"))
        let anns = "Day 1: Lyon\nDay 2: rest\nDay 3: home (ann)\n"
        await harness.waitUntil("ann's text over ray's") { self.text() == anns }
        await harness.waitUntil("the editor idle") {
            harness.app.state.note?.isEditing == true && harness.app.state.note?.merge == nil && !harness.app.state.isBusy
        }
        XCTAssertEqual(harness.app.state.message?.text, "Saved \"Plans.txt\"", "no second merge said anything")
        XCTAssertNil(harness.app.state.note?.banner)
        XCTAssertNil(harness.app.state.note?.remoteChange)
        XCTAssertEqual(text(), anns)
    }

    func testWhenThatMergeCannotBeMadeTheBannerStaysAndTheAppSaysWhy() async throws {
        let hold = ReplyHold()
        let (harness, ray) = try await annTyping(hold: hold)
        try await rayCommitsDuringAnnsSave(harness, ray, hold: hold, rayText: "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)\n")
        // The merge's downloads fail (the server answers, with an error).
        hold.failingReads.withLock { $0 = true }
        hold.holding.withLock { $0 = false }
        await harness.waitUntil("the reason said") { harness.app.state.message?.text.hasPrefix("Cannot merge \"Plans.txt\"") ?? false }
        let session = try XCTUnwrap(harness.app.state.note)
        XCTAssertEqual(session.banner?.hasPrefix("Changed by ray at"), true, "the banner stays: \(session.banner ?? "none")")
        XCTAssertNotNil(session.remoteChange)
        XCTAssertEqual(session.editor.body.text, "Day 1: Lyon\nDay 2: rest\nDay 3: home (ann)\n", "ann's text untouched")
        // Ctrl-R, once the server serves again, takes it in.
        hold.failingReads.withLock { $0 = false }
        harness.press(.ctrl("r"))
        await harness.waitUntil("merged on request") { harness.app.state.message?.text == "Merged with ray's changes" }
        XCTAssertNil(harness.app.state.note?.banner)
        harness.app.stopLiveUpdates()
    }
}

/// Whether ``HeldReplyStore`` holds the answer of an upload that reached the server, and
/// whether its downloads fail.
final class ReplyHold: Sendable {
    let holding = Mutex(false)
    /// An upload's answer is being held.
    let held = Mutex(false)
    /// Downloads fail with a server error (the server answers: the app stays online).
    let failingReads = Mutex(false)
}

/// Forwards everything (live calls included); an upload reaches the server, and then its answer
/// waits while ``ReplyHold/holding`` is set, as a slow network would hold it.
struct HeldReplyStore: ForwardingStore {
    let base: any RemoteStore
    let hold: ReplyHold

    func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        let entry = try await base.upload(data: data, to: path, mode: mode, autorename: autorename)
        if hold.holding.withLock({ $0 }) {
            hold.held.withLock { $0 = true }
            // Polled: the test lets go by clearing the flag.
            while hold.holding.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
            hold.held.withLock { $0 = false }
        }
        return entry
    }

    func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                  onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        if hold.failingReads.withLock({ $0 }) { throw .server(status: 500, detail: "the disk is on fire") }
        return try await base.download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
    }
}
