@testable import ByteClubApp
import Foundation
import Logging
import Remote
import TerminalUI
import XCTest

/// Whether an answer says the server is there (``AppContext/perform(_:then:)``) goes by when each
/// request was sent: an answer to a request sent before one that found the server unreachable
/// does not count, and one sent after does, however late the older request's failure comes.
@MainActor
final class ReachabilityOrderTests: XCTestCase {
    /// Holds a request's work until the test lets it end.
    actor Gate {
        private var open = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        func wait() async {
            if open { return }
            await withCheckedContinuation { waiting.append($0) }
        }
        func release() {
            open = true
            waiting.forEach { $0.resume() }
            waiting = []
        }
    }

    private var told: [String] = []

    private func context() -> AppContext {
        let store = DropboxStore(displayName: "nowhere", endpoints: .club(URL(string: "http://127.0.0.1:9")!), tokens: StaticToken("t"),
                                 configuration: .ephemeral)
        let configuration = AppConfiguration()
        let model = AppModel(state: AppState(backend: "nowhere", clubFolder: configuration.layout.folder), format: configuration.format)
        model.onReachability = { [weak self] error in self?.told.append(error == nil ? "there" : "unreachable") }
        return AppContext(store: store, configuration: configuration, model: model, effects: MainQueueEffects(), compositor: Compositor(),
                          logger: Logger(label: "reachability-order-tests"))
    }

    /// Sends a request whose work waits for `gate`, then fails unreachable or answers.
    private func send(_ context: AppContext, _ gate: Gate, fails: Bool, done: XCTestExpectation) {
        context.perform({ () async throws(RemoteError) in
            await gate.wait()
            if fails { throw RemoteError.network("timed out") }
        }) { _ in done.fulfill() }
    }

    func testAProbeSentBeforeAnOlderRequestTimesOutStillSaysTheServerIsBack() async {
        let context = context()
        let older = Gate(), probe = Gate()
        let olderDone = expectation(description: "the older request's failure"), probeDone = expectation(description: "the probe's answer")
        send(context, older, fails: true, done: olderDone)
        send(context, probe, fails: false, done: probeDone)
        await older.release()
        await fulfillment(of: [olderDone], timeout: 10)
        await probe.release()
        await fulfillment(of: [probeDone], timeout: 10)
        // Before, the older request's failure (after the probe was sent) voided the probe's answer:
        // the app stayed offline while the server answered every probe.
        XCTAssertEqual(told, ["unreachable", "there"])
    }

    func testALateAnswerToARequestSentBeforeOneThatFoundTheServerGoneDoesNotCount() async {
        let context = context()
        let earlier = Gate(), later = Gate()
        let earlierDone = expectation(description: "the earlier request's answer"), laterDone = expectation(description: "the later one's failure")
        send(context, earlier, fails: false, done: earlierDone)
        send(context, later, fails: true, done: laterDone)
        await later.release()
        await fulfillment(of: [laterDone], timeout: 10)
        await earlier.release()
        await fulfillment(of: [earlierDone], timeout: 10)
        XCTAssertEqual(told, ["unreachable"], "the server may have answered it just before it went")
    }
}
