import Foundation
import Remote
import TerminalUI

/// A transfer the background agent owns, as the app shows it (the app never imports the agent:
/// the executable hands it a ``BackgroundAgent``).
public struct BackgroundTransfer: Sendable, Equatable {
    public var id: String
    public var isUpload: Bool
    public var name: String
    public var remotePath: String
    public var local: URL
    public var state: TransferRowState
    public var done: Int64
    /// -1 when unknown.
    public var total: Int64
    public var error: String?

    public init(id: String, isUpload: Bool, name: String, remotePath: String, local: URL, state: TransferRowState,
                done: Int64, total: Int64, error: String? = nil) {
        self.id = id
        self.isUpload = isUpload
        self.name = name
        self.remotePath = remotePath
        self.local = local
        self.state = state
        self.done = done
        self.total = total
        self.error = error
    }
}

/// The agent that keeps transfers going after the app quits (`byteclub agent`), as the app
/// uses it. Every method may block briefly on the agent's socket; the app calls them through
/// ``UIEffects/perform(_:then:)`` and gets the answers back on the UI queue.
public protocol BackgroundAgent: Sendable {
    /// The next batch of changed transfers (the first call: all of them); waits until there is
    /// one. Throws once the agent cannot be reached.
    func nextChanges() async throws(RemoteError) -> [BackgroundTransfer]
    /// Hands an upload to the agent (it starts the agent if none runs), with the app's upload
    /// session when it had one: the agent continues it at the server's offset.
    func submitUpload(_ file: URL, to path: String, session: UploadSessionMark?) async throws(RemoteError)
    /// Hands a download to the agent, to be saved at `destination`, with the app's resume data
    /// when it had some: the agent continues its partial file at its size.
    func submitDownload(_ path: String, to destination: URL, resumeData: Data?) async throws(RemoteError)
    func cancel(_ id: String) async throws(RemoteError)
    func pause(_ id: String) async throws(RemoteError)
    func resume(_ id: String) async throws(RemoteError)
    func clearFinished() async throws(RemoteError)
}

extension AppState {
    /// The panel's rows and the status figure's inputs: the app's own transfers, then the
    /// agent's, shown as rows with negative ids (the panel hands those back to the agent).
    public var transferRows: [PhotoTransfer] {
        transfers.rows + background.enumerated().map { Self.row($0.element, id: -($0.offset + 1), moving: backgroundRates[$0.element.id]) }
    }

    /// A running agent transfer's progress as the app has seen it move (each change from the
    /// agent a sample, at the time it came), so its row has a rate and a time left as the app's
    /// own rows do; kept by ``BackgroundController``.
    public static func movedAgain(_ seen: TransferProgress?, _ transfer: BackgroundTransfer, at time: Double) -> TransferProgress? {
        guard transfer.state == .running else { return nil }
        let total = transfer.total >= 0 ? transfer.total : nil
        var progress = seen ?? TransferProgress(direction: transfer.isUpload ? .upload : .download, name: transfer.name, total: total,
                                                resumedFrom: transfer.done)
        if seen == nil { progress.start(total: total, at: time) }
        progress.progress(done: transfer.done, total: total, at: time)
        return progress
    }

    /// The status bar's figure for every transfer, the agent's included.
    public var transferFigure: String? {
        guard !background.isEmpty else { return transfers.statusFigure }
        var combined = transfers
        for (index, transfer) in background.enumerated() where transfer.state == .running || transfer.state == .queued {
            var row = Self.row(transfer, id: -(index + 1), moving: backgroundRates[transfer.id])
            row.isRunning = true
            row.isQueued = transfer.state == .queued
            combined.queue.put(row)
        }
        return combined.statusFigure
    }

    /// A row for the agent's `transfer`; `moving`, its progress as seen moving (a rate and a
    /// time left), while it runs.
    static func row(_ transfer: BackgroundTransfer, id: Int, moving: TransferProgress? = nil) -> PhotoTransfer {
        let total = transfer.total >= 0 ? transfer.total : nil
        var progress = TransferProgress(direction: transfer.isUpload ? .upload : .download, name: transfer.name, total: total)
        switch transfer.state {
        case .queued:
            break
        case .running:
            if let moving {
                progress = moving
            } else {
                _ = progress.start(total: total, at: 0)
                _ = progress.progress(done: transfer.done, total: total, at: 0)
            }
        case .paused:
            _ = progress.start(total: total, at: 0)
            _ = progress.progress(done: transfer.done, total: total, at: 0)
            _ = progress.pause()
        case .done:
            _ = progress.start(total: total, at: 0)
            _ = progress.progress(done: transfer.done, total: total, at: 0)
            _ = progress.finish(at: 0)
        case .failed:
            _ = progress.start(total: total, at: 0)
            _ = progress.progress(done: transfer.done, total: total, at: 0)
            _ = progress.fail(transfer.error ?? "failed")
        case .cancelled:
            // How far it got, as `byteclub transfers` says of it.
            _ = progress.start(total: total, at: 0)
            _ = progress.progress(done: transfer.done, total: total, at: 0)
            _ = progress.cancel()
        }
        var row = PhotoTransfer(id: id, progress: progress, remotePath: transfer.remotePath, local: transfer.local)
        row.isBackground = true
        row.isRunning = transfer.state == .running
        row.isQueued = transfer.state == .queued
        return row
    }
}
