import Foundation
import Transfer

extension Session {
    /// Runs one download task to its end, the part both stores share: resumes from
    /// `resumeData` when it decodes (after `rebase` points it at today's request), registers
    /// `progress`, hands resume data to `onResumeData` when the task is cancelled, and cancels
    /// the task with the calling task.
    ///
    /// A failed transfer becomes `failure(error, response)` with what arrived kept as partial
    /// resume data; a finished one is handed to `finish` with its file and response.
    func runDownload(_ request: Request, resumeData: Data?, rebase: (inout ResumeData) -> Void, router: ProgressRouter,
                     progress: ProgressHandler?, onResumeData: (@Sendable (Data) -> Void)?,
                     failure: @escaping @Sendable (TransferError, HTTPResponse?) -> RemoteError,
                     finish: @escaping @Sendable (URL, HTTPResponse) -> DropboxStore.DownloadAttempt) async -> DropboxStore.DownloadAttempt {
        // Undecodable resume data starts over with a fresh request, as it always did.
        let resumed = resumeData.flatMap { try? ResumeData.decode($0).get() }.map { decoded in
            var decoded = decoded
            rebase(&decoded)
            return decoded.encoded()
        }
        let box = TaskBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<DropboxStore.DownloadAttempt, Never>) in
                let handler: @Sendable (URL?, HTTPResponse?, TransferError?) -> Void = { location, response, error in
                    if let error {
                        continuation.resume(returning: .failure(failure(error, response), partial: box.task?.resumeDataAfterFailure))
                    } else if let location, let response {
                        continuation.resume(returning: finish(location, response))
                    } else {
                        continuation.resume(returning: .failure(.server(status: 0, detail: "no response"), partial: nil))
                    }
                }
                let task: TransferTask
                if let resumed {
                    task = downloadTask(withResumeData: resumed, completionHandler: handler)
                } else {
                    task = downloadTask(with: request, completionHandler: handler)
                }
                if let progress { router.register(task, progress) }
                if let checkpoint = DownloadCheckpoint.sink { task.setCheckpoint(checkpoint) }
                var resumeSink: (@Sendable (Data?) -> Void)? = nil
                if let sink = onResumeData {
                    resumeSink = { @Sendable (data: Data?) -> Void in if let data { sink(data) } }
                }
                box.set(task, resumeData: resumeSink)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

extension DropboxStore.DownloadAttempt {
    /// The downloaded entry, or the error to retry after. A download cut off mid-way updates
    /// `resume` so the next try continues from what arrived, not from zero; resume data that
    /// could not be used is dropped, and the next try starts over.
    func entry(resuming resume: inout Data?) throws(RemoteError) -> RemoteEntry {
        switch self {
        case .success(let entry):
            return entry
        case .failure(let error, let partial):
            if let partial { resume = partial }
            if case .local(let detail) = error, detail.hasPrefix("Cannot resume"), resume != nil {
                resume = nil
                throw RemoteError.network("the partial download could not be resumed; starting over")
            }
            throw error
        }
    }
}

/// Where a download's resume data goes while it runs (``TransferTask/setCheckpoint(_:)``), for
/// the downloads started inside ``current``'s scope: `byteclub get` keeps it in its resume file, so
/// a `get` killed with `kill -9` resumes at the next run as one stopped with Ctrl-C does.
public final class DownloadCheckpoint: Sendable {
    /// The scope's checkpoint. A class, not a bare closure: a task-local of an optional
    /// function type crashed in `swift_task_localValuePush` in release builds (Swift 6.2).
    @TaskLocal public static var current: DownloadCheckpoint?
    public let sink: @Sendable (Data) -> Void

    public init(_ sink: @escaping @Sendable (Data) -> Void) {
        self.sink = sink
    }

    static var sink: (@Sendable (Data) -> Void)? { current?.sink }
}
