@testable import Transfer
import XCTest

final class TaskStateMachineTests: XCTestCase {
    func testResumeStartsOnceThenUnpauses() {
        var machine = TaskStateMachine()
        XCTAssertEqual(machine.resume(), .start)
        XCTAssertEqual(machine.resume(), .none)
        XCTAssertEqual(machine.suspend(), .pause)
        XCTAssertEqual(machine.suspend(), .none)
        XCTAssertEqual(machine.state, .paused)
        XCTAssertEqual(machine.resume(), .unpause)
        XCTAssertEqual(machine.state, .running)
    }

    func testSuspendBeforeStartIsANoOp() {
        var machine = TaskStateMachine()
        XCTAssertEqual(machine.suspend(), .none)
        XCTAssertEqual(machine.state, .created)
    }

    func testCancelPaths() {
        var unstarted = TaskStateMachine()
        XCTAssertEqual(unstarted.cancel(), .completeUnstarted)
        XCTAssertEqual(unstarted.cancel(), .none)
        XCTAssertEqual(unstarted.resume(), .none, "a cancelled task never starts")

        var running = TaskStateMachine()
        _ = running.resume()
        XCTAssertEqual(running.cancel(), .abort)
        XCTAssertEqual(running.state, .canceling)

        var paused = TaskStateMachine()
        _ = paused.resume()
        _ = paused.suspend()
        XCTAssertEqual(paused.cancel(), .abort)
    }

    func testFinishDeliversOnlyOnce() {
        var machine = TaskStateMachine()
        _ = machine.resume()
        XCTAssertEqual(machine.finish(), .deliver)
        XCTAssertEqual(machine.finish(), .ignore)
        XCTAssertEqual(machine.cancel(), .none)
        XCTAssertEqual(machine.resume(), .none)
        XCTAssertEqual(machine.suspend(), .none)
        XCTAssertEqual(machine.state, .completed)
    }
}

final class ResumeDataTests: XCTestCase {
    func testRoundTripAndValidator() throws {
        let value = ResumeData(version: ResumeData.currentVersion, url: URL(string: "http://127.0.0.1:1/x")!, method: "GET",
                               headers: ["X-A": "1"], offset: 42, expectedLength: 100, etag: "\"abc\"",
                               lastModified: "Sat, 21 Nov 2026 12:00:00 GMT", temporaryPath: "/tmp/x")
        let decoded = try ResumeData.decode(value.encoded()).get()
        XCTAssertEqual(decoded, value)
        XCTAssertEqual(decoded.ifRange, "\"abc\"")
        var weak = value
        weak.etag = "W/\"abc\""
        XCTAssertEqual(weak.ifRange, "Sat, 21 Nov 2026 12:00:00 GMT", "a weak ETag cannot validate a range")
    }

    func testCorruptAndUnsupportedDataAreRejected() {
        XCTAssertEqual(ResumeData.decode(Data("not json".utf8)).failureValue, .invalidResumeData(reason: "the resume data is corrupt"))
        let future = #"{"version":99,"url":"http://x/","method":"GET","headers":{},"offset":1,"temporaryPath":"/tmp/x"}"#
        XCTAssertEqual(ResumeData.decode(Data(future.utf8)).failureValue, .invalidResumeData(reason: "resume data version 99 is not supported"))
        let negative = #"{"version":1,"url":"http://x/","method":"GET","headers":{},"offset":-5,"temporaryPath":"/tmp/x"}"#
        XCTAssertNotNil(ResumeData.decode(Data(negative.utf8)).failureValue)
    }

    func testContentRangeParsing() {
        XCTAssertEqual(ContentRange.start("bytes 100-199/200"), 100)
        XCTAssertEqual(ContentRange.start("bytes */200"), nil)
        XCTAssertEqual(ContentRange.start("items 1-2/3"), nil)
    }

    func testErrorMessagesAreOneLine() {
        let errors: [TransferError] = [.cancelled, .dnsFailure(host: "x.invalid"), .cannotConnect(host: "127.0.0.1:9", detail: "connection refused"),
                                       .timedOut(.idle, seconds: 1), .timedOut(.resource, seconds: 1.5), .httpStatus(404, body: Data()),
                                       .fileNotFound(path: "/nope"), .invalidResumeData(reason: "the resume data is corrupt")]
        for error in errors {
            XCTAssertFalse(error.message.isEmpty)
            XCTAssertFalse(error.message.contains("\n"))
        }
        XCTAssertEqual(TransferError.timedOut(.resource, seconds: 1.5).message, "Timed out: transfer took longer than 1.5 s")
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
