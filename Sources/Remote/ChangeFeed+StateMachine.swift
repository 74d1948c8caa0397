import Foundation

// The change feed's transitions (ChangeFeed.swift has the types): each call takes the time
// now and answers the effects to carry out, a request or a wait last.

extension ChangeFeed {
    /// Starts the feed: with the changes since `cursor` (a cursor kept from an earlier run),
    /// or with a fresh cursor.
    public mutating func start(from cursor: RemoteCursor? = nil, at now: Double) -> [Effect] {
        guard phase == .idle else { return [] }
        self.cursor = cursor
        opening = true
        return perform(cursor == nil ? .fetchCursor : .fetchChanges(carried: []), at: now)
    }

    /// Stops the feed: answers to requests still in flight and waits that end do nothing.
    public mutating func stop() {
        phase = .stopped
    }

    /// The server answers again (the owner heard from it otherwise): a wait after a failure
    /// ends now, and the feed tries at once. Other waits (a backoff the server asked for, a
    /// pause) are kept.
    public mutating func wake(at now: Double) -> [Effect] {
        guard case .waiting(.failure, let then, _) = phase else { return [] }
        return perform(then, at: now)
    }

    /// Takes what happened to the request in flight or the wait, and answers what to do next.
    /// An event that does not fit (a wait already cut short, an answer after ``stop()``) does nothing.
    public mutating func handle(_ event: Event, at now: Double) -> [Effect] {
        switch (phase, event) {
        case (.waiting(let reason, let then, let token), .waited(let ended)) where ended == token:
            if reason == .serverBackoff { longpollNotBefore = nil }
            return perform(then, at: now)
        case (.requesting(let step), .failed(let error)):
            return failed(step, error, at: now)
        case (.requesting(.fetchCursor), .cursor(let fresh)):
            cursor = fresh
            opening = false
            return [.fresh(fresh)] + succeeded() + perform(.longpoll, at: now)
        case (.requesting(.longpoll), .answered(let answer)):
            return answered(answer, at: now)
        case (.requesting(.fetchChanges(let carried)), .changes(let delta)):
            return changes(delta, carried: carried, at: now)
        default:
            return []
        }
    }

    // MARK: Answers

    private mutating func answered(_ answer: LongpollAnswer, at now: Double) -> [Effect] {
        resetsInARow = 0
        let recovered = succeeded()
        if let seconds = answer.backoff, seconds > 0 { longpollNotBefore = now + seconds }
        if answer.changes { return recovered + perform(.fetchChanges(carried: []), at: now) }
        if answer.backoff == nil, now - longpollStarted < configuration.quickAnswer {
            // A server that answers "nothing" at once would otherwise be asked in a tight loop.
            return recovered + waitFor(configuration.quickAnswer, .quickAnswer, then: .longpoll)
        }
        return recovered + perform(.longpoll, at: now)
    }

    private mutating func changes(_ delta: RemoteChanges, carried: [RemoteChange], at now: Double) -> [Effect] {
        cursor = delta.cursor
        resetsInARow = 0
        let wasOpening = opening
        opening = false
        let recovered = succeeded()
        // A move is journaled as a deletion and an addition, and a longpoll may wake between
        // them: a page of deletions only waits a moment for the rest, so both go on together.
        if let moveWait = configuration.moveWait, !wasOpening, carried.isEmpty, !delta.changes.isEmpty,
           delta.changes.allSatisfy({ if case .deleted = $0 { true } else { false } }) {
            return recovered + waitFor(moveWait, .restOfMove, then: .fetchChanges(carried: delta.changes))
        }
        return [.deliver(carried + delta.changes, cursor: delta.cursor, opening: wasOpening)] + recovered + perform(.longpoll, at: now)
    }

    /// An answer came: after failures, the feed says it works again, and the next failure
    /// waits the first wait.
    private mutating func succeeded() -> [Effect] {
        guard backoff.failures > 0 else { return [] }
        backoff.succeeded()
        return [.recovered]
    }

    // MARK: Failures

    private mutating func failed(_ step: Step, _ error: RemoteError, at now: Double) -> [Effect] {
        if error == .cancelled {
            phase = .stopped
            return []
        }
        var effects: [Effect] = []
        // A page held back for a move's rest goes on anyway.
        if case .fetchChanges(let carried) = step, !carried.isEmpty, let cursor {
            effects.append(.deliver(carried, cursor: cursor, opening: false))
        }
        // After the first cursor fetch, later tries are no longer the opening one.
        if step == .fetchCursor { opening = false }
        if configuration.ends(error, cursor != nil) {
            phase = .ended
            cursor = nil
            opening = false
            return effects + [.end(error)]
        }
        if error == .cursorReset {
            cursor = nil
            resetsInARow += 1
            effects.append(.reset)
            // A server that resets every fresh cursor is waited on like a failing one.
            if resetsInARow > 1 { return effects + failureWait(error) }
            return effects + perform(.fetchCursor, at: now)
        }
        // What waiting alone will not mend (a 400 for a cursor the server gave) starts over
        // from a fresh cursor once the wait is over.
        if !error.isTransient {
            cursor = nil
            opening = false
        }
        return effects + failureWait(error)
    }

    /// Waits out a failure, then catches up from the cursor, or fetches a fresh one.
    private mutating func failureWait(_ error: RemoteError) -> [Effect] {
        let wait = backoff.failed()
        let then: Step = cursor == nil ? .fetchCursor : .fetchChanges(carried: [])
        return [.failing(error, wait: wait, inARow: backoff.failures)] + waitFor(wait, .failure, then: then)
    }

    // MARK: Requests and waits

    private mutating func waitFor(_ seconds: TimeInterval, _ reason: WaitReason, then: Step) -> [Effect] {
        waitToken += 1
        phase = .waiting(reason, then: then, token: waitToken)
        return [.wait(seconds, token: waitToken)]
    }

    private mutating func perform(_ step: Step, at now: Double) -> [Effect] {
        switch step {
        case .fetchCursor:
            cursor = nil
            phase = .requesting(.fetchCursor)
            return [.fetchCursor(opening: opening)]
        case .longpoll:
            guard let cursor else { return perform(.fetchCursor, at: now) }
            if let notBefore = longpollNotBefore, notBefore > now {
                return waitFor(notBefore - now, .serverBackoff, then: .longpoll)
            }
            longpollNotBefore = nil
            longpollStarted = now
            phase = .requesting(.longpoll)
            return [.longpoll(cursor, timeout: configuration.pollTimeout)]
        case .fetchChanges(let carried):
            guard let cursor else { return perform(.fetchCursor, at: now) }
            phase = .requesting(step)
            return [.listChanges(cursor, opening: opening && carried.isEmpty)]
        }
    }
}
