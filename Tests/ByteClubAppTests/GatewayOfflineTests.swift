import ByteClubApp
import Foundation
import Remote
import Synchronization
import TerminalUI
import XCTest

/// Offline, as issue 23 asks: a club server behind a reverse proxy (``GatewayProxy``) that
/// answers 502/503/504 while the server is down is offline, not an answer; the outbox is sending
/// within 5 s of the server's return after any outage up to an hour, at a cost the test counts;
/// photo deletes wait in the outbox too; as issue 31 asks, a proxy's `Retry-After` holds the probe
/// back and its 502 reads as one sentence naming it, never its HTML page. Against a real club
/// server stopped and started on one port.
@MainActor
final class GatewayOfflineTests: XCTestCase {
    var club: RestartableClub!
    var proxy: GatewayProxy!
    var state: URL!

    override func setUp() async throws {
        club = try await RestartableClub(notes: ["Trip plan.txt": "Day 1: Lyon\n", "Ideas.txt": "kites\n"])
        proxy = try await GatewayProxy(upstream: club.url)
        state = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-gateway-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        proxy.stop()
        await club.close()
        try? FileManager.default.removeItem(at: state)
    }

    var outbox: Outbox { Outbox(directory: state.appendingPathComponent("outbox")) }

    /// Ray's app as the executable configures it (no retries of an unreachable server, an outbox,
    /// a cache, drafts), talking to the club through the proxy unless `direct`.
    func rayApp(effects: any UIEffects = MainQueueEffects(), live: Bool = true, direct: Bool = false,
                probes: ProbeCounter? = nil) -> Harness {
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        retry.maxAttempts = 5
        retry.maxDelay = 2
        let store = DropboxStore(displayName: "club", endpoints: .club(direct ? club.url : proxy.baseURL), tokens: StaticToken(club.rayToken),
                                 connection: ConnectionOptions(idleTimeout: 10), retry: retry)
        let counted: any RemoteStore = probes.map { ProbeCountingStore(base: store, counter: $0) } ?? store
        return Harness(store: counted, drafts: DraftStore(directory: state.appendingPathComponent("drafts")), effects: effects) { configuration in
            configuration.outbox = self.outbox
            configuration.cache = ClubCache(directory: self.state.appendingPathComponent("cache"))
            configuration.liveUpdates = live
        }
    }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    /// Starts the club again and moves `effects`' clock on in half seconds, each probe let finish,
    /// until the app is back online or `seconds` have passed; answers the seconds it took.
    private func startTheClubAndWait(upTo seconds: Double, _ harness: Harness, _ effects: ManualEffects,
                                     _ probes: ProbeCounter) async throws -> Double {
        try await club.start()
        let back = effects.clock
        while harness.app.state.offline.isOffline, effects.clock - back < seconds {
            effects.advance(by: .milliseconds(500))
            try await Task.sleep(for: .milliseconds(1))
            if probes.started > probes.answered { await probes.waitForAnswers(harness) }
        }
        return effects.clock - back
    }

    /// Ray's app on `effects`' clock with "Trip plan" open; then the club stops, and `text`
    /// added at its end and saved waits in the outbox behind the proxy's answer (the proxy's
    /// counts start afresh there).
    private func offlineWithASaveQueued(_ text: String, effects: ManualEffects, probes: ProbeCounter) async throws -> Harness {
        let harness = rayApp(effects: effects, live: false, probes: probes)
        await harness.start()
        let index = try XCTUnwrap(harness.app.noteItems.firstIndex { $0.title == "Trip plan" })
        harness.press(.home)
        for _ in 0..<index { harness.press(.down) }
        harness.press(.enter)
        await harness.waitUntil("Trip plan open") { harness.app.state.note?.isEditing == true }
        try await club.stop()
        harness.press(.documentEnd)
        type(harness, text)
        harness.press(.ctrl("s"))
        await harness.waitUntil("queued behind the proxy") { self.outbox.all().count == 1 && harness.app.state.offline.isOffline }
        proxy.resetCounts()
        return harness
    }

    func testAProxyAnswering502Or503Or504ForAStoppedServerQueuesSavesAndTheyAreSentWhenItIsBack() async throws {
        let harness = rayApp()
        await harness.start()
        for (index, status) in [502, 503, 504].enumerated() {
            proxy.failureStatus = status
            try await club.stop()
            let title = "Gateway \(status)"
            harness.press(.char("n"))
            type(harness, title)
            harness.press(.tab)
            type(harness, "written behind a \(status)\n")
            harness.press(.ctrl("s"))
            // In the outbox at once (an online save is sent from there), and waiting once the
            // send found the server gone: another request may find it gone first, and one sent
            // before the stop may still come back with the server's answer and call the app
            // online for a moment. The wait is for the save's own answer.
            await harness.waitUntil("the \(status) save queued") {
                self.outbox.all().count == 1 && harness.app.state.offline.isOffline && harness.app.state.offline.waiting == 1
            }
            XCTAssertTrue(harness.app.state.offline.isOffline, "\(status) is offline")
            XCTAssertEqual(harness.app.state.offline.figure, "offline · 1 waiting")
            XCTAssertNotEqual(harness.app.state.message?.kind, .error, harness.app.state.message?.text ?? "")
            XCTAssertGreaterThan(proxy.counted.failed, index, "the proxy answered \(status) for the stopped server")
            harness.press(.escape)
            await harness.waitUntil("closed") { harness.app.state.note == nil }

            try await club.start()
            await harness.waitUntil("the \(status) save sent", timeout: 15) { self.outbox.all().isEmpty && !harness.app.state.offline.isOffline }
            XCTAssertEqual(club.text("\(title).md"), "written behind a \(status)\n")
        }
        harness.app.requestQuit()
    }

    func testAfterAnHourOfflineTheOutboxIsSendingWithinFiveSecondsOfTheServersReturnAndTheProbeStaysCheap() async throws {
        let effects = ManualEffects()
        let probes = ProbeCounter()
        let harness = try await offlineWithASaveQueued("back home", effects: effects, probes: probes)

        // An hour offline on the effects' clock; every probe that falls due reaches the proxy,
        // which answers 502 at once, and is let finish before the clock moves on.
        let wentOffline = effects.clock
        var probeTimes: [Double] = []
        while effects.clock - wentOffline < 3600 {
            effects.advance(by: .milliseconds(500))
            // A probe that fell due has started its request by the time this turn ends.
            try await Task.sleep(for: .milliseconds(1))
            if probes.started > probeTimes.count {
                probeTimes.append(effects.clock)
                await probes.waitForAnswers(harness)
            }
        }
        XCTAssertTrue(harness.app.state.offline.isOffline)
        let gaps = zip(probeTimes.dropFirst(), probeTimes).map { $0 - $1 }
        XCTAssertLessThanOrEqual(gaps.max() ?? 999, 4.5, "no probe waits more than 4 s (+ the test's 0.5 s steps)")
        XCTAssertGreaterThanOrEqual(probeTimes.count, 800)
        XCTAssertLessThanOrEqual(probeTimes.count, 1000, "about 900 an hour, one request each")
        XCTAssertEqual(proxy.counted.requests["/2/files/get_metadata"], probeTimes.count, "a probe is one get_metadata")
        XCTAssertEqual(proxy.counted.total, probeTimes.count, "and nothing else reached the server meanwhile")

        // Back: the outbox is sending within 5 s on the same clock.
        let back = try await startTheClubAndWait(upTo: 5, harness, effects, probes)
        XCTAssertFalse(harness.app.state.offline.isOffline, "noticed within 5 s of the server's return")
        XCTAssertLessThanOrEqual(back, 5)
        await harness.waitUntil("sent", timeout: 15) { self.outbox.all().isEmpty }
        XCTAssertEqual(club.text("Trip plan.txt"), "Day 1: Lyon\nback home")
        harness.app.requestQuit()
    }

    func testAPhotoDeletedOfflineWaitsInTheOutboxShownAsWaitingAndIsSentWhenTheServerIsBack() async throws {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub/photos/city-dusk.jpg")
        let photo = club.folder.appendingPathComponent("photos/city-dusk.jpg")
        try FileManager.default.copyItem(at: sample, to: photo)
        let harness = rayApp(live: false, direct: true)
        await harness.start()
        harness.press(.char("2"))
        XCTAssertEqual(harness.app.state.photos.entries.map(\.name), ["city-dusk.jpg"])
        // Every request answered first: one the server answers while it stops (the photo's
        // thumbnail, its tags) is an answer, and would bring the app back online.
        await harness.waitUntil("no request in flight") { harness.app.state.inFlight == 0 }
        try await club.stop()
        harness.app.refresh(.photos)
        await harness.waitUntil("offline") { harness.app.state.offline.isOffline }

        harness.press(.char("d"), .left, .enter)
        await harness.waitUntil("the delete queued") { self.outbox.all().count == 1 }
        XCTAssertEqual(outbox.all().first?.kind, .delete)
        XCTAssertEqual(outbox.all().first?.path, "/byteclub/photos/city-dusk.jpg")
        XCTAssertEqual(harness.app.state.offline.figure, "offline · 1 waiting")
        XCTAssertNotEqual(harness.app.state.message?.kind, .error, harness.app.state.message?.text ?? "")
        let screen = harness.render(width: 120, height: 36).dump()
        XCTAssertTrue(screen.contains("city-dusk.jpg"), "the row stays until the server deleted it")
        XCTAssertTrue(screen.contains("⇡ delete waits in the outbox"), screen)
        XCTAssertTrue(screen.contains("offline · 1 waiting"), screen)
        // A second d says it waits already, and queues nothing more.
        harness.press(.char("d"))
        XCTAssertEqual(outbox.all().count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: photo.path))

        try await club.start()
        await harness.waitUntil("sent", timeout: 15) { self.outbox.all().isEmpty && harness.app.state.offline.waiting == 0 }
        XCTAssertFalse(FileManager.default.fileExists(atPath: photo.path), "deleted on the server")
        await harness.waitUntil("the row gone") { harness.app.state.photos.entries.isEmpty }
        harness.app.requestQuit()
    }

    // MARK: Issue 31 §4: a proxy's Retry-After, and its 502 in one sentence

    func store(retry: RetryPolicy) -> DropboxStore {
        DropboxStore(displayName: "club", endpoints: .club(proxy.baseURL), tokens: StaticToken(club.rayToken),
                     connection: ConnectionOptions(idleTimeout: 10), retry: retry)
    }

    func testA502SaysWhichProxyAnsweredInOneSentenceWithoutItsPage() async throws {
        try await club.stop()
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        let port = proxy.baseURL.port ?? 0
        for (status, reason) in [(502, "Bad Gateway"), (504, "Gateway Timeout")] {
            proxy.failureStatus = status
            do {
                _ = try await store(retry: retry).metadata("/byteclub")
                XCTFail("the server is down")
            } catch {
                XCTAssertEqual(error.message, "The proxy at 127.0.0.1:\(port) answered \(status) \(reason): the server behind it cannot be reached")
                XCTAssertFalse(error.message.contains("<"), error.message)
                XCTAssertTrue(error.isUnreachable, "offline, not an answer")
                XCTAssertNil(error.retryAfter)
            }
        }
        proxy.failureStatus = 503
        proxy.failureRetryAfter = 30
        do {
            _ = try await store(retry: retry).metadata("/byteclub")
            XCTFail("the server is down")
        } catch {
            XCTAssertEqual(error, .gateway(status: 503, proxy: "127.0.0.1:\(port)", retryAfter: 30),
                           "a proxy's maintenance page is offline (with its wait), not a busy server")
            XCTAssertEqual(error.message, "The proxy at 127.0.0.1:\(port) answered 503 Service Unavailable: the server behind it cannot be reached; it asks to wait 30 s")
        }
    }

    func testTheOfflineProbeWaitsForTheProxysRetryAfter() async throws {
        let effects = ManualEffects()
        let probes = ProbeCounter()
        proxy.failureStatus = 502
        proxy.failureRetryAfter = 30
        let harness = try await offlineWithASaveQueued("Day 2: Annecy", effects: effects, probes: probes)
        XCTAssertEqual(probes.started, 0)

        // 45 s on the effects' clock: the proxy asked for 30 s, so one probe, at 30 s.
        let wentOffline = effects.clock
        var probeTimes: [Double] = []
        while effects.clock - wentOffline < 45 {
            effects.advance(by: .milliseconds(500))
            try await Task.sleep(for: .milliseconds(1))
            if probes.started > probeTimes.count {
                probeTimes.append(effects.clock - wentOffline)
                await probes.waitForAnswers(harness)
            }
        }
        XCTAssertEqual(probeTimes.count, 1, "no probe before the proxy's Retry-After: \(probeTimes)")
        XCTAssertGreaterThanOrEqual(probeTimes.first ?? 0, 30)
        XCTAssertLessThanOrEqual(probeTimes.first ?? 99, 31)
        XCTAssertEqual(proxy.counted.requests["/2/files/get_metadata"], 1, "and the proxy saw only that one")

        // The proxy stops asking and the server is back: the next probe, due 30 s after the
        // last one (its answer asked for 30 s too), finds it and the outbox is sent.
        proxy.failureRetryAfter = nil
        _ = try await startTheClubAndWait(upTo: 35, harness, effects, probes)
        XCTAssertFalse(harness.app.state.offline.isOffline, "the probe after the wait found the server")
        await harness.waitUntil("sent", timeout: 15) { self.outbox.all().isEmpty }
        XCTAssertEqual(club.text("Trip plan.txt"), "Day 1: Lyon\nDay 2: Annecy")
        harness.app.requestQuit()
    }

    func testTheProbesWaitHonoursRetryAfterUpToItsCap() {
        XCTAssertEqual(OfflineProbe.wait(offlineFor: 0, retryAfter: nil), 1)
        XCTAssertEqual(OfflineProbe.wait(offlineFor: 0, retryAfter: 30), 30)
        XCTAssertEqual(OfflineProbe.wait(offlineFor: 600, retryAfter: 2), 4, "a short Retry-After does not hurry the probe")
        XCTAssertEqual(OfflineProbe.wait(offlineFor: 0, retryAfter: 86_400), OfflineProbe.longestRetryAfter, "a year's wait is capped")
    }
}

/// Counts the probes (`metadata` calls) a store was asked to make, and how many were answered.
final class ProbeCounter: Sendable {
    private let counts = Mutex((started: 0, answered: 0))
    var started: Int { counts.withLock { $0.started } }
    var answered: Int { counts.withLock { $0.answered } }
    func begin() { counts.withLock { $0.started += 1 } }
    func end() { counts.withLock { $0.answered += 1 } }

    /// Waits until every probe asked has its answer and the app had a turn to act on it.
    @MainActor
    func waitForAnswers(_ harness: Harness) async {
        await harness.waitUntil("the probe answered") { self.answered >= self.started }
        // The answer reaches the app on the main queue right after: one turn of it.
        try? await Task.sleep(for: .milliseconds(2))
    }
}

/// Forwards every call and counts `metadata` calls, the offline probe's question.
struct ProbeCountingStore: ForwardingStore {
    let base: any RemoteStore
    let counter: ProbeCounter

    func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry {
        counter.begin()
        defer { counter.end() }
        return try await base.metadata(path)
    }
}
