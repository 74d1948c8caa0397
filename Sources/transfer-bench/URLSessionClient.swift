import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The same runs through FoundationNetworking's URLSession, for comparison only.
final class FoundationDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
    // @unchecked Sendable: every mutable field sits inside the Mutex `state`.
    struct State {
        var progressEvents = 0
        var cancelFraction: Double?
        var cancelRequestedAt: UInt64?
        var finishedAt: UInt64 = 0
        var error: String?
        var cancelled = false
        var moveTo: URL?
        var bytes: Int64 = 0
    }
    let state = Mutex(State())
    let done = DispatchSemaphore(value: 0)

    private func progressed(_ task: URLSessionTask, _ total: Int64, _ expected: Int64) {
        let cancel = state.withLock { state -> Bool in
            state.progressEvents += 1
            state.bytes = total
            if let fraction = state.cancelFraction, expected > 0, Double(total) >= Double(expected) * fraction, state.cancelRequestedAt == nil {
                state.cancelRequestedAt = DispatchTime.now().uptimeNanoseconds
                return true
            }
            return false
        }
        if cancel { task.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        progressed(task, totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        progressed(downloadTask, totalBytesWritten, totalBytesExpectedToWrite)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        if let destination = state.withLock({ $0.moveTo }) {
            try? FileManager.default.removeItem(at: destination)
            try? FileManager.default.moveItem(at: location, to: destination)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        state.withLock { state in
            state.finishedAt = DispatchTime.now().uptimeNanoseconds
            if let error {
                if (error as NSError).code == NSURLErrorCancelled { state.cancelled = true } else { state.error = "\(error)" }
            }
        }
        done.signal()
    }
}

enum FoundationRunner {
    static func run(_ operation: TransferRunner.Operation, url: URL, file: URL?, out: URL?, method: String, cancelAt fraction: Double?) -> RunReport {
        let delegate = FoundationDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: queue)
        var request = URLRequest(url: url)
        request.httpMethod = operation == .download ? "GET" : method
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        delegate.state.withLock { state in
            state.moveTo = out
            state.cancelFraction = fraction
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let task: URLSessionTask
        switch operation {
        case .uploadFile: task = session.uploadTask(with: request, fromFile: file!)
        case .uploadMemory: task = session.uploadTask(with: request, from: (try? Data(contentsOf: file!)) ?? Data())
        case .download: task = session.downloadTask(with: request)
        }
        task.resume()
        delegate.done.wait()
        let state = delegate.state.withLock { $0 }
        session.finishTasksAndInvalidate()
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        let bytes = operation == .download ? task.countOfBytesReceived : task.countOfBytesSent
        var report = RunReport(bytes: bytes, seconds: Double(state.finishedAt - start) / 1e9,
                               progress_events: state.progressEvents, status: status, cancel_ms: nil, error: state.error)
        if let requested = state.cancelRequestedAt {
            report.cancel_ms = Double(state.finishedAt - requested) / 1e6
        }
        return report
    }
}
