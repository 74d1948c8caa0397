import Foundation
import Synchronization
import Transfer

/// One ranged GET whose answer is written where it belongs as it arrives, rather than
/// gathered into memory first: what keeps a parallel download's memory independent of its
/// block size (``ParallelDownload``).
///
/// The session delivers the response head, then the body in chunks of up to 1 MiB, then the
/// completion, in order on the store's callback queue; ``ProgressRouter`` hands them to the
/// task's receiver.
final class StreamReceiver: Sendable {
    /// How a streamed request ended.
    struct Outcome: Sendable {
        var response: HTTPResponse?
        var error: TransferError?
        /// False when `accept` turned the answer down (the task was cancelled then).
        var accepted: Bool
        /// Why writing a chunk failed (the task was cancelled then).
        var writeFailure: (any Error)?
    }

    private struct State {
        var accepted: Bool?
        var offset: Int64 = 0
        var writeFailure: (any Error)?
        var continuation: CheckedContinuation<Outcome, Never>?
        var task: TransferTask?
        var response: HTTPResponse?
    }

    private let accept: @Sendable (HTTPResponse) -> Bool
    private let write: ParallelDownload.RangeWriter
    private let state = Mutex(State())

    init(accept: @escaping @Sendable (HTTPResponse) -> Bool, write: @escaping ParallelDownload.RangeWriter) {
        self.accept = accept
        self.write = write
    }

    func received(_ response: HTTPResponse) {
        // Error statuses carry their body in the completion's error; only a success is judged.
        guard response.isSuccess else { return }
        let accepted = accept(response)
        let task = state.withLock { state -> TransferTask? in
            state.response = response
            state.accepted = accepted
            return accepted ? nil : state.task
        }
        task?.cancel()
    }

    func received(_ data: Data) {
        let (accepted, offset) = state.withLock { ($0.accepted == true && $0.writeFailure == nil, $0.offset) }
        guard accepted else { return }
        do {
            try write(data, offset)
            state.withLock { $0.offset += Int64(data.count) }
        } catch {
            let task = state.withLock { state -> TransferTask? in
                state.writeFailure = error
                return state.task
            }
            task?.cancel()
        }
    }

    func completed(_ error: TransferError?) {
        let (continuation, outcome) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Outcome) in
            defer { state.continuation = nil }
            return (state.continuation, Outcome(response: state.response, error: error, accepted: state.accepted != false,
                                               writeFailure: state.writeFailure))
        }
        continuation?.resume(returning: outcome)
    }

    /// Cancels the request, its answer no longer wanted (a reader that stopped reading it).
    func cancel() {
        state.withLock { $0.task }?.cancel()
    }

    /// Runs `task` (not yet resumed) with this receiver; cancelling the caller cancels it.
    func run(_ task: TransferTask, router: ProgressRouter) async -> Outcome {
        let box = TaskBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                state.withLock {
                    $0.continuation = continuation
                    $0.task = task
                }
                router.receivers.withLock { $0[task.taskIdentifier] = self }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

extension ProgressRouter {
    func session(_ session: Session, task: TransferTask, didReceive response: HTTPResponse) {
        receivers.withLock { $0[task.taskIdentifier] }?.received(response)
    }

    func session(_ session: Session, task: TransferTask, didReceive data: Data) {
        receivers.withLock { $0[task.taskIdentifier] }?.received(data)
    }
}
