import Foundation
import Remote
import TerminalUI

/// An upload or download of a photo, as the app follows it.
public struct PhotoTransfer: Sendable, Equatable, QueuedTransfer {
    public let id: Int
    public var progress: TransferProgress
    /// The photo's path in the club folder (for an upload: where it goes).
    public var remotePath: String
    /// The local file read (upload) or written (download, the partial file).
    public var local: URL
    /// Sent to the background with `b`: shown in the status bar, not in the modal.
    public var isBackground = false
    /// Its task has not ended yet. A cancelled transfer keeps running until its task has stopped;
    /// a failed one stays on record, not running, while its modal shows the failure.
    public var isRunning = true
    /// Waiting for a free slot (``Transfers/limit`` run at once); its task has not started.
    public var isQueued = false

    public init(id: Int, progress: TransferProgress, remotePath: String, local: URL) {
        self.id = id
        self.progress = progress
        self.remotePath = remotePath
        self.local = local
    }
}

/// The app's uploads and downloads and the transfer modal, as a value: events go in, actions
/// come out, and the photos controller carries the actions out (async-http-client's shape, like
/// Transfer's `TaskStateMachine`).
///
/// Which transfer the modal shows is part of the value (``modalID``); the controller puts the
/// modal layer on screen to match. Transfers queue (``enqueue(_:showsModal:)``) and at most
/// ``limit`` run at once; each end admits the next (``Action/startTask(_:)``). Ended transfers
/// stay as rows of the Transfers panel (``finished``) until cleared (Transfers+Queue.swift).
public struct Transfers: Sendable, Equatable {
    /// What the owner must do after an event.
    public enum Action: Equatable, Sendable {
        /// Put this in the status bar.
        case say(StatusMessage)
        /// Stop the transfer's task; its end comes back as a `finished` event.
        case cancelTask(Int)
        /// Esc came after the server had committed the upload: delete the file, as cancel promises.
        case deleteCommittedUpload(RemoteEntry)
        /// The download is complete: move it into the download folder, then report
        /// ``Transfers/downloadPlaced(_:at:)`` or ``Transfers/downloadNotPlaced(_:why:)``.
        case placeDownload(Int)
        /// Remove a partial file that will not be used.
        case removeFile(URL)
        /// The upload is in: load the photos again with it selected.
        case refreshPhotos(select: String)
        /// A queued transfer has a free slot: start its task.
        case startTask(Int)
        /// A download was cancelled (not paused): drop its resume data and its partial file.
        case discardDownload(path: String, part: URL)
        /// Start a download of the photo at this path again (resuming it if it can).
        case download(path: String)
        /// Upload this file again.
        case upload(URL)
    }

    /// The transfers on record, in Remote's `TransferQueue` (the agent's queue too), which
    /// decides which start: oldest first, at most ``limit`` at once.
    var queue = TransferQueue<PhotoTransfer>(limit: 3)
    /// The transfers on record by id (the queue's items, a task's end removing its own).
    /// Built on each call (the queue looks ids up itself): for readers outside the hot path.
    public var byID: [Int: PhotoTransfer] {
        Dictionary(uniqueKeysWithValues: queue.items.map { ($0.id, $0) })
    }
    /// The transfer the modal shows, if the modal is up.
    public internal(set) var modalID: Int?
    /// How many transfers run at once (`--transfers`); the rest wait, queued.
    public var limit: Int {
        get { queue.limit }
        set { queue.limit = newValue }
    }
    /// Ended transfers (done, failed, cancelled, paused), oldest first: rows of the Transfers
    /// panel until `x` clears them.
    public internal(set) var finished: [PhotoTransfer] = []

    public init() {}

    public subscript(id: Int) -> PhotoTransfer? { queue[id] }

    /// The transfers still moving bytes (not those waiting in the queue), oldest first.
    public var active: [PhotoTransfer] { queue.items.filter { !$0.isQueued && $0.progress.isActive }.sorted { $0.id < $1.id } }
    public var hasActive: Bool { queue.items.contains { !$0.isQueued && $0.progress.isActive } }
    /// Transfers that are queued or whose tasks have not ended (what quitting must ask about).
    public var running: Int { queue.items.reduce(0) { $0 + ($1.isRunning || $1.isQueued ? 1 : 0) } }

    /// The transfer of the photo at `path`, if one is on record.
    public func transfer(ofPath path: String) -> PhotoTransfer? {
        let lower = path.lowercased()
        return queue.items.first { $0.remotePath.lowercased() == lower }
    }

    // MARK: Events

    /// A transfer's task was started: the modal shows it.
    public mutating func started(_ transfer: PhotoTransfer, at time: Double) -> [Action] {
        var transfer = transfer
        transfer.isRunning = true
        transfer.isQueued = false
        transfer.isBackground = false
        _ = transfer.progress.start(total: transfer.progress.total, at: time)
        queue.put(transfer)
        dropEndedRows(ofPath: transfer.remotePath)
        modalID = transfer.id
        return transfer.progress.direction == .upload ? [.say(StatusMessage("Uploading \"\(TerminalSafe.escape(transfer.progress.name))\"…"))] : []
    }

    /// Bytes moved. Returns whether a transfer on record changed.
    public mutating func progressed(_ id: Int, done: Int64, expected: Int64, at time: Double) -> Bool {
        guard queue[id] != nil else { return false }
        queue.update(id) { _ = $0.progress.progress(done: done, total: expected > 0 ? expected : nil, at: time) }
        return true
    }

    /// The clock moved: the figures of running transfers are fed again, so a stalled connection
    /// shows its rate falling instead of the last one.
    public mutating func ticked(at time: Double) {
        for transfer in queue.items where transfer.progress.isActive {
            queue.update(transfer.id) { _ = $0.progress.progress(done: transfer.progress.done, at: time) }
        }
    }

    /// An upload's task ended.
    public mutating func uploadFinished(_ id: Int, _ result: Result<RemoteEntry, RemoteError>, at time: Double) -> [Action] {
        guard var transfer = queue[id] else { return [] }
        transfer.isRunning = false
        switch result {
        case .success(let entry) where transfer.progress.phase == .cancelled:
            retire(transfer)
            return [.deleteCommittedUpload(entry)] + admit()
        case .success(let entry):
            _ = transfer.progress.finish(at: time)
            retire(transfer)
            closeModal(id)
            return [.say(StatusMessage("Uploaded \"\(TerminalSafe.escape(entry.name))\"")), .refreshPhotos(select: entry.pathLower)] + admit()
        case .failure(.cancelled):
            _ = transfer.progress.cancel()
            retire(transfer)
            closeModal(id)
            return [.say(StatusMessage("Upload cancelled"))] + admit()
        case .failure(let error):
            _ = transfer.progress.fail(error.message)
            keepFailure(transfer)
            return [.say(.error("Upload of \"\(TerminalSafe.escape(transfer.progress.name))\" failed: \(error.message)"))] + admit()
        }
    }

    /// A download's task ended. `resumable`: resume data of it is kept, so Enter resumes.
    public mutating func downloadFinished(_ id: Int, _ result: Result<RemoteEntry, RemoteError>, resumable: Bool) -> [Action] {
        guard var transfer = queue[id] else { return [] }
        transfer.isRunning = false
        switch result {
        case .success:
            queue.put(transfer)
            return [.placeDownload(id)] + admit()
        case .failure(.cancelled) where transfer.progress.phase == .cancelled:
            // Cancelled in the Transfers panel, not paused: nothing is kept to resume.
            retire(transfer)
            closeModal(id)
            return [.discardDownload(path: transfer.remotePath, part: transfer.local), .say(StatusMessage("Download cancelled"))] + admit()
        case .failure(.cancelled):
            _ = transfer.progress.pause()
            retire(transfer)
            closeModal(id)
            return [.say(StatusMessage(resumable ? "Download paused, Enter resumes" : "Download cancelled"))] + admit()
        case .failure(let error):
            _ = transfer.progress.fail(error.message)
            keepFailure(transfer)
            return [.say(.error("Download of \"\(TerminalSafe.escape(transfer.progress.name))\" failed: \(error.message)" + (resumable ? "; Enter resumes" : "")))] + admit()
        }
    }

    /// The finished download is in the download folder at `url`.
    public mutating func downloadPlaced(_ id: Int, at url: URL) -> [Action] {
        guard var transfer = queue[id] else { return [] }
        _ = transfer.progress.finish(at: transfer.progress.startedAt ?? 0)
        retire(transfer)
        closeModal(id)
        return [.say(StatusMessage("Downloaded \"\(TerminalSafe.escape(transfer.progress.name))\" to \(TerminalSafe.escape(url.path))"))]
    }

    /// The finished download could not be moved into the download folder.
    public mutating func downloadNotPlaced(_ id: Int, why: String) -> [Action] {
        guard var transfer = queue[id] else { return [] }
        _ = transfer.progress.fail("Cannot place the file: \(TerminalSafe.escape(why))")
        keepFailure(transfer)
        return [.removeFile(transfer.local), .say(.error("Downloaded \"\(TerminalSafe.escape(transfer.progress.name))\" but cannot place it: \(TerminalSafe.escape(why))"))]
    }

    /// Esc or `c` in the modal: the modal goes now; the task's end follows as `finished`.
    /// A download pauses (its resume data is kept), an upload is cancelled.
    public mutating func cancelRequested(_ id: Int) -> [Action] {
        closeModal(id)
        guard var transfer = queue[id] else { return [] }
        // Still waiting for a slot: there is no task to stop, nor anything to resume.
        if transfer.isQueued { return cancelFromPanel(id) }
        let isUpload = transfer.progress.direction == .upload
        _ = isUpload ? transfer.progress.cancel() : transfer.progress.pause()
        queue.put(transfer)
        return [.cancelTask(id), .say(StatusMessage(isUpload ? "Cancelling the upload…" : "Pausing the download…"))]
    }

    /// `b` in the modal: the transfer goes on, shown in the status bar.
    public mutating func backgrounded(_ id: Int) -> [Action] {
        queue.update(id) { $0.isBackground = true }
        closeModal(id)
        return [.say(StatusMessage("Still running in the background · t shows it"))]
    }

    /// The modal of a transfer that ended was closed: its record goes.
    public mutating func modalClosed(_ id: Int) {
        closeModal(id)
        guard let transfer = queue[id], !transfer.progress.isActive else { return }
        if transfer.isRunning {
            // Still stopping: its end drops it (a background failure is not kept).
            queue.update(id) { $0.isBackground = true }
        } else {
            queue.remove(id)
        }
    }

    /// Shows transfer `id` in the modal.
    public mutating func show(_ id: Int) {
        guard queue[id] != nil else { return }
        queue.update(id) { $0.isBackground = false }
        modalID = id
    }

    /// `t`: shows the newest running transfer.
    public mutating func showNewest() -> [Action] {
        guard let newest = active.last else { return [.say(StatusMessage("No transfer is running"))] }
        show(newest.id)
        return []
    }

    /// Drops an ended transfer from the record (Enter tries a failed download again).
    public mutating func forget(_ id: Int) {
        guard queue[id]?.isRunning == false else { return }
        closeModal(id)
        queue.remove(id)
    }

    // MARK: Helpers

    mutating func closeModal(_ id: Int) {
        if modalID == id { modalID = nil }
    }

    /// A failure stays on record while its modal shows it; in the background it is only said
    /// (and shown as a row of the Transfers panel).
    private mutating func keepFailure(_ transfer: PhotoTransfer) {
        record(transfer)
        if transfer.isBackground || modalID != transfer.id {
            queue.remove(transfer.id)
        } else {
            queue.put(transfer)
        }
    }
}
