import Foundation
import Remote
import TerminalUI

/// A transfer's state as the Transfers panel names it.
public enum TransferRowState: String, Sendable, Equatable {
    case queued, running, paused, done, failed, cancelled
}

extension PhotoTransfer {
    /// Its state in the queue: waiting, holding a slot (its task has not ended, even while it
    /// stops), or ended as its progress says.
    public var queueState: TransferState {
        get {
            if isQueued { return .queued }
            if isRunning { return .running }
            switch progress.phase {
            // Its task has ended well and the file is being put in place: it holds no slot.
            case .starting, .running, .finished: return .done
            case .paused: return .paused
            case .failed: return .failed
            case .cancelled: return .cancelled
            }
        }
        set {
            isQueued = newValue == .queued
            isRunning = newValue == .running
        }
    }

    /// queued, running, paused, done, failed or cancelled.
    public var rowState: TransferRowState {
        if isQueued { return .queued }
        switch progress.phase {
        case .starting, .running: return .running
        case .paused: return .paused
        case .finished: return .done
        case .failed: return .failed
        case .cancelled: return .cancelled
        }
    }
}

/// The queue and the Transfers panel's commands: many transfers at once, at most ``limit``
/// moving bytes; the others wait in the order they were asked for.
extension Transfers {
    /// Transfers waiting for a slot, oldest first.
    public var queued: [PhotoTransfer] { queue.queued }

    /// Transfers holding a slot: their tasks run (a cancelled one until it has stopped).
    public var slotsInUse: Int { queue.runningCount }

    /// The Transfers panel's rows, oldest first: every transfer on record and the ended ones
    /// not cleared yet.
    public var rows: [PhotoTransfer] {
        var all = byID
        for row in finished where all[row.id] == nil { all[row.id] = row }
        return all.values.sorted { $0.id < $1.id }
    }

    /// What the status bar shows for transfers: one running alone as `↑ photo.jpg 42%`;
    /// several as their counts by direction and the overall percentage, `↑2 ↓1 43%`;
    /// transfers that only stop as "1 transfer". Nil when there are none.
    public var statusFigure: String? {
        let moving = queue.items.filter { $0.isQueued || ($0.isRunning && $0.progress.isActive) }
        if moving.count == 1, let only = moving.first, !only.isQueued {
            return only.progress.statusText(nameWidth: 18)
        }
        if moving.count > 1 {
            let up = moving.filter { $0.progress.direction == .upload }.count
            var parts: [String] = []
            if up > 0 { parts.append("↑\(up)") }
            if moving.count - up > 0 { parts.append("↓\(moving.count - up)") }
            let sized = moving.filter { $0.progress.total != nil }
            let total = sized.reduce(Int64(0)) { $0 + ($1.progress.total ?? 0) }
            if total > 0 {
                let done = sized.reduce(Int64(0)) { $0 + min($1.progress.done, $1.progress.total ?? 0) }
                parts.append("\(min(99, Int(done * 100 / total)))%")
            }
            return parts.joined(separator: " ")
        }
        if running > 0 { return running == 1 ? "1 transfer" : "\(running) transfers" }
        return nil
    }

    // MARK: Queueing

    /// Asks for a transfer: it starts at once when a slot is free (``Action/startTask(_:)``),
    /// or waits. `showsModal`: the modal shows it (the transfer just started by a key); a batch
    /// from the file chooser runs without.
    public mutating func enqueue(_ transfer: PhotoTransfer, showsModal: Bool = true) -> [Action] {
        var transfer = transfer
        transfer.isQueued = true
        transfer.isRunning = false
        transfer.isBackground = !showsModal
        queue.put(transfer)
        dropEndedRows(ofPath: transfer.remotePath)
        if showsModal { modalID = transfer.id }
        let actions = admit()
        guard showsModal else { return actions }
        let name = transfer.progress.name
        if queue[transfer.id]?.isQueued == true {
            return actions + [.say(StatusMessage("\"\(TerminalSafe.escape(name))\" waits for a free slot (\(limit) at once) · T shows the transfers"))]
        }
        return actions + (transfer.progress.direction == .upload ? [.say(StatusMessage("Uploading \"\(TerminalSafe.escape(name))\"…"))] : [])
    }

    /// Starts queued transfers, oldest first, while fewer than ``limit`` hold a slot.
    mutating func admit() -> [Action] {
        queue.admit().map { .startTask($0.id) }
    }

    // MARK: The panel's keys

    /// `Esc`/`c` in the panel: a queued transfer is dropped at once; a running upload is
    /// cancelled (nothing stays on the server); a running download is cancelled and its partial
    /// file and resume data go when its task ends; a paused download's resume data goes now.
    public mutating func cancelFromPanel(_ id: Int) -> [Action] {
        if let transfer = queue[id] {
            let name = transfer.progress.name
            if transfer.isQueued {
                var dropped = transfer
                dropped.isQueued = false
                _ = dropped.progress.cancel()
                retire(dropped)
                closeModal(id)
                // No task yet: this only forgets how to start it.
                return [.cancelTask(id), .say(StatusMessage("Cancelled \"\(TerminalSafe.escape(name))\" before it started"))]
            }
            guard transfer.progress.isActive else { return [.say(StatusMessage("\"\(TerminalSafe.escape(name))\" is stopping already"))] }
            if transfer.progress.direction == .upload { return cancelRequested(id) }
            queue.update(id) { _ = $0.progress.cancel() }
            closeModal(id)
            return [.cancelTask(id), .say(StatusMessage("Cancelling the download of \"\(TerminalSafe.escape(name))\"…"))]
        }
        guard let index = finished.firstIndex(where: { $0.id == id }) else { return [] }
        let row = finished[index]
        guard row.rowState == .paused else {
            return [.say(StatusMessage("\"\(TerminalSafe.escape(row.progress.name))\" has ended already; x clears ended rows"))]
        }
        var progress = TransferProgress(direction: row.progress.direction, name: row.progress.name, total: row.progress.total,
                                        resumedFrom: row.progress.done)
        _ = progress.cancel()
        finished[index].progress = progress
        return [.discardDownload(path: row.remotePath, part: row.local), .say(StatusMessage("Download of \"\(TerminalSafe.escape(row.progress.name))\" cancelled"))]
    }

    /// `p` in the panel: pauses a running download (its resume data is kept, as with Esc in the
    /// modal) or resumes a paused one.
    public mutating func pauseOrResume(_ id: Int) -> [Action] {
        guard let row = rows.first(where: { $0.id == id }) else { return [] }
        let name = row.progress.name
        guard row.progress.direction == .download else {
            return [.say(StatusMessage("An upload cannot pause; c cancels it"))]
        }
        switch row.rowState {
        case .running:
            guard row.isRunning else { return [] }
            return cancelRequested(id)
        case .paused:
            finished.removeAll { $0.id == id }
            return [.download(path: row.remotePath)]
        case .queued:
            return [.say(StatusMessage("\"\(TerminalSafe.escape(name))\" has not started yet; c cancels it"))]
        case .done, .failed, .cancelled:
            return [.say(StatusMessage("\"\(TerminalSafe.escape(name))\" has ended; r retries a failed one"))]
        }
    }

    /// `r` in the panel: a failed transfer is asked for again (a download resumes where it can).
    public mutating func retry(_ id: Int) -> [Action] {
        guard let row = rows.first(where: { $0.id == id }) else { return [] }
        guard row.rowState == .failed, !row.isRunning else {
            return [.say(StatusMessage("Only a failed transfer can be retried"))]
        }
        finished.removeAll { $0.id == id }
        if queue[id] != nil {
            closeModal(id)
            queue.remove(id)
        }
        return row.progress.direction == .upload ? [.upload(row.local)] : [.download(path: row.remotePath)]
    }

    /// `x` in the panel: the rows of transfers that are over (done, failed, cancelled) go;
    /// paused downloads stay, as they can still resume.
    public mutating func clearFinished() {
        finished.removeAll { $0.progress.isFinal }
        for transfer in queue.items where !transfer.isRunning && !transfer.isQueued && transfer.progress.isFinal && modalID != transfer.id {
            queue.remove(transfer.id)
        }
    }

    // MARK: Rows

    /// Keeps `transfer` (ended) as a row of the panel, replacing an older copy of it.
    mutating func record(_ transfer: PhotoTransfer) {
        var row = transfer
        row.isRunning = false
        row.isQueued = false
        finished.removeAll { $0.id == row.id }
        finished.append(row)
        // A long session keeps the newest rows only.
        if finished.count > 200 { finished.removeFirst(finished.count - 200) }
    }

    /// Takes an ended transfer off the record, keeping its row.
    mutating func retire(_ transfer: PhotoTransfer) {
        queue.remove(transfer.id)
        record(transfer)
    }

    /// A new transfer of `path` replaces the rows of its earlier paused or failed ones.
    mutating func dropEndedRows(ofPath path: String) {
        let lower = path.lowercased()
        finished.removeAll { $0.remotePath.lowercased() == lower && ($0.rowState == .paused || $0.rowState == .failed) }
    }
}
