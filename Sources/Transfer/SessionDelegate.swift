import Foundation

/// Receives a session's events. Every method is called on the session's `delegateQueue`,
/// one at a time and in order; a task's last event is `didCompleteWithError`, and the
/// session's last event is `didBecomeInvalidWithError`.
///
/// The app passes `DispatchQueue.main` as the delegate queue, so an implementation may use
/// `MainActor.assumeIsolated` inside these methods.
public protocol SessionDelegate: AnyObject, Sendable {
    /// Upload progress, from curl's `ulnow`, coalesced to at most one call per progress interval.
    func session(_ session: Session, task: TransferTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    /// The final response head (after redirects) of a data or upload task.
    func session(_ session: Session, task: TransferTask, didReceive response: HTTPResponse)
    /// Body bytes of a data or upload task without a completion handler, in coalesced chunks.
    func session(_ session: Session, task: TransferTask, didReceive data: Data)
    /// Download progress. `totalBytesWritten` counts bytes from an earlier, resumed attempt too.
    func session(_ session: Session, downloadTask: TransferTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)
    /// A resumed download continues at `fileOffset` (0 when the server sent the whole file again).
    func session(_ session: Session, downloadTask: TransferTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64)
    /// The download is complete. Move the file away before returning: it is deleted afterwards.
    func session(_ session: Session, downloadTask: TransferTask, didFinishDownloadingTo location: URL)
    /// The task ended: `error` is nil on success.
    func session(_ session: Session, task: TransferTask, didCompleteWithError error: TransferError?)
    /// The session is invalid; nothing else will be delivered.
    func session(_ session: Session, didBecomeInvalidWithError error: TransferError?)
}

extension SessionDelegate {
    public func session(_ session: Session, task: TransferTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}
    public func session(_ session: Session, task: TransferTask, didReceive response: HTTPResponse) {}
    public func session(_ session: Session, task: TransferTask, didReceive data: Data) {}
    public func session(_ session: Session, downloadTask: TransferTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}
    public func session(_ session: Session, downloadTask: TransferTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {}
    public func session(_ session: Session, downloadTask: TransferTask, didFinishDownloadingTo location: URL) {}
    public func session(_ session: Session, task: TransferTask, didCompleteWithError error: TransferError?) {}
    public func session(_ session: Session, didBecomeInvalidWithError error: TransferError?) {}
}
