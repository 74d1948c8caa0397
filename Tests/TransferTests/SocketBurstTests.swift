import Foundation
import LoopbackHTTP
@testable import Transfer
import XCTest

/// `SocketBurst` on a fake clock, and the driver using it: an upload must not wait for a new
/// Dispatch event (a hand-off between threads) for every buffer curl sends.
final class SocketBurstTests: XCTestCase {
    // MARK: - The policy

    func testPollsAgainWhileBytesMove() {
        var clock = FakeClock()
        var burst = SocketBurst(now: clock.now, budget: 20_000_000, maxRounds: 100)
        for _ in 0..<10 {
            clock.advance(milliseconds: 0.2)
            XCTAssertEqual(burst.roundEnded(moved: true, wantsWrite: true, mayWait: false, now: clock.now), .poll(timeout: 0),
                           "with other sockets to serve it only looks")
        }
        XCTAssertEqual(burst.rounds, 10)
    }

    func testTheOnlySocketIsWaitedOnWithinTheBudget() {
        var clock = FakeClock()
        var burst = SocketBurst(now: clock.now, budget: 20_000_000, maxWait: 5_000_000)
        clock.advance(milliseconds: 1.5)
        XCTAssertEqual(burst.roundEnded(moved: true, wantsWrite: true, mayWait: true, now: clock.now), .poll(timeout: 5_000_000),
                       "the thread waits on its socket itself, as curl's own loop does, instead of a hand-off through Dispatch")
        clock.advance(milliseconds: 16.5)
        XCTAssertEqual(burst.roundEnded(moved: true, wantsWrite: true, mayWait: true, now: clock.now), .poll(timeout: 2_000_000),
                       "never past the budget")
    }

    func testASlowRoundDoesNotEndTheBurstByItself() {
        var clock = FakeClock()
        var burst = SocketBurst(now: clock.now, budget: 20_000_000, maxWait: 5_000_000)
        clock.advance(milliseconds: 8)
        XCTAssertEqual(burst.roundEnded(moved: true, wantsWrite: true, mayWait: true, now: clock.now), .poll(timeout: 5_000_000),
                       "a round longer than one wait (a loaded machine) still leaves room for the next")
    }

    func testYieldsWhenNothingMovedOrCurlWantsNoWrite() {
        let clock = FakeClock()
        var idle = SocketBurst(now: clock.now)
        XCTAssertEqual(idle.roundEnded(moved: false, wantsWrite: true, mayWait: true, now: clock.now), .yield,
                       "a round that moved nothing (a paused or throttled transfer) must not spin")
        var done = SocketBurst(now: clock.now)
        XCTAssertEqual(done.roundEnded(moved: true, wantsWrite: false, mayWait: true, now: clock.now), .yield,
                       "curl has sent its body and waits for the answer, or the transfer ended")
    }

    func testYieldsOnceTheTimeBudgetIsSpent() {
        var clock = FakeClock()
        var burst = SocketBurst(now: clock.now, budget: 20_000_000, maxWait: 5_000_000, maxRounds: 1000)
        clock.advance(milliseconds: 19.9)
        XCTAssertEqual(burst.roundEnded(moved: true, wantsWrite: true, mayWait: true, now: clock.now), .poll(timeout: 100_000))
        clock.advance(milliseconds: 0.1)
        XCTAssertEqual(burst.roundEnded(moved: true, wantsWrite: true, mayWait: true, now: clock.now), .yield,
                       "a suspend, a timer or another task queued behind the burst waits no longer than the budget")
    }

    func testYieldsAfterItsLastRound() {
        let clock = FakeClock()
        var burst = SocketBurst(now: clock.now, budget: .max, maxRounds: 3)
        XCTAssertEqual(burst.roundEnded(moved: true, wantsWrite: true, mayWait: false, now: clock.now), .poll(timeout: 0))
        XCTAssertEqual(burst.roundEnded(moved: true, wantsWrite: true, mayWait: false, now: clock.now), .poll(timeout: 0))
        XCTAssertEqual(burst.roundEnded(moved: true, wantsWrite: true, mayWait: false, now: clock.now), .yield)
    }

    // MARK: - The driver, against a real server

    /// curl 7.88 sends one upload buffer per `curl_multi_socket_action`. Driven one call per
    /// Dispatch event, a 16 MiB upload through 64 KiB buffers took at least 256 events, each a
    /// wake-up of the session queue's thread by Dispatch's event-loop thread while the socket
    /// idled. With bursts, rounds run back to back while the socket takes data, so the events
    /// are a fraction of the buffers: only the times the socket was full, or a burst's budget
    /// ran out. Counted, not timed.
    func testAnUploadSendsSeveralBuffersPerDispatchEvent() throws {
        let server = try LoopbackServer.startBlocking()
        defer { try? server.shutdownBlocking() }
        var configuration = SessionConfiguration.default
        let buffer = 64 * 1024
        configuration.uploadBufferSize = buffer
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let size = 16 << 20
        var body = Data(count: size)
        body.withUnsafeMutableBytes { raw in
            for index in stride(from: 0, to: raw.count, by: 4096) { raw[index] = UInt8(truncatingIfNeeded: index >> 12) }
        }
        let box = Box<(Data?, HTTPResponse?, TransferError?)>()
        // Not hashed: the server keeps up with the client, so the socket is rarely full.
        var request = Request(url: server.url("/upload?hash=0"), method: "POST")
        request.headers["Content-Type"] = "application/octet-stream"
        session.uploadTask(with: request, fromData: body) { data, response, error in
            box.put((data, response, error))
        }.resume()
        let (data, response, error) = try XCTUnwrap(box.take(timeout: 60))
        XCTAssertNil(error)
        XCTAssertEqual(response?.statusCode, 200)
        let reply = try JSONSerialization.jsonObject(with: try XCTUnwrap(data)) as? [String: Any]
        XCTAssertEqual(reply?["bytes"] as? Int, size)

        let counters = session.driverCounters()
        let buffers = size / buffer
        XCTAssertGreaterThan(counters.burstRounds, 0, "no curl round ran without waiting for a Dispatch event: \(counters)")
        XCTAssertLessThan(counters.socketEvents, buffers / 2,
                          "\(buffers) buffers of \(buffer) bytes took \(counters.socketEvents) Dispatch events: \(counters)")
    }

    // MARK: - Moving curl's timer

    func testTheTimerMovesOnlyWhenTheDeadlineMovesByMoreThanAnEighthOfTheWait() {
        let ms: UInt64 = 1_000_000
        let now: UInt64 = 5_000 * ms
        // Nothing set: any deadline is set.
        XCTAssertTrue(MultiDriver.timerMustMove(current: nil, now: now, milliseconds: 1000))
        // Set for 1 s from now; curl asks for 1 s again 50 ms later: within 125 ms, left alone.
        XCTAssertFalse(MultiDriver.timerMustMove(current: now + 1000 * ms, now: now + 50 * ms, milliseconds: 1000))
        // 200 ms later it has slid by more than an eighth: moved.
        XCTAssertTrue(MultiDriver.timerMustMove(current: now + 1000 * ms, now: now + 200 * ms, milliseconds: 1000))
        // An earlier deadline always moves it: curl must not be called late.
        XCTAssertTrue(MultiDriver.timerMustMove(current: now + 1000 * ms, now: now, milliseconds: 999))
        // "As soon as possible" after a kick that set it for now: left alone.
        XCTAssertFalse(MultiDriver.timerMustMove(current: now, now: now, milliseconds: 0))
        // Short waits get a 1 ms slack at least.
        XCTAssertFalse(MultiDriver.timerMustMove(current: now + 2 * ms, now: now + ms / 2, milliseconds: 2))
    }
}
