import Dispatch
import Foundation
import Synchronization
import Transfer

/// What one benchmark run reports, as one JSON line.
struct RunReport: Codable {
    var bytes: Int64
    var seconds: Double
    var progress_events: Int
    var status: Int
    var cancel_ms: Double?
    var error: String?
    /// VmHWM at the end of the run; exact where polling from outside could miss a peak.
    var peak_rss_bytes: Int64?
}

/// Counts progress callbacks and waits for the end of one task.
final class BenchDelegate: SessionDelegate {
    struct State {
        var progressEvents = 0
        var lastProgress: Int64 = 0
        var cancelRequestedAt: UInt64?
        var cancelFraction: Double?
        var task: TransferTask?
        var finishedAt: UInt64 = 0
        var error: TransferError?
        var moveTo: URL?
    }
    let state = Mutex(State())
    let done = DispatchSemaphore(value: 0)

    func session(_ session: Session, task: TransferTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        progressed(task, totalBytesSent, totalBytesExpectedToSend)
    }

    func session(_ session: Session, downloadTask: TransferTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        progressed(downloadTask, totalBytesWritten, totalBytesExpectedToWrite)
    }

    private func progressed(_ task: TransferTask, _ total: Int64, _ expected: Int64) {
        let cancel = state.withLock { state -> Bool in
            state.progressEvents += 1
            state.lastProgress = total
            if let fraction = state.cancelFraction, expected > 0, Double(total) >= Double(expected) * fraction, state.cancelRequestedAt == nil {
                state.cancelRequestedAt = DispatchTime.now().uptimeNanoseconds
                return true
            }
            return false
        }
        if cancel { task.cancel() }
    }

    func session(_ session: Session, downloadTask: TransferTask, didFinishDownloadingTo location: URL) {
        if let destination = state.withLock({ $0.moveTo }) {
            try? FileManager.default.removeItem(at: destination)
            do {
                try FileManager.default.moveItem(at: location, to: destination)
            } catch {
                state.withLock { $0.error = .cannotWriteFile(path: destination.path, reason: "\(error)") }
            }
        }
    }

    func session(_ session: Session, task: TransferTask, didCompleteWithError error: TransferError?) {
        state.withLock { state in
            state.finishedAt = DispatchTime.now().uptimeNanoseconds
            if state.error == nil { state.error = error }
        }
        done.signal()
    }
}

enum TransferRunner {
    enum Operation { case uploadFile, uploadMemory, download }

    /// Runs one transfer through our `Transfer` module and reports it.
    /// `pin`: the server's key (TLS benchmarks); a download's `method` is "GET" but for a club server's POST.
    static func run(_ operation: Operation, url: URL, file: URL?, out: URL?, method: String, headers: [String: String], cancelAt fraction: Double?,
                    pin: String? = nil) -> RunReport {
        let delegate = BenchDelegate()
        var configuration = SessionConfiguration.default
        configuration.pinnedPublicKey = pin
        let session = Session(configuration: configuration, delegate: delegate, delegateQueue: DispatchQueue(label: "bench.delegate"))
        var request = Request(url: url, method: operation == .download && method != "POST" ? "GET" : method, headers: headers)
        if operation != .download, request.header("Content-Type") == nil {
            request.headers["Content-Type"] = "application/octet-stream"
        }
        let task: TransferTask
        let start = DispatchTime.now().uptimeNanoseconds
        switch operation {
        case .uploadFile:
            task = session.uploadTask(with: request, fromFile: file!)
        case .uploadMemory:
            let data = (try? Data(contentsOf: file!)) ?? Data()
            task = session.uploadTask(with: request, fromData: data)
        case .download:
            task = session.downloadTask(with: request)
        }
        delegate.state.withLock { state in
            state.moveTo = out
            state.cancelFraction = fraction
        }
        task.resume()
        delegate.done.wait()
        let state = delegate.state.withLock { $0 }
        session.finishTasksAndInvalidate()
        let seconds = Double(state.finishedAt - start) / 1e9
        let bytes = operation == .download ? task.countOfBytesReceived : task.countOfBytesSent
        var report = RunReport(bytes: bytes, seconds: seconds, progress_events: state.progressEvents,
                               status: task.response?.statusCode ?? 0, cancel_ms: nil, error: state.error?.message)
        if let requested = state.cancelRequestedAt {
            report.cancel_ms = Double(state.finishedAt - requested) / 1e6
            if state.error == .cancelled { report.error = nil }
        }
        return report
    }
}
