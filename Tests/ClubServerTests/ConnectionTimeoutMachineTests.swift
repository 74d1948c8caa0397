@testable import ClubServer
import NIOCore
import XCTest

/// The connection timeouts as a value, driven by hand with made-up instants: no network, no clock.
final class ConnectionTimeoutMachineTests: XCTestCase {
    private let limits = ConnectionTimeoutMachine.Limits(idle: .seconds(30), header: .seconds(10), body: .seconds(20))
    private let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    private func at(_ seconds: Double) -> NIODeadline {
        start + .nanoseconds(Int64(seconds * 1e9))
    }

    func testAnIdleConnectionClosesAfterTheIdleTimeout() {
        var machine = ConnectionTimeoutMachine(limits: limits, now: start)
        XCTAssertEqual(machine.deadline, at(30))
        XCTAssertEqual(machine.deadlinePassed(now: at(29.9)), .none)
        XCTAssertEqual(machine.deadlinePassed(now: at(30)), .close(.idle))
        XCTAssertEqual(machine.phase, .closed)
        XCTAssertNil(machine.deadline)
    }

    func testAHeadMustBeCompleteWithinTheHeaderTimeoutOfItsFirstByteHoweverSlowly() {
        var machine = ConnectionTimeoutMachine(limits: limits, now: start)
        machine.bytesArrived(now: at(5))
        XCTAssertEqual(machine.phase, .head(started: at(5)))
        // A byte every few seconds (a slowloris) does not move the deadline.
        for second in stride(from: 6.0, through: 14.0, by: 2) {
            machine.readRequested(now: at(second))
            machine.bytesArrived(now: at(second + 0.5))
        }
        XCTAssertEqual(machine.deadline, at(15))
        XCTAssertEqual(machine.deadlinePassed(now: at(15)), .answerTimeout)
    }

    func testABodyClosesOnlyAfterTheBodyTimeoutWithoutProgress() {
        var machine = ConnectionTimeoutMachine(limits: limits, now: start)
        machine.bytesArrived(now: at(1))
        machine.headReceived(now: at(1))
        XCTAssertEqual(machine.phase, .body)
        machine.readRequested(now: at(1))
        // Steady progress keeps it alive well past the body timeout.
        for second in stride(from: 10.0, through: 60.0, by: 10) {
            XCTAssertEqual(machine.deadlinePassed(now: at(second)), .none)
            machine.bytesArrived(now: at(second))
            machine.readRequested(now: at(second))
        }
        XCTAssertEqual(machine.deadline, at(80))
        XCTAssertEqual(machine.deadlinePassed(now: at(80)), .close(.bodyStalled))
    }

    func testTimeTheServerSpendsNotReadingIsNotTheClients() {
        var machine = ConnectionTimeoutMachine(limits: limits, now: start)
        machine.bytesArrived(now: at(1))
        machine.headReceived(now: at(1))
        // Back-pressure: the handler is busy and no read is asked of the socket for a minute.
        XCTAssertNil(machine.deadline)
        XCTAssertEqual(machine.deadlinePassed(now: at(61)), .none)
        machine.readRequested(now: at(61))
        XCTAssertEqual(machine.deadline, at(81))
    }

    func testNoClockRunsWhileAnAnswerIsBeingMadeSoALongpollIsExempt() {
        var machine = ConnectionTimeoutMachine(limits: limits, now: start)
        machine.bytesArrived(now: at(1))
        machine.headReceived(now: at(1))
        machine.requestEnded(now: at(1))
        machine.readRequested(now: at(1))
        XCTAssertEqual(machine.phase, .busy)
        XCTAssertNil(machine.deadline)
        XCTAssertEqual(machine.deadlinePassed(now: at(600)), .none)
        // Once answered, the connection is idle again and its clock starts then.
        machine.answerEnded(now: at(600))
        XCTAssertEqual(machine.phase, .idle)
        XCTAssertEqual(machine.deadline, at(630))
    }

    func testAnAnswerSentBeforeTheBodyEndedLeavesTheBodyClockRunning() {
        var machine = ConnectionTimeoutMachine(limits: limits, now: start)
        machine.bytesArrived(now: at(1))
        machine.headReceived(now: at(1))
        machine.readRequested(now: at(1))
        machine.answerEnded(now: at(2))
        XCTAssertEqual(machine.phase, .body)
        XCTAssertEqual(machine.deadline, at(21))
        machine.requestEnded(now: at(3))
        XCTAssertEqual(machine.phase, .idle)
        XCTAssertEqual(machine.deadline, at(33))
    }

    func testAnAnswerTheClientDoesNotReadClosesAfterTheIdleTimeout() {
        var machine = ConnectionTimeoutMachine(limits: limits, now: start)
        machine.bytesArrived(now: at(1))
        machine.headReceived(now: at(1))
        machine.requestEnded(now: at(1))
        machine.writabilityChanged(writable: false, now: at(2))
        XCTAssertEqual(machine.deadline, at(32))
        machine.writabilityChanged(writable: true, now: at(10))
        XCTAssertNil(machine.deadline)
        machine.writabilityChanged(writable: false, now: at(11))
        machine.writabilityChanged(writable: false, now: at(12))
        XCTAssertEqual(machine.deadline, at(41))
        // A slow reader drains a little: not stalled.
        machine.answerProgressed(now: at(41))
        XCTAssertEqual(machine.deadlinePassed(now: at(41)), .none)
        XCTAssertEqual(machine.deadlinePassed(now: at(71)), .close(.answerNotRead))
    }
}
