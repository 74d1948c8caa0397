import Foundation
import Synchronization

/// `async` variants. Cancelling the Swift task cancels the transfer.
extension Session {
    /// Runs a data task and returns the whole body. Non-2xx answers throw `.httpStatus` with the body.
    public func data(for request: Request) async throws(TransferError) -> (Data, HTTPResponse) {
        try await run { handler in self.dataTask(with: request, completionHandler: handler) }
    }

    public func upload(for request: Request, fromData data: Data) async throws(TransferError) -> (Data, HTTPResponse) {
        try await run { handler in self.uploadTask(with: request, fromData: data, completionHandler: handler) }
    }

    /// Streams the file in constant memory.
    public func upload(for request: Request, fromFile file: URL) async throws(TransferError) -> (Data, HTTPResponse) {
        try await run { handler in self.uploadTask(with: request, fromFile: file, completionHandler: handler) }
    }

    /// Downloads to a temporary file that the caller owns (and must move or delete).
    public func download(for request: Request) async throws(TransferError) -> (URL, HTTPResponse) {
        try await runDownload { handler in self.downloadTask(with: request, completionHandler: handler) }
    }

    public func download(resumeFrom resumeData: Data) async throws(TransferError) -> (URL, HTTPResponse) {
        try await runDownload { handler in self.downloadTask(withResumeData: resumeData, completionHandler: handler) }
    }

    private func run(_ make: (@escaping @Sendable (Data?, HTTPResponse?, TransferError?) -> Void) -> TransferTask) async throws(TransferError) -> (Data, HTTPResponse) {
        let result: Result<(Data, HTTPResponse), TransferError> = await withTaskCancellationBridge { continuation in
            make { data, response, error in
                if let error {
                    continuation.resume(returning: .failure(error))
                } else if let data, let response {
                    continuation.resume(returning: .success((data, response)))
                } else {
                    continuation.resume(returning: .failure(.malformedResponse(detail: "no HTTP response")))
                }
            }
        }
        return try result.get()
    }

    private func runDownload(_ make: (@escaping @Sendable (URL?, HTTPResponse?, TransferError?) -> Void) -> TransferTask) async throws(TransferError) -> (URL, HTTPResponse) {
        let directory = configuration.temporaryDirectory
        let result: Result<(URL, HTTPResponse), TransferError> = await withTaskCancellationBridge { continuation in
            make { location, response, error in
                if let error {
                    continuation.resume(returning: .failure(error))
                    return
                }
                guard let location, let response else {
                    continuation.resume(returning: .failure(.malformedResponse(detail: "no HTTP response")))
                    return
                }
                // The session deletes `location` after this handler; hand the caller a file of its own.
                let owned = directory.appendingPathComponent("byteclub-\(UUID().uuidString).downloaded")
                do {
                    try FileManager.default.moveItem(at: location, to: owned)
                    continuation.resume(returning: .success((owned, response)))
                } catch {
                    continuation.resume(returning: .failure(.cannotWriteFile(path: owned.path, reason: error.localizedDescription)))
                }
            }
        }
        return try result.get()
    }
}

/// Starts a task made by `make`, resumes it, and cancels it if the Swift task is cancelled.
private func withTaskCancellationBridge<T: Sendable>(
    _ make: (CheckedContinuation<T, Never>) -> TransferTask
) async -> T {
    let box = TaskBox()
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            let task = make(continuation)
            box.set(task)
            task.resume()
        }
    } onCancel: {
        box.cancel()
    }
}

/// Hands the transfer task to the cancellation handler, which may run before or after it exists.
private final class TaskBox: Sendable {
    private let state = Mutex<(task: TransferTask?, cancelled: Bool)>((nil, false))

    func set(_ task: TransferTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
