import Remote
import XCTest

/// The transfer queue the app and the agent share, as a value: no tasks, no disk.
final class TransferQueueTests: XCTestCase {
    struct Item: QueuedTransfer, Equatable {
        var id: String
        var queueState: TransferState = .queued
    }

    private func states(_ queue: TransferQueue<Item>) -> [String] {
        queue.items.map { "\($0.id):\($0.queueState.rawValue)" }
    }

    func testAtMostTheLimitRunAndEachEndAdmitsTheOldestWaiting() {
        var queue = TransferQueue<Item>(limit: 2)
        for id in ["a", "b", "c", "d"] { queue.enqueue(Item(id: id, queueState: .done)) }
        XCTAssertEqual(queue.queued.map(\.id), ["a", "b", "c", "d"], "enqueue makes an item wait, whatever it said")
        XCTAssertEqual(queue.admit().map(\.id), ["a", "b"])
        XCTAssertEqual(queue.admit(), [], "no slot is free")
        XCTAssertEqual(queue.end("b", succeeded: false), .running)
        XCTAssertEqual(queue.admit().map(\.id), ["c"])
        XCTAssertEqual(queue.end("a", succeeded: true), .running)
        XCTAssertEqual(queue.admit().map(\.id), ["d"])
        XCTAssertEqual(states(queue), ["a:done", "b:failed", "c:running", "d:running"])
        XCTAssertTrue(queue.isBusy)
    }

    /// Look-ups go by id through an index kept across removals, re-queues and puts: each
    /// finds its own item however the others moved.
    func testLookUpsByIdStayTrueAsItemsComeGoAndMove() throws {
        var queue = TransferQueue<Item>(limit: 2)
        for id in ["a", "b", "c", "d", "e"] { queue.enqueue(Item(id: id)) }
        XCTAssertEqual(queue.remove("b")?.id, "b")
        XCTAssertNil(queue["b"])
        queue.enqueue(Item(id: "a"))
        XCTAssertEqual(queue.items.map(\.id), ["c", "d", "e", "a"], "a re-queued goes to the end")
        queue.update("e") { $0.queueState = .paused }
        queue.put(Item(id: "f", queueState: .running))
        queue.put(Item(id: "c", queueState: .failed))
        XCTAssertEqual(states(queue), ["c:failed", "d:queued", "e:paused", "a:queued", "f:running"], "put replaces in place or adds at the end")
        XCTAssertEqual(queue.end("f", succeeded: true), .running)
        XCTAssertEqual(queue.removeFinished().map(\.id), ["c", "f"])
        for id in ["d", "e", "a"] { XCTAssertEqual(queue[id]?.id, id) }
        XCTAssertNil(queue["c"])
        XCTAssertEqual(try queue.cancel("e").id, "e")
        XCTAssertEqual(queue["e"]?.queueState, .cancelled)
    }

    func testALimitBelowOneStillRunsOne() {
        var queue = TransferQueue<Item>([Item(id: "a"), Item(id: "b")], limit: 0)
        XCTAssertEqual(queue.admit().map(\.id), ["a"])
    }

    func testPauseResumeAndCancelMoveOnlyFromTheStatesThatAllowThem() throws {
        var queue = TransferQueue<Item>([Item(id: "a"), Item(id: "b")], limit: 1)
        _ = queue.admit()
        try queue.pause("a")
        XCTAssertEqual(queue["a"]?.queueState, .paused)
        XCTAssertThrowsError(try queue.pause("a")) { XCTAssertEqual($0 as? TransferQueue<Item>.Refusal, .isAlready(.paused)) }
        XCTAssertEqual(queue.end("a", succeeded: true), .paused, "a paused transfer's task ending leaves it paused")
        XCTAssertEqual(queue["a"]?.queueState, .paused)
        XCTAssertEqual(queue.admit().map(\.id), ["b"], "a pause frees its slot")
        try queue.resume("a")
        XCTAssertEqual(queue["a"]?.queueState, .queued)
        try queue.cancel("b")
        XCTAssertEqual(queue.end("b", succeeded: false), .cancelled)
        XCTAssertEqual(queue["b"]?.queueState, .cancelled, "a cancelled transfer stays cancelled when its task fails")
        XCTAssertThrowsError(try queue.cancel("b")) { XCTAssertEqual($0 as? TransferQueue<Item>.Refusal, .isAlready(.cancelled)) }
        XCTAssertThrowsError(try queue.resume("b")) { XCTAssertEqual($0 as? TransferQueue<Item>.Refusal, .isAlready(.cancelled)) }
        XCTAssertThrowsError(try queue.pause("zz")) { XCTAssertEqual($0 as? TransferQueue<Item>.Refusal, .unknown) }
        XCTAssertNil(queue.end("zz", succeeded: true))
    }

    func testAFailedTransferCanBeResumedAndFinishedOnesAreCleared() throws {
        var queue = TransferQueue<Item>([Item(id: "a"), Item(id: "b"), Item(id: "c")], limit: 3)
        _ = queue.admit()
        queue.end("a", succeeded: false)
        queue.end("b", succeeded: true)
        try queue.resume("a")
        XCTAssertEqual(queue.removeFinished().map(\.id), ["b"])
        XCTAssertEqual(states(queue), ["a:queued", "c:running"])
        XCTAssertEqual(queue.remove("c")?.id, "c")
        XCTAssertEqual(queue.items.map(\.id), ["a"])
    }

    func testAfterACrashWhatWasRunningWaitsAgainInItsPlace() {
        var queue = TransferQueue<Item>([Item(id: "a", queueState: .running), Item(id: "b", queueState: .paused),
                                         Item(id: "c", queueState: .queued)], limit: 1)
        queue.requeueRunning()
        XCTAssertEqual(states(queue), ["a:queued", "b:paused", "c:queued"])
        XCTAssertEqual(queue.admit().map(\.id), ["a"])
        queue.update("a") { $0.id = "a" }
        XCTAssertEqual(queue.runningCount, 1)
    }
}
