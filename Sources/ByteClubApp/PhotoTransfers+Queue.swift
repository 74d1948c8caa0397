import Foundation
import Remote
import Synchronization
import TerminalUI

/// Many transfers: the batch from the file chooser (marked files, a whole folder), the
/// Transfers panel's commands, and the actions of the queue that start and restart tasks.
extension PhotoTransfers {
    // MARK: Batches

    /// Enter in the chooser with files marked: every one queued, none shown in the modal
    /// (`T` shows them all); one alone is uploaded as before, with the modal.
    func upload(_ files: [URL]) {
        guard files.count > 1 else {
            if let file = files.first { upload(file) }
            return
        }
        var problems: [String] = []
        var queued = 0
        for file in files {
            if let problem = Self.uploadProblem(file) {
                problems.append(problem)
            } else if upload(file, showsModal: false) {
                queued += 1
            }
        }
        var text = "Uploading \(queued) photo\(queued == 1 ? "" : "s"), \(state.transfers.limit) at once · T shows them"
        if let first = problems.first {
            text += " · \(problems.count) skipped: \(first)"
            context.say(.error(text))
        } else {
            context.say(StatusMessage(text))
        }
    }

    // MARK: Handing over to the background agent

    /// Stops every transfer of the app's own so the agent can take them: none queued starts
    /// now, and the running ones are cancelled. Returns their tasks: once they have ended, each
    /// upload's session mark (``uploadSessions``) and each download's resume data are final.
    func stopForHandOver() -> [Task<Void, Never>] {
        starters.removeAll()
        let running = Array(tasks.values)
        for task in running { task.cancel() }
        return running
    }

    // MARK: Queue actions

    /// Carries out the queue's own actions; ``perform(_:)`` hands them here.
    func performQueueAction(_ action: Transfers.Action) {
        switch action {
        case .startTask(let id):
            starters.removeValue(forKey: id)?()
        case .discardDownload(let path, let part):
            configuration.pausedDownloads?.remove(path)
            context.update { $0.paused[path.lowercased()] = nil }
            // A file only: never a folder, and a link is removed, not followed.
            unlink(part.path)
        case .download(let path):
            let lower = path.lowercased()
            guard let entry = state.photos.entries.first(where: { $0.pathLower == lower }) else {
                context.say(.error("\"\(TerminalSafe.escape((path as NSString).lastPathComponent))\" is no longer in the club; r refreshes the list"))
                return
            }
            download(entry, showsModal: false)
        case .upload(let file):
            upload(file, showsModal: false)
        default:
            break
        }
    }
}

/// The app's upload sessions by transfer id, set from the network's threads as each chunk is
/// acknowledged and read when the uploads are handed to the background agent.
final class UploadSessionMarks: Sendable {
    private let marks = Mutex<[Int: UploadSessionMark]>([:])

    func set(_ id: Int, _ mark: UploadSessionMark?) {
        marks.withLock { $0[id] = mark }
    }

    func mark(_ id: Int) -> UploadSessionMark? {
        marks.withLock { $0[id] }
    }
}
