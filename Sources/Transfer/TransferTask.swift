import Foundation
import Synchronization

/// One transfer: a data, upload or download task of a `Session`.
///
/// Created suspended; call `resume()` to start it. Properties may be read from any thread.
public final class TransferTask: Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case data, upload, download
    }

    /// The public face of the lifecycle, as in URLSession.
    public enum State: String, Sendable {
        case suspended, running, canceling, completed
    }

    /// How a task gets its request body.
    enum Body: Sendable {
        case none
        case data(Data)
        /// A file, or `length` bytes of it from `offset` (an upload-session chunk).
        case file(URL, offset: Int64, length: Int64?)
        /// `length` bytes of a source from `offset`, made as they are sent.
        case source(any UploadSource, offset: Int64, length: Int64?)
        /// A download continuing from resume data (or failing on corrupt data).
        case resume(Result<ResumeData, TransferError>)
    }

    /// A completion handler, which replaces the data/finish/complete delegate callbacks.
    enum Completion: Sendable {
        case none
        case data(@Sendable (Data?, HTTPResponse?, TransferError?) -> Void)
        case download(@Sendable (URL?, HTTPResponse?, TransferError?) -> Void)
    }

    struct Shared: Sendable {
        var lifecycle = TaskStateMachine()
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        var bytesExpectedToSend: Int64 = 0
        var bytesExpectedToReceive: Int64 = -1
        var response: HTTPResponse?
        var error: TransferError?
        var resumeData: Data?
        var taskDescription: String?
    }

    public let kind: Kind
    /// Unique within its session.
    public let taskIdentifier: Int
    public let originalRequest: Request
    let session: Session
    let body: Body
    let completion: Completion
    let shared = Mutex(Shared())
    /// Set the moment `cancel()` is called, so curl's callbacks can stop a busy transfer before
    /// the session queue gets to the cancel itself (one `socket_action` may move many MiB).
    let cancelRequested = Atomic<Bool>(false)
    /// Body bytes handed to the delegate's queue and not yet taken by it (EasyTransfer+Progress).
    let deliveryBacklog = Atomic<Int>(0)
    /// The transfer paused for that backlog, and waits for the delegate to unpause it.
    let waitingForDelegate = Atomic<Bool>(false)
    /// Where a download's resume data goes as it arrives, not only when it is cancelled: each
    /// ``Checkpoint/interval`` bytes, so a process killed with `kill -9` (nothing runs at its
    /// end) leaves what the next run resumes from. Set before the task starts.
    let checkpoint = Mutex<Checkpoint?>(nil)

    public struct Checkpoint: Sendable {
        public static let interval: Int64 = 4 << 20
        let sink: @Sendable (Data) -> Void
        var next: Int64 = Checkpoint.interval
    }

    /// Hands this download's resume data to `sink` every ``Checkpoint/interval`` bytes written
    /// to its file (the bytes flushed to the file first). Call before ``resume()``.
    public func setCheckpoint(_ sink: @escaping @Sendable (Data) -> Void) {
        checkpoint.withLock { $0 = Checkpoint(sink: sink) }
    }

    init(session: Session, identifier: Int, kind: Kind, request: Request, body: Body, completion: Completion) {
        self.session = session
        self.taskIdentifier = identifier
        self.kind = kind
        self.originalRequest = request
        self.body = body
        self.completion = completion
    }

    public var state: State {
        switch shared.withLock({ $0.lifecycle.state }) {
        case .created, .paused: return .suspended
        case .running: return .running
        case .canceling: return .canceling
        case .completed: return .completed
        }
    }

    public var countOfBytesSent: Int64 { shared.withLock { $0.bytesSent } }
    public var countOfBytesReceived: Int64 { shared.withLock { $0.bytesReceived } }
    public var countOfBytesExpectedToSend: Int64 { shared.withLock { $0.bytesExpectedToSend } }
    /// -1 until a response says how long its body is.
    public var countOfBytesExpectedToReceive: Int64 { shared.withLock { $0.bytesExpectedToReceive } }
    public var response: HTTPResponse? { shared.withLock { $0.response } }
    public var error: TransferError? { shared.withLock { $0.error } }
    /// For a download that failed on a network error after receiving part of the file:
    /// resume data that continues it (the partial file is kept for it).
    public var resumeDataAfterFailure: Data? { shared.withLock { $0.resumeData } }
    public var taskDescription: String? {
        get { shared.withLock { $0.taskDescription } }
        set { shared.withLock { $0.taskDescription = newValue } }
    }

    public var description: String {
        "\(kind)Task#\(taskIdentifier) \(originalRequest.method) \(originalRequest.url.absoluteString) [\(state.rawValue)]"
    }

    /// Starts the task, or continues it after `suspend()`.
    public func resume() {
        shared.withLock { shared in
            // Enqueued under the lock so that actions reach the session queue in the order decided.
            switch shared.lifecycle.resume() {
            case .start: session.queue.async { self.session.start(self) }
            case .unpause: session.queue.async { self.session.setPaused(self, false) }
            case .none: break
            }
        }
    }

    /// Pauses a running task; no bytes move until `resume()`. A task that never started stays as it is.
    public func suspend() {
        shared.withLock { shared in
            if shared.lifecycle.suspend() == .pause {
                session.queue.async { self.session.setPaused(self, true) }
            }
        }
    }

    /// Stops the task at once; it completes with `TransferError.cancelled`.
    public func cancel() {
        cancel(producingResumeData: nil)
    }

    /// Cancels a download and hands back resume data (nil when it cannot be resumed, e.g. nothing
    /// was received yet or the server gave no validator). Called on the delegate queue.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        cancel(producingResumeData: completionHandler)
    }

    private func cancel(producingResumeData handler: (@Sendable (Data?) -> Void)?) {
        shared.withLock { shared in
            let action = shared.lifecycle.cancel()
            if action != .none { cancelRequested.store(true, ordering: .relaxed) }
            switch action {
            case .completeUnstarted:
                session.queue.async { self.session.cancelUnstarted(self, resumeDataHandler: handler) }
            case .abort:
                session.queue.async { self.session.abort(self, resumeDataHandler: handler) }
            case .none:
                if let handler { session.delegateQueue.async { handler(nil) } }
            }
        }
    }
}
