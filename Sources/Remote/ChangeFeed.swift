import Foundation

/// One folder's change feed as a value: a cursor, then longpoll → changes → longpoll, with the
/// waits between them. Events go in (an answer, a failure, a wait that ended), effects come out
/// (the request to make next, a wait, changes to hand on, what to say), and the owner carries
/// the effects out. It does no I/O and reads no clock: every call is given the time.
///
/// The app's `LiveUpdates` (one feed per tab) and the CLI's `byteclub watch` both drive
/// one. The loop:
///
/// - No cursor: fetch one (``Effect/fetchCursor(opening:)``); with it comes ``Effect/fresh(_:)``,
///   the owner's cue to take a listing at it (in that order: a change made between them comes
///   again as a change, and is no news if the listing had it).
/// - A cursor from before (a disk cache, or one kept across a failure): catch up with the
///   changes since it.
/// - Waiting: a longpoll. A server that answers "nothing" at once, without asking for a
///   backoff, is asked again only after ``Configuration/quickAnswer`` (a pause, not a tight
///   loop); a backoff the server asked for is waited out before the next longpoll.
/// - "Changes": the changes since the cursor, handed on (``Effect/deliver(_:cursor:opening:)``).
///   A page of deletions only may wait ``Configuration/moveWait`` for the rest of a move.
/// - A failure waits (``Backoff``: longer each time in a row, back to the first wait after any
///   success), keeping the cursor unless waiting alone will not mend it, and then catches up
///   from that cursor (or fetches a fresh one). A `reset` fetches a fresh cursor at once, and
///   waits like a failure when it comes twice with no answer between. What cannot work
///   (``Configuration/ends``) ends the feed.
public struct ChangeFeed: Sendable {
    /// How a feed waits, and which errors end it.
    public struct Configuration: Sendable {
        /// Seconds each longpoll waits at the server.
        public var pollTimeout: TimeInterval
        /// The waits after failures in a row.
        public var backoff: Backoff
        /// A longpoll answered "nothing" sooner than this (and without a backoff) waits this
        /// long before the next.
        public var quickAnswer: TimeInterval
        /// How long a page of deletions only waits for the rest of a move (its addition) before
        /// it is handed on; nil hands every page on at once.
        public var moveWait: TimeInterval?
        /// Errors that end the feed, given whether it has a cursor. `.cancelled` always stops it.
        public var ends: @Sendable (RemoteError, _ hasCursor: Bool) -> Bool

        public init(pollTimeout: TimeInterval = 30, backoff: Backoff = Backoff(), quickAnswer: TimeInterval = 1,
                    moveWait: TimeInterval? = nil, ends: @escaping @Sendable (RemoteError, _ hasCursor: Bool) -> Bool = Self.cannotWork) {
            self.pollTimeout = pollTimeout
            self.backoff = backoff
            self.quickAnswer = quickAnswer
            self.moveWait = moveWait
            self.ends = ends
        }

        /// The default end: a refused token (a member removed too), or a store that has no change feed.
        @Sendable public static func cannotWork(_ error: RemoteError, hasCursor: Bool) -> Bool {
            switch error {
            case .unauthorized, .forbidden, .notSupported: return true
            default: return false
            }
        }
    }

    /// A request the feed makes.
    public enum Step: Sendable, Equatable {
        /// A fresh cursor (`get_latest_cursor`).
        case fetchCursor
        /// A longpoll at the cursor.
        case longpoll
        /// The changes since the cursor; `carried` are a page held back for the rest of a move.
        case fetchChanges(carried: [RemoteChange])
    }

    /// Why the feed waits.
    public enum WaitReason: Sendable, Equatable {
        /// A failure: ``ChangeFeed/wake(at:)`` cuts it short.
        case failure
        /// A longpoll answered "nothing" at once.
        case quickAnswer
        /// The server asked for a backoff before the next longpoll.
        case serverBackoff
        /// A page of deletions waits for the rest of a move.
        case restOfMove
    }

    /// Where the feed is.
    public enum Phase: Sendable, Equatable {
        /// Not started.
        case idle
        /// A request is in flight; its answer or failure is the next event.
        case requesting(Step)
        /// Waiting; ``Event/waited(token:)`` with this token ends it, and `then` follows.
        case waiting(WaitReason, then: Step, token: Int)
        /// Ended by an error that cannot be waited out (``Effect/end(_:)``).
        case ended
        /// Stopped: cancelled, or ``ChangeFeed/stop()``.
        case stopped
    }

    /// What the owner must do. Effects come in order; a request or a wait, when there is one,
    /// is last, and its outcome is the next ``Event``.
    public enum Effect: Sendable, Equatable {
        /// Fetch a fresh cursor of the folder; answer ``Event/cursor(_:)``. `opening`: the feed's
        /// first request (the list has nothing live yet).
        case fetchCursor(opening: Bool)
        /// Longpoll at the cursor; answer ``Event/answered(_:)``.
        case longpoll(RemoteCursor, timeout: TimeInterval)
        /// List the changes since the cursor; answer ``Event/changes(_:)``. `opening`: catching
        /// up a cursor from before this run, the feed's first request.
        case listChanges(RemoteCursor, opening: Bool)
        /// Wait, then answer ``Event/waited(token:)`` with the token.
        case wait(TimeInterval, token: Int)
        /// A fresh cursor: take a listing of the folder at it as the whole truth.
        case fresh(RemoteCursor)
        /// Changes to apply, and the cursor after them. `opening`: they bring a cursor from
        /// before this run up to date.
        case deliver([RemoteChange], cursor: RemoteCursor, opening: Bool)
        /// The server reset the cursor: the feed lists again.
        case reset
        /// A failure: the feed waits `wait` seconds; `inARow` counts the failures since the
        /// last success (1 for the first).
        case failing(RemoteError, wait: TimeInterval, inARow: Int)
        /// An answer after failures: the feed works again.
        case recovered
        /// The feed ends: this cannot be waited out.
        case end(RemoteError)
    }

    /// What happened.
    public enum Event: Sendable, Equatable {
        /// ``Effect/fetchCursor(opening:)`` answered.
        case cursor(RemoteCursor)
        /// ``Effect/longpoll(_:timeout:)`` answered.
        case answered(LongpollAnswer)
        /// ``Effect/listChanges(_:opening:)`` answered.
        case changes(RemoteChanges)
        /// The request in flight failed.
        case failed(RemoteError)
        /// A ``Effect/wait(_:token:)`` ended.
        case waited(token: Int)
    }

    public let configuration: Configuration
    public internal(set) var phase: Phase = .idle
    /// The cursor the feed is at (nil while it fetches one, or after it ended).
    public internal(set) var cursor: RemoteCursor?
    /// The failures in a row and the wait they call for.
    public internal(set) var backoff: Backoff
    /// Resets with no longpoll answered nor change page between them.
    public internal(set) var resetsInARow = 0
    /// The feed's first request has not been answered yet (``Effect/fetchCursor(opening:)``).
    public internal(set) var opening = false
    /// When the longpoll in flight started (for ``Configuration/quickAnswer``).
    var longpollStarted: Double = 0
    /// No longpoll before this time: the backoff the server asked for.
    var longpollNotBefore: Double?
    /// The last wait's token (a wait cut short by ``wake(at:)`` then does nothing).
    var waitToken = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        backoff = configuration.backoff
    }

    /// Failures in a row since the last success.
    public var failures: Int { backoff.failures }

    /// Whether the feed is waiting out a failure (``wake(at:)`` would end the wait).
    public var isWaitingOutFailure: Bool {
        if case .waiting(.failure, _, _) = phase { return true }
        return false
    }
}
