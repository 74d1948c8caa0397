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

    /// Sends a request that fails unreachable and one that is answered (`answerSentFirst`: in
    /// which order), lets the failure end first and then the answer: what the app was told.
    private func told(answerSentFirst: Bool) async -> [String] {
        let context = context()
        let answer = Gate(), failure = Gate()
        let answered = expectation(description: "the answer"), failed = expectation(description: "the failure")
        if answerSentFirst { send(context, answer, fails: false, done: answered) }
        send(context, failure, fails: true, done: failed)
        if !answerSentFirst { send(context, answer, fails: false, done: answered) }
        await failure.release()
        await fulfillment(of: [failed], timeout: 10)
        await answer.release()
        await fulfillment(of: [answered], timeout: 10)
        return told
    }

    func testAProbeSentBeforeAnOlderRequestTimesOutStillSaysTheServerIsBack() async {
        // Before, the older request's failure (after the probe was sent) voided the probe's answer:
        // the app stayed offline while the server answered every probe.
        let told = await told(answerSentFirst: false)
        XCTAssertEqual(told, ["unreachable", "there"])
    }

    func testALateAnswerToARequestSentBeforeOneThatFoundTheServerGoneDoesNotCount() async {
        let told = await told(answerSentFirst: true)
        XCTAssertEqual(told, ["unreachable"], "the server may have answered it just before it went")
    }
}
