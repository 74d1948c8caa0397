import Dispatch
import Foundation

/// Progress reports to the delegate: what changed since the last report, sent when
/// `progressPolicy` says so, and the body bytes gathered for a delegate meanwhile.
extension EasyTransfer {
    /// Notes that counters changed; `progressPolicy` says whether they go out now or later.
    func noteProgress() {
        guard !isFinished else { return }
        act(on: progressPolicy.progressed(now: Self.uptime()))
    }

    private func act(on decision: ProgressCoalescer.Decision) {
        switch decision {
        case .deliver:
            sendProgress()
        case .wait:
            break
        case .schedule(let due):
            session.queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: due)) { [self] in
                guard !isFinished else { return }
                act(on: progressPolicy.timerFired(now: Self.uptime()))
            }
        }
    }

    /// The final report, sent once before completion whatever the interval says.
    func deliverProgress() {
        if progressPolicy.finish(now: Self.uptime()) == .deliver { sendProgress() }
    }

    /// Sends whatever changed since the last report.
    private func sendProgress() {
        let task = self.task
        if sent != deliveredSent {
            let delta = sent - deliveredSent
            let total = sent
            let expected = expectedSend
            deliveredSent = sent
            session.deliver { session, delegate in
                delegate.session(session, task: task, didSendBodyData: delta, totalBytesSent: total, totalBytesExpectedToSend: expected)
            }
        }
        if let download, download.bytesWritten != deliveredWritten {
            let delta = download.bytesWritten - deliveredWritten
            let total = download.total
            let expected = task.countOfBytesExpectedToReceive
            deliveredWritten = download.bytesWritten
            session.deliver { session, delegate in
                delegate.session(session, downloadTask: task, didWriteData: delta, totalBytesWritten: total, totalBytesExpectedToWrite: expected)
            }
        }
        flushData()
    }

    func flushData() {
        guard !pendingData.isEmpty else { return }
        let chunk = pendingData
        pendingData = Data()
        let task = self.task
        let count = chunk.count
        task.deliveryBacklog.add(count, ordering: .sequentiallyConsistent)
        session.deliver { session, delegate in
            delegate.session(session, task: task, didReceive: chunk)
            let left = task.deliveryBacklog.subtract(count, ordering: .sequentiallyConsistent).newValue
            if left < Self.maxDeliveryBacklog, task.waitingForDelegate.exchange(false, ordering: .sequentiallyConsistent) {
                session.queue.async { session.continueAfterBacklog(task) }
            }
        }
    }

    /// Whether to pause until the delegate takes what it was handed: a delegate that reads
    /// slower than the network (one that decrypts what arrives) holds the transfer back,
    /// rather than the undelivered chunks growing in memory.
    ///
    /// The flag is set before the backlog is looked at again: the delivery that empties the
    /// backlog either comes before that look (no pause) or sees the flag and unpauses.
    func holdForDelegate() -> Bool {
        guard task.deliveryBacklog.load(ordering: .sequentiallyConsistent) >= Self.maxDeliveryBacklog else { return false }
        task.waitingForDelegate.store(true, ordering: .sequentiallyConsistent)
        guard task.deliveryBacklog.load(ordering: .sequentiallyConsistent) >= Self.maxDeliveryBacklog else {
            task.waitingForDelegate.store(false, ordering: .sequentiallyConsistent)
            return false
        }
        return true
    }
}
