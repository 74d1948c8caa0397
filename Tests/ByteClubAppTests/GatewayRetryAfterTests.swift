import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// Issue 31 §4: a reverse proxy's answers for a server that is down. Its `Retry-After` is
/// honoured by the offline probe (no probe before it; today one came every 1–4 s whatever it
/// said), and its 502's message is a short sentence naming the status and the proxy, never its
/// HTML page. Against a real club server behind ``GatewayProxy``, stopped and started again.
@MainActor
final class GatewayRetryAfterTests: XCTestCase {
    var club: RestartableClub!
    var proxy: GatewayProxy!
    var state: URL!

    override func setUp() async throws {
        club = try await RestartableClub(notes: ["Trip plan.txt": "Day 1: Lyon\n"])
        proxy = try await GatewayProxy(upstream: club.url)
        state = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-retry-after-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        proxy.stop()
        await club.close()
        try? FileManager.default.removeItem(at: state)
    }

    var outbox: Outbox { Outbox(directory: state.appendingPathComponent("outbox")) }

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
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        retry.maxAttempts = 5
        retry.maxDelay = 2
        let counted = ProbeCountingStore(base: store(retry: retry), counter: probes)
        let harness = Harness(store: counted, drafts: DraftStore(directory: state.appendingPathComponent("drafts")), effects: effects) { configuration in
            configuration.outbox = self.outbox
            configuration.cache = ClubCache(directory: self.state.appendingPathComponent("cache"))
            configuration.liveUpdates = false
        }
        await harness.start()
        let index = try XCTUnwrap(harness.app.noteItems.firstIndex { $0.title == "Trip plan" })
        harness.press(.home)
        for _ in 0..<index { harness.press(.down) }
        harness.press(.enter)
        await harness.waitUntil("Trip plan open") { harness.app.state.note?.phase == .editing }
        proxy.failureStatus = 502
        proxy.failureRetryAfter = 30
        try await club.stop()
        harness.press(.documentEnd)
        for character in "Day 2: Annecy" { harness.press(.char(character)) }
        harness.press(.ctrl("s"))
        await harness.waitUntil("queued behind the 502") { self.outbox.all().count == 1 && harness.app.state.offline.isOffline }
        XCTAssertEqual(probes.started, 0)
        proxy.resetCounts()

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
        try await club.start()
        let back = effects.clock
        while harness.app.state.offline.isOffline, effects.clock - back < 35 {
            effects.advance(by: .milliseconds(500))
            try await Task.sleep(for: .milliseconds(1))
            if probes.started > probes.answered { await probes.waitForAnswers(harness) }
        }
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
