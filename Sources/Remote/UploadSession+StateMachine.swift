import Foundation

/// The upload-session loop (`upload_session/start`, `append_v2`, `finish`) as a value with no
/// side effects.
///
/// `DropboxStore` feeds it what happened (a request succeeded, failed, a wait ended, the token
/// was refreshed, the task was cancelled) and carries out the action it returns: send a
/// request for a range of the file, wait, refresh the token, verify a commit, or end.
///
/// The server's offset is the truth. After a failure the next request goes out at the offset
/// we believe; an `incorrect_offset` answer moves us to the server's `correct_offset`. So a
/// dropped connection costs only the bytes in flight, never a restart. A `finish` may have
/// committed even when its answer was lost: it is retried like any request, and if the
/// session has since vanished (`not_found`) the owner checks what landed at the path instead
/// of failing.
struct UploadSessionStateMachine: Sendable, Equatable {
    /// One request of the session, with the range of the file its body carries.
    enum Request: Sendable, Equatable {
        /// `upload_session/start` with the file's first `length` bytes.
        case start(length: Int64)
        /// `upload_session/append_v2` at `offset`, not closing the session.
        case append(sessionID: String, offset: Int64, length: Int64)
        /// `upload_session/finish` at `offset` with the last `length` bytes, committing the file.
        case finish(sessionID: String, offset: Int64, length: Int64)

        /// Where the body starts in the file.
        var offset: Int64 {
            switch self {
            case .start: return 0
            case .append(_, let offset, _), .finish(_, let offset, _): return offset
            }
        }

        var length: Int64 {
            switch self {
            case .start(let length), .append(_, _, let length), .finish(_, _, let length): return length
            }
        }
    }

    /// How long to wait before trying again.
    enum Delay: Sendable, Equatable {
        /// Exponential backoff after this many earlier failures (``RetryPolicy/delay(afterAttempt:)``).
        case backoff(attempt: Int)
        /// The server's `Retry-After`, in seconds.
        case retryAfter(TimeInterval)
    }

    /// Why a request failed, as the owner reads the reply.
    enum Failure: Sendable, Equatable {
        /// A 409 `incorrect_offset`: the server holds `correct` bytes of the session.
        case incorrectOffset(correct: Int64)
        /// Any other 409: the endpoint refused. `summary` is Dropbox's `error_summary`.
        case refused(RemoteError, summary: String)
        /// Everything else: the network, 401, 429, 5xx, a local file error, a cancel.
        case error(RemoteError)
    }

    enum Action: Sendable, Equatable {
        /// Report `reportProgress` bytes done (when set), then send `request`.
        case send(Request, reportProgress: Int64?)
        /// Sleep, then call ``waited()``.
        case wait(Delay)
        /// Ask the token provider for a fresh token, then call ``tokenRefreshed(_:)``.
        case refreshToken
        /// A finish committed but its answer was lost: check the path holds our content.
        case verifyCommitted
        case succeed(RemoteEntry)
        case fail(RemoteError)
    }

    enum State: Sendable, Equatable {
        case idle
        case sending(Request)
        case waiting
        case refreshing
        /// A terminal action was returned; nothing more happens.
        case done
    }

    let size: Int64
    let chunkSize: Int64
    let maxAttempts: Int
    let maxRetryAfter: TimeInterval
    /// The policy's rule for a refused connection (``RetryPolicy/refusedAttempts``), and what the
    /// command's other requests learnt of it (``RetryBudget``).
    let refusedAttempts: Int
    let budget: RetryBudget

    private(set) var state: State = .idle
    private(set) var sessionID: String?
    /// The number of bytes we believe the session holds.
    private(set) var offset: Int64 = 0
    /// Failures in a row since the last progress; reset by every success.
    private(set) var failures = 0
    /// A finish was sent at least once, so the file may be committed already.
    private(set) var finishTried = false

    /// `upload_session/start` carries no bytes: the session's id is known (and can be handed to
    /// another process) before the first chunk goes, so a process that dies in that chunk
    /// leaves a session to continue rather than one nobody can name.
    let emptyStart: Bool

    init(size: Int64, chunkSize: Int64, retry: RetryPolicy, emptyStart: Bool = false) {
        self.size = size
        self.chunkSize = chunkSize
        self.emptyStart = emptyStart
        self.maxAttempts = retry.maxAttempts
        self.maxRetryAfter = retry.maxRetryAfter
        self.refusedAttempts = retry.refusedAttempts
        self.budget = retry.budget
    }

    /// A session that an earlier process began: the first request appends at `offset`, and an
    /// `incorrect_offset` answer moves it to what the server really holds (the background
    /// agent, after a `kill -9`, resumes its journal's sessions this way).
    init(size: Int64, chunkSize: Int64, retry: RetryPolicy, resuming sessionID: String, offset: Int64) {
        self.init(size: size, chunkSize: chunkSize, retry: retry)
        self.sessionID = sessionID
        self.offset = min(max(0, offset), size)
    }

    // MARK: - Events

    /// The first request.
    mutating func begin() -> Action {
        precondition(state == .idle, "begin() twice")
        return send(reportProgress: nil)
    }

    /// `upload_session/start` answered, with the session id or (when its answer was garbled) without.
    mutating func started(sessionID id: String?) -> Action {
        guard case .sending(.start(let length)) = state else { preconditionFailure("started() while \(state)") }
        guard let id else {
            // Started, but the answer was lost: that session is unusable. Start again.
            return retry(after: .server(status: 0, detail: "upload_session/start answered without a session id"))
        }
        sessionID = id
        offset = length
        failures = 0
        return send(reportProgress: offset)
    }

    /// `append_v2` took its chunk.
    mutating func appended() -> Action {
        guard case .sending(.append(_, let at, let length)) = state else { preconditionFailure("appended() while \(state)") }
        offset = at + length
        failures = 0
        return send(reportProgress: offset)
    }

    /// `finish` answered: with the committed file's metadata, or nil when its answer was cut short.
    mutating func finished(_ entry: RemoteEntry?) -> Action {
        guard case .sending(.finish) = state else { preconditionFailure("finished() while \(state)") }
        state = .done
        guard let entry else {
            // Committed, but the answer was cut short: the owner asks for the metadata.
            return .verifyCommitted
        }
        return .succeed(entry)
    }

    /// The request in flight failed.
    mutating func failed(_ failure: Failure) -> Action {
        guard case .sending = state else { preconditionFailure("failed() while \(state)") }
        switch failure {
        case .incorrectOffset(let correct):
            // The server has more (or less) than we thought: continue from its offset.
            offset = correct
            failures = 0
            return send(reportProgress: nil)
        case .refused(let error, let summary):
            state = .done
            if finishTried, sessionID != nil, summary.contains("not_found") {
                // The session is gone: an earlier finish committed it and its answer was lost.
                return .verifyCommitted
            }
            return .fail(error)
        case .error(let error):
            if error == .cancelled { return cancelled() }
            if case .server(401, _) = error {
                state = .refreshing
                return .refreshToken
            }
            guard error.isTransient else {
                state = .done
                return .fail(error)
            }
            return retry(after: error)
        }
    }

    /// The wait of a ``Action/wait(_:)`` is over.
    mutating func waited() -> Action {
        precondition(state == .waiting, "waited() while \(state)")
        return send(reportProgress: nil)
    }

    /// The token provider answered a ``Action/refreshToken``.
    /// `credential` is what the server refused, for the failure's message.
    mutating func tokenRefreshed(_ refreshed: Bool, credential: RemoteError.Credential) -> Action {
        precondition(state == .refreshing, "tokenRefreshed() while \(state)")
        guard refreshed else {
            state = .done
            return .fail(.unauthorized(credential))
        }
        return send(reportProgress: nil)
    }

    /// The Swift task was cancelled: legal at any time.
    mutating func cancelled() -> Action {
        state = .done
        return .fail(.cancelled)
    }

    // MARK: - Helpers

    /// The request that comes next from where the session stands.
    private mutating func send(reportProgress: Int64?) -> Action {
        let request: Request
        if let sessionID {
            let length = min(chunkSize, size - offset)
            if offset + length >= size {
                finishTried = true
                request = .finish(sessionID: sessionID, offset: offset, length: length)
            } else {
                request = .append(sessionID: sessionID, offset: offset, length: length)
            }
        } else {
            request = .start(length: emptyStart ? 0 : min(chunkSize, size))
        }
        state = .sending(request)
        return .send(request, reportProgress: reportProgress)
    }

    /// Counts a transient failure and waits, or gives up when the retries are spent.
    private mutating func retry(after error: RemoteError) -> Action {
        failures += 1
        guard failures < maxAttempts else {
            state = .done
            return .fail(error)
        }
        // Nothing listens there: said as every request of the store says it (RetryPolicy.pause).
        if error.isRefused, budget.refusedForGood || failures >= refusedAttempts {
            budget.refused()
            state = .done
            return .fail(error)
        }
        let delay: Delay
        if case .rateLimited(let seconds) = error {
            guard seconds <= maxRetryAfter else {
                state = .done
                return .fail(error)
            }
            delay = .retryAfter(seconds)
        } else {
            delay = .backoff(attempt: failures - 1)
        }
        state = .waiting
        return .wait(delay)
    }
}
