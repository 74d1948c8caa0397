import ByteClubApp
import Foundation
import Remote
import Synchronization
import TerminalUI
import TestSupport
import XCTest

/// Issue 53 §9: offline took 10–20 s to say so. With the club server stopped (a stopped process
/// accepts connections and answers nothing, so each request waits out the UI's idle limit), a
/// save spun on "Saving…" until the send gave up before it said "Saved … in the outbox", and a
/// note kept on this machine took as long to open although the app already said `offline`. The
/// outbox is the save path: the save is on disk in it at once, and the status line says it waits
/// within a moment; a kept note opens at once while offline. A refused connection is known at
/// once. Ray's app as the executable configures it (an outbox, a cache, drafts, no retries of a
/// server it cannot reach), against a real club server and a real silent one (``SilentListener``).
@MainActor
final class OfflineAtOnceTests: XCTestCase {
    var club: RestartableClub!
    var state: URL!
    var silent: SilentListener?

    override func setUp() async throws {
        club = try await RestartableClub(notes: ["Trip plan.txt": "Day 1: Lyon\n", "Ideas.txt": "kites\n"])
        state = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-offline-at-once-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        silent?.close()
        await club.close()
        try? FileManager.default.removeItem(at: state)
    }

    var outbox: Outbox { Outbox(directory: state.appendingPathComponent("outbox")) }
    var cache: ClubCache { ClubCache(directory: state.appendingPathComponent("cache")) }
    var drafts: DraftStore { DraftStore(directory: state.appendingPathComponent("drafts")) }

    /// The app's store for the club at `url`: no retries of a server it cannot reach, and the
    /// idle limit `idle` (the app's is 10 s).
    private func store(_ url: URL, idle: TimeInterval) -> DropboxStore {
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        retry.maxAttempts = 5
        retry.maxDelay = 2
        return DropboxStore(displayName: "club", endpoints: .club(url), tokens: StaticToken(club.rayToken),
                            connection: ConnectionOptions(idleTimeout: idle), retry: retry)
    }

    /// Ray's app on `store`, with an outbox, a cache and drafts; no live updates, so only the
    /// save (and then the probe) finds the server gone.
    private func rayApp(_ store: any RemoteStore) -> Harness {
        Harness(store: store, drafts: drafts) { configuration in
            configuration.outbox = self.outbox
            configuration.cache = self.cache
            configuration.liveUpdates = false
        }
    }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    private func select(_ title: String, in harness: Harness) {
        guard let index = harness.app.noteItems.firstIndex(where: { $0.title == title }) else {
            return XCTFail("no note \(title) in \(harness.app.noteItems.map(\.title))")
        }
        harness.press(.home)
        for _ in 0..<index { harness.press(.down) }
    }

    private func open(_ title: String, in harness: Harness) async {
        select(title, in: harness)
        harness.press(.enter)
        await harness.waitUntil("\(title) open") { harness.app.state.note?.isEditing == true && harness.app.state.note?.entry?.name == title + ".txt" }
    }

    func testASaveAgainstARefusedConnectionSaysAtOnceThatItWaitsInTheOutbox() async throws {
        let harness = rayApp(store(club.url, idle: 10))
        await harness.start()
        await open("Trip plan", in: harness)
        // Stopped: its port refuses connections (held, so no other test's server takes it).
        try await club.stop()
        harness.press(.documentEnd)
        type(harness, "Day 2: rest")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save said to wait in the outbox", timeout: 2) {
            harness.app.state.message?.text.hasPrefix("Saved \"Trip plan.txt\" in the outbox (1 waiting)") == true
                && harness.app.state.offline.figure == "offline · 1 waiting"
        }
        XCTAssertEqual(outbox.all().map(\.text), ["Day 1: Lyon\nDay 2: rest"])
        XCTAssertEqual(harness.app.state.note?.isModified, false, "queued counts as saved: no [+]")
        XCTAssertEqual(harness.app.state.note?.isEditing, true)
        harness.app.requestQuit()
    }

    func testASaveToASilentServerWaitsInTheOutboxAtOnceAndAKeptNoteOpensAtOnceOffline() async throws {
        let silent = try SilentListener()
        self.silent = silent
        // A short idle limit keeps the test short; still several times the grace the save waits.
        let idle: TimeInterval = 8
        let switchable = StallingStore(club: store(club.url, idle: idle),
                                       silent: store(URL(string: "http://127.0.0.1:\(silent.port)")!, idle: idle))
        let harness = rayApp(switchable)
        await harness.start()
        // Ideas opened once: its text is kept on this machine.
        await open("Ideas", in: harness)
        await harness.waitUntil("Ideas kept on this machine") { self.cache.note("/byteclub/Ideas.txt")?.text == "kites\n" }
        harness.press(.escape)
        await harness.waitUntil("Ideas closed") { harness.app.state.note == nil }
        await open("Trip plan", in: harness)

        // The server stops answering: every request now waits out the idle limit.
        switchable.stall(true)
        harness.press(.documentEnd)
        type(harness, "Day 2: rest")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save said to wait in the outbox, long before the idle limit", timeout: 4) {
            harness.app.state.message?.text.hasPrefix("Saved \"Trip plan.txt\" in the outbox (1 waiting)") == true
        }
        XCTAssertEqual(outbox.all().map(\.text), ["Day 1: Lyon\nDay 2: rest"], "on disk in the outbox")
        XCTAssertEqual(harness.app.state.offline.waiting, 1, "the status line counts it")
        XCTAssertEqual(harness.app.state.note?.isModified, false, "queued counts as saved: no [+]")
        XCTAssertEqual(harness.app.state.note?.isEditing, true)

        // The send gives up at the idle limit: offline, the save still waiting.
        await harness.waitUntil("offline once the send gave up", timeout: idle + 6) { harness.app.state.offline.figure == "offline · 1 waiting" }
        XCTAssertEqual(club.text("Trip plan.txt"), "Day 1: Lyon\n", "nothing reached the server")

        // Offline, a note kept on this machine opens at once, not after another idle limit.
        harness.press(.escape)
        await harness.waitUntil("Trip plan closed without a question") { harness.app.state.note == nil }
        select("Ideas", in: harness)
        harness.press(.enter)
        await harness.waitUntil("Ideas open from the copy kept here", timeout: 2) {
            harness.app.state.note?.isEditing == true && harness.app.state.note?.editor.body.text == "kites\n"
        }
        XCTAssertEqual(harness.app.state.message?.text.hasPrefix("Opened \"Ideas.txt\" as kept at"), true, harness.app.state.message?.text ?? "")

        // The server answers again: the outbox sends the save by itself.
        switchable.stall(false)
        await harness.waitUntil("the save on the server", timeout: 30) {
            self.club.text("Trip plan.txt") == "Day 1: Lyon\nDay 2: rest" && self.outbox.all().isEmpty
        }
        harness.app.requestQuit()
    }
}

/// The club's store until ``stall(_:)``: then a silent server's, so every request made from then
/// on waits out the idle limit and fails as a stalled one (`.stalled`); requests already under
/// way finish against the club.
final class StallingStore: ForwardingStore {
    let club: any RemoteStore
    let silent: any RemoteStore
    private let stalls = Mutex(false)

    init(club: any RemoteStore, silent: any RemoteStore) {
        self.club = club
        self.silent = silent
    }

    var base: any RemoteStore { stalls.withLock { $0 } ? silent : club }

    func stall(_ on: Bool) { stalls.withLock { $0 = on } }
}
