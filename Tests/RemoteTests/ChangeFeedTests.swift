import Foundation
import Remote
import XCTest

/// The change feed as a value: events in, effects out, with no store, disk or clock (each call
/// is given its time).
final class ChangeFeedTests: XCTestCase {
    let folder = "/byteclub"

    func cursor(_ value: String) -> RemoteCursor { RemoteCursor(folder: folder, recursive: false, value: value) }

    func entry(_ name: String) -> RemoteEntry {
        RemoteEntry(kind: .file, name: name, path: "\(folder)/\(name)", rev: "r1", size: 1)
    }

    func deleted(_ name: String) -> RemoteChange { .deleted(name: name, path: "\(folder)/\(name)", pathLower: "\(folder)/\(name)".lowercased()) }

    /// A feed past its opening: longpolling at cursor "a" since time 0.
    func polling(_ configuration: ChangeFeed.Configuration = .init()) -> ChangeFeed {
        var feed = ChangeFeed(configuration: configuration)
        _ = feed.start(at: 0)
        _ = feed.handle(.cursor(cursor("a")), at: 0)
        return feed
    }

    /// The token of the wait among `effects`.
    func token(_ effects: [ChangeFeed.Effect]) -> Int? {
        for case .wait(_, let token) in effects { return token }
        return nil
    }

    // MARK: The loop

    func testAFreshCursorIsListedThenLongpolled() {
        var feed = ChangeFeed()
        XCTAssertEqual(feed.start(at: 0), [.fetchCursor(opening: true)])
        XCTAssertTrue(feed.opening)
        XCTAssertEqual(feed.handle(.cursor(cursor("a")), at: 0.2), [.fresh(cursor("a")), .longpoll(cursor("a"), timeout: 30)])
        XCTAssertEqual(feed.cursor, cursor("a"))
        XCTAssertFalse(feed.opening)
        XCTAssertEqual(feed.handle(.answered(LongpollAnswer(changes: true)), at: 5), [.listChanges(cursor("a"), opening: false)])
        let page = RemoteChanges(changes: [.updated(entry("n.txt"))], cursor: cursor("b"))
        XCTAssertEqual(feed.handle(.changes(page), at: 5.1),
                       [.deliver([.updated(entry("n.txt"))], cursor: cursor("b"), opening: false), .longpoll(cursor("b"), timeout: 30)])
        XCTAssertEqual(feed.phase, .requesting(.longpoll))
    }

    func testACachedCursorCatchesUpFirst() {
        var feed = ChangeFeed(configuration: .init(pollTimeout: 120))
        XCTAssertEqual(feed.start(from: cursor("old"), at: 0), [.listChanges(cursor("old"), opening: true)])
        let page = RemoteChanges(changes: [deleted("x.txt")], cursor: cursor("new"))
        XCTAssertEqual(feed.handle(.changes(page), at: 1), [.deliver([deleted("x.txt")], cursor: cursor("new"), opening: true),
                                                           .longpoll(cursor("new"), timeout: 120)],
                       "a catch-up is handed on at once, even with a move wait: there is no rest to wait for")
        XCTAssertEqual(feed.start(at: 2), [], "a feed starts once")
    }

    func testAnAnswerThatDoesNotFitDoesNothing() {
        var feed = polling()
        XCTAssertEqual(feed.handle(.cursor(cursor("z")), at: 1), [], "no cursor was asked for")
        XCTAssertEqual(feed.handle(.waited(token: 7), at: 1), [])
        XCTAssertEqual(feed.cursor, cursor("a"))
        XCTAssertEqual(feed.phase, .requesting(.longpoll))
    }

    // MARK: Longpoll answers

    func testANothingAnsweredAtOnceWaitsASecond() {
        var feed = polling()
        let effects = feed.handle(.answered(LongpollAnswer(changes: false)), at: 0.3)
        XCTAssertEqual(effects, [.wait(1, token: token(effects)!)])
        XCTAssertEqual(feed.wake(at: 0.5), [], "only a failure's wait is cut short")
        XCTAssertEqual(feed.handle(.waited(token: token(effects)!), at: 1.3), [.longpoll(cursor("a"), timeout: 30)])
        // After a real wait at the server, the next longpoll goes at once.
        XCTAssertEqual(feed.handle(.answered(LongpollAnswer(changes: false)), at: 31.3), [.longpoll(cursor("a"), timeout: 30)])
    }

    func testTheServersBackoffIsWaitedOutBeforeTheNextLongpoll() {
        var feed = polling()
        let effects = feed.handle(.answered(LongpollAnswer(changes: false, backoff: 10)), at: 0.2)
        XCTAssertEqual(effects, [.wait(10, token: token(effects)!)], "no quick-answer pause on top of the server's backoff")
        XCTAssertEqual(feed.handle(.waited(token: token(effects)!), at: 10.2), [.longpoll(cursor("a"), timeout: 30)])

        // With changes, the changes come first; the longpoll after them waits what is left.
        _ = feed.handle(.answered(LongpollAnswer(changes: true, backoff: 5)), at: 20)
        let after = feed.handle(.changes(RemoteChanges(changes: [], cursor: cursor("b"))), at: 21)
        XCTAssertEqual(after, [.deliver([], cursor: cursor("b"), opening: false), .wait(4, token: token(after)!)])
        XCTAssertEqual(feed.handle(.waited(token: token(after)!), at: 25), [.longpoll(cursor("b"), timeout: 30)])
        // A backoff already over costs nothing.
        _ = feed.handle(.answered(LongpollAnswer(changes: true, backoff: 1)), at: 60)
        XCTAssertEqual(feed.handle(.changes(RemoteChanges(changes: [], cursor: cursor("c"))), at: 62),
                       [.deliver([], cursor: cursor("c"), opening: false), .longpoll(cursor("c"), timeout: 30)])
    }

    // MARK: Failures

    func testFailuresWaitLongerEachTimeUpToTheCapAndASuccessStartsOver() {
        var feed = ChangeFeed(configuration: .init(backoff: Backoff(first: 0.5, longest: 30)))
        _ = feed.start(at: 0)
        var waits: [TimeInterval] = []
        var now = 0.0
        for round in 1...9 {
            let effects = feed.handle(.failed(.network("Connection refused")), at: now)
            guard case .failing(let error, let wait, let inARow) = effects.first, let token = token(effects) else {
                return XCTFail("no wait: \(effects)")
            }
            XCTAssertEqual(error, .network("Connection refused"))
            XCTAssertEqual(inARow, round)
            XCTAssertEqual(feed.failures, round, "counted in the same call that schedules the wait")
            waits.append(wait)
            now += wait
            XCTAssertEqual(feed.handle(.waited(token: token), at: now), [.fetchCursor(opening: false)], "later tries are no opening")
        }
        XCTAssertEqual(waits, [0.5, 1, 2, 4, 8, 16, 30, 30, 30])
        XCTAssertEqual(feed.handle(.cursor(cursor("a")), at: now), [.fresh(cursor("a")), .recovered, .longpoll(cursor("a"), timeout: 30)])
        XCTAssertEqual(feed.failures, 0)
        let effects = feed.handle(.failed(.network("reset")), at: now + 1)
        XCTAssertEqual(effects.first, .failing(.network("reset"), wait: 0.5, inARow: 1), "the first wait again")
    }

    func testTheCursorIsKeptAcrossATransientFailureAndCaughtUpFrom() {
        var feed = polling()
        let effects = feed.handle(.failed(.gateway(status: 502, proxy: "proxy:443", retryAfter: nil)), at: 3)
        XCTAssertEqual(effects.count, 2)
        XCTAssertEqual(feed.cursor, cursor("a"))
        XCTAssertEqual(feed.handle(.waited(token: token(effects)!), at: 3.5), [.listChanges(cursor("a"), opening: false)],
                       "what changed meanwhile comes from the cursor")
        let second = feed.handle(.failed(.network("down")), at: 4)
        XCTAssertEqual(second.first, .failing(.network("down"), wait: 1, inARow: 2))
        XCTAssertEqual(feed.handle(.waited(token: token(second)!), at: 5), [.listChanges(cursor("a"), opening: false)])
        XCTAssertEqual(feed.handle(.changes(RemoteChanges(changes: [], cursor: cursor("b"))), at: 5.2),
                       [.deliver([], cursor: cursor("b"), opening: false), .recovered, .longpoll(cursor("b"), timeout: 30)])
    }

    func testWhatWaitingWillNotMendStartsOverFromAFreshCursor() {
        var feed = polling()
        let effects = feed.handle(.failed(.server(status: 400, detail: "bad cursor")), at: 1)
        XCTAssertNil(feed.cursor)
        XCTAssertEqual(feed.handle(.waited(token: token(effects)!), at: 1.5), [.fetchCursor(opening: false)])
    }

    func testWakeEndsAFailuresWaitAndTheOldWaitThenDoesNothing() {
        var feed = polling()
        let effects = feed.handle(.failed(.network("down")), at: 1)
        XCTAssertTrue(feed.isWaitingOutFailure)
        XCTAssertEqual(feed.wake(at: 1.1), [.listChanges(cursor("a"), opening: false)])
        XCTAssertEqual(feed.wake(at: 1.2), [], "nothing is waiting any more")
        XCTAssertEqual(feed.handle(.waited(token: token(effects)!), at: 1.5), [], "the wait that was cut short")
        XCTAssertEqual(feed.phase, .requesting(.fetchChanges(carried: [])))
    }

    func testWhatCannotWorkEndsTheFeed() {
        var feed = polling()
        XCTAssertEqual(feed.handle(.failed(.unauthorized(.memberToken)), at: 1), [.end(.unauthorized(.memberToken))])
        XCTAssertEqual(feed.phase, .ended)
        XCTAssertNil(feed.cursor)
        XCTAssertEqual(feed.handle(.waited(token: 1), at: 2), [])

        var plain = ChangeFeed()
        _ = plain.start(at: 0)
        XCTAssertEqual(plain.handle(.failed(.notSupported("change cursors")), at: 0), [.end(.notSupported("change cursors"))])
    }

    func testTheOwnerDecidesWhatElseEndsIt() {
        // The app's rule: a server without the cursor endpoint ends the feed, but only before a cursor.
        let configuration = ChangeFeed.Configuration(ends: { error, hasCursor in
            if case .server(404, _) = error { return !hasCursor }
            return ChangeFeed.Configuration.cannotWork(error, hasCursor: hasCursor)
        })
        var feed = ChangeFeed(configuration: configuration)
        _ = feed.start(at: 0)
        XCTAssertEqual(feed.handle(.failed(.server(status: 404, detail: "no such endpoint")), at: 0), [.end(.server(status: 404, detail: "no such endpoint"))])
        var later = polling(configuration)
        let effects = later.handle(.failed(.server(status: 404, detail: "gone")), at: 1)
        XCTAssertEqual(effects.first, .failing(.server(status: 404, detail: "gone"), wait: 0.5, inARow: 1))
    }

    func testCancelledStopsQuietly() {
        var feed = polling()
        XCTAssertEqual(feed.handle(.failed(.cancelled), at: 1), [])
        XCTAssertEqual(feed.phase, .stopped)
        var stopped = polling()
        stopped.stop()
        XCTAssertEqual(stopped.handle(.answered(LongpollAnswer(changes: true)), at: 1), [])
    }

    // MARK: Resets

    func testAResetListsAgainAtOnceAndASecondInARowWaits() {
        var feed = polling()
        XCTAssertEqual(feed.handle(.failed(.cursorReset), at: 1), [.reset, .fetchCursor(opening: false)])
        XCTAssertNil(feed.cursor)
        XCTAssertEqual(feed.failures, 0, "a reset is no failure")
        XCTAssertEqual(feed.handle(.cursor(cursor("b")), at: 1.1), [.fresh(cursor("b")), .longpoll(cursor("b"), timeout: 30)])
        // The fresh cursor is reset too before anything was answered: wait, as for a failure.
        let effects = feed.handle(.failed(.cursorReset), at: 1.2)
        XCTAssertEqual(effects, [.reset, .failing(.cursorReset, wait: 0.5, inARow: 1), .wait(0.5, token: token(effects)!)])
        XCTAssertEqual(feed.handle(.waited(token: token(effects)!), at: 1.7), [.fetchCursor(opening: false)])
        // An answer between resets makes the next one the first again.
        _ = feed.handle(.cursor(cursor("c")), at: 2)
        _ = feed.handle(.answered(LongpollAnswer(changes: true)), at: 10)
        XCTAssertEqual(feed.resetsInARow, 0)
        XCTAssertEqual(feed.handle(.failed(.cursorReset), at: 11), [.reset, .fetchCursor(opening: false)])
    }

    func testACachedCursorTheServerForgotListsAgainAsTheOpening() {
        var feed = ChangeFeed()
        _ = feed.start(from: cursor("old"), at: 0)
        XCTAssertEqual(feed.handle(.failed(.cursorReset), at: 0.1), [.reset, .fetchCursor(opening: true)])
    }

    func testAFailedCatchUpTriesAgainAsTheOpening() {
        var feed = ChangeFeed()
        _ = feed.start(from: cursor("old"), at: 0)
        let effects = feed.handle(.failed(.network("offline")), at: 0.1)
        XCTAssertEqual(feed.handle(.waited(token: token(effects)!), at: 0.6), [.listChanges(cursor("old"), opening: true)])
    }

    // MARK: Moves

    func testAPageOfDeletionsWaitsForTheRestOfAMove() {
        var feed = polling(.init(moveWait: 0.1))
        _ = feed.handle(.answered(LongpollAnswer(changes: true)), at: 2)
        let held = feed.handle(.changes(RemoteChanges(changes: [deleted("a.txt")], cursor: cursor("b"))), at: 2.1)
        XCTAssertEqual(held, [.wait(0.1, token: token(held)!)])
        XCTAssertEqual(feed.cursor, cursor("b"))
        XCTAssertEqual(feed.handle(.waited(token: token(held)!), at: 2.2), [.listChanges(cursor("b"), opening: false)])
        let rest = RemoteChanges(changes: [.updated(entry("b.txt"))], cursor: cursor("c"))
        XCTAssertEqual(feed.handle(.changes(rest), at: 2.3),
                       [.deliver([deleted("a.txt"), .updated(entry("b.txt"))], cursor: cursor("c"), opening: false),
                        .longpoll(cursor("c"), timeout: 30)])
    }

    func testAHeldPageGoesOnWhenTheRestFails() {
        var feed = polling(.init(moveWait: 0.1))
        _ = feed.handle(.answered(LongpollAnswer(changes: true)), at: 2)
        let held = feed.handle(.changes(RemoteChanges(changes: [deleted("a.txt")], cursor: cursor("b"))), at: 2.1)
        _ = feed.handle(.waited(token: token(held)!), at: 2.2)
        let effects = feed.handle(.failed(.network("down")), at: 2.3)
        XCTAssertEqual(effects.first, .deliver([deleted("a.txt")], cursor: cursor("b"), opening: false))
        XCTAssertEqual(effects.dropFirst().first, .failing(.network("down"), wait: 0.5, inARow: 1))
    }
}
