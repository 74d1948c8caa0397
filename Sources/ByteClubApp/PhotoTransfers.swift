import Foundation
import Imaging
import Remote
import TerminalUI

/// The photos' uploads and downloads, as the PanoPhotos tab, the viewer, the rendered view's
/// "upload and insert" and the hand-over to the background agent use them. The transfers
/// themselves are the ``Transfers`` value in the state; this runs their tasks and carries out
/// what the value asks for (PhotoTransfers+Progress.swift, PhotoTransfers+Queue.swift).
@MainActor
final class PhotoTransfers {
    /// Where uploads wait while the server cannot be reached.
    weak var outboxRunner: OutboxRunner?
    let context: AppContext
    let refresher: Refresher
    /// Running transfers' tasks, by transfer id: what cancelling stops.
    var tasks: [Int: Task<Void, Never>] = [:]
    /// How to start each queued transfer's task, by transfer id (run on ``Transfers/Action/startTask(_:)``).
    var starters: [Int: @MainActor () -> Void] = [:]
    /// Downloads whose tasks have not ended yet; quitting waits for their resume data.
    let downloadsRunning = DispatchGroup()
    /// Feeds running transfers' figures while they run.
    var ticker: (any UIRepeating)?
    /// Progress reports that reached the UI queue (for the benchmark: they arrive at 10–60 Hz).
    var progressEvents = 0
    /// What to do once an upload of a local file (by its path) reached the server: a photo
    /// uploaded from the editor is inserted in the note with the name the server gave it.
    var afterUpload: [String: @MainActor (RemoteEntry) -> Void] = [:]
    /// The running uploads' sessions: what a hand-over to the background agent continues.
    let uploadSessions = UploadSessionMarks()

    init(context: AppContext, refresher: Refresher) {
        self.context = context
        self.refresher = refresher
        context.model.updateQuietly { $0.transfers.limit = max(1, context.configuration.transfers) }
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    // MARK: Upload

    /// Why `file` cannot be uploaded as a photo, or nil.
    nonisolated static func uploadProblem(_ file: URL) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            return "No such file: \(file.path)"
        }
        if isDirectory.boolValue { return "\(file.lastPathComponent) is a folder, not a photo" }
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "Cannot read \(file.path)" }
        defer { try? handle.close() }
        // Enough for any format's magic, an SVG's XML declaration and comments included.
        let start = (try? handle.read(upToCount: 4096)) ?? Data()
        guard PictureFormat.sniff(start) != nil else {
            return "\(file.lastPathComponent) is not a picture; PanoPhotos takes JPEG, PNG, GIF, WebP and SVG files"
        }
        return nil
    }

    /// The extension a photo without one gets: its format's (`.jpg` for a JPEG).
    nonisolated static func photoExtension(of file: URL) -> String {
        let start = (try? FileHandle(forReadingFrom: file)).flatMap { handle in defer { try? handle.close() }; return try? handle.read(upToCount: 4096) }
        switch start.flatMap(PictureFormat.sniff) {
        case .png?: return "png"
        case .gif?: return "gif"
        case .webp?: return "webp"
        case .svg?: return "svg"
        case .jpeg?, nil: return "jpg"
        }
    }

    /// Uploads `file` to the photos folder (renamed if the name is taken): queued, and started
    /// as soon as a slot is free. `showsModal`: the modal shows it. Returns whether it was queued.
    /// `resuming`: the upload session to continue (one the background agent could not take).
    @discardableResult
    func upload(_ file: URL, showsModal: Bool = true, resuming: UploadSessionMark? = nil) -> Bool {
        if let problem = Self.uploadProblem(file) {
            context.say(.error(problem))
            return false
        }
        var name = file.lastPathComponent
        if !ClubLayout.hasExtension(name, in: ClubLayout.photoExtensions) { name += "." + Self.photoExtension(of: file) }
        let target = configuration.layout.photosFolder + "/" + name
        if configuration.outbox != nil, outboxRunner?.shouldQueue ?? false {
            return queueUpload(file, to: target)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        let id = context.model.nextID()
        let transfer = PhotoTransfer(id: id, progress: TransferProgress(direction: .upload, name: name, total: size), remotePath: target, local: file)
        starters[id] = { [weak self] in self?.startUpload(id, file: file, to: target, resuming: resuming) }
        apply { $0.enqueue(transfer, showsModal: showsModal) }
        return true
    }

    /// Runs the task of queued upload `id`.
    ///
    /// With a background agent to hand it to, a store that can continue sessions reports each
    /// session's mark (``uploadSessions``): quitting to the background then hands the session
    /// over rather than the file, and the agent goes on at the server's offset.
    private func startUpload(_ id: Int, file: URL, to target: String, resuming: UploadSessionMark?) {
        let writes = context.writes
        let relay = progressRelay(id)
        let sessions = uploadSessions
        let handsOver = configuration.agent != nil || resuming != nil
        let report: @Sendable (UploadSessionMark) -> Void = { (mark: UploadSessionMark) in sessions.set(id, mark) }
        let onSession = handsOver ? report : nil
        tasks[id] = context.perform({ () async throws(RemoteError) -> RemoteEntry in
            try await writes.uploadPhoto(file, to: target, resuming: resuming, onSession: onSession, progress: relay)
        }) { [weak self] result in
            guard let self else { return }
            self.tasks[id] = nil
            // A cancelled one's mark stays: a hand-over in progress reads it.
            switch result {
            case .failure(.cancelled): break
            default: sessions.set(id, nil)
            }
            let now = self.context.effects.now()
            self.apply { $0.uploadFinished(id, result, at: now) }
            if case .success(let entry) = result { self.afterUpload.removeValue(forKey: file.path)?(entry) }
            if case .failure(let error) = result, error.isUnreachable, self.configuration.outbox != nil {
                // The server went away: the outbox sends it (read from disk again) when it is back.
                self.outboxRunner?.reachability(error)
                self.queueUpload(file, to: target)
            }
        }
    }

    /// Queues an upload in the outbox by path: the file is read again when it is sent, and one
    /// changed or gone by then is reported, not sent.
    @discardableResult
    func queueUpload(_ file: URL, to target: String) -> Bool {
        guard let outbox = outboxRunner else { return false }
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        let item = OutboxItem(kind: .upload, path: target, title: file.lastPathComponent, localFile: file.path,
                              localSize: (attributes?[.size] as? NSNumber)?.int64Value, localModified: attributes?[.modificationDate] as? Date,
                              queued: configuration.format.now())
        let name = TerminalSafe.escape(file.lastPathComponent)
        let why = state.offline.isOffline ? "the server cannot be reached" : "older changes are still being sent"
        return outbox.queue([item], saying: "\"\(name)\" waits in the outbox: \(why); it is uploaded by itself")
    }

    // MARK: Download

    /// Downloads `entry` (queued, started as soon as a slot is free), resuming a paused download
    /// of the same rev. `showsModal`: the modal shows it.
    func download(_ entry: RemoteEntry, showsModal: Bool = true) {
        if let earlier = state.transfers.transfer(ofPath: entry.path) {
            if earlier.progress.isActive {
                apply { $0.show(earlier.id); return [] }
                return
            }
            if earlier.isRunning {
                // Esc was just pressed: its resume data is on the way; a second task now would
                // share the partial file.
                context.say(StatusMessage("Still stopping the last download of \"\(TerminalSafe.escape(entry.name))\"; press Enter again in a moment"))
                return
            }
            // An ended one (a failure still on record): Enter tries again.
            apply { $0.forget(earlier.id); return [] }
        }
        guard let directory = configuration.downloadDirectory else {
            context.say(.error("No download folder is set (--download-dir)"))
            return
        }
        var resume: PausedDownload? = state.paused[entry.pathLower]
        if let paused = resume, paused.rev != entry.rev {
            configuration.pausedDownloads?.remove(entry.path)
            context.update {
                $0.paused[entry.pathLower] = nil
                $0.message = StatusMessage("\"\(TerminalSafe.escape(entry.name))\" changed since the download paused; starting again")
            }
            resume = nil
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            context.say(.error("Cannot create \(directory.path): \(error.localizedDescription)"))
            return
        }
        // The server chose the name: only a single safe path component names a file here.
        let local = SafeName.sanitized(entry.name)
        let part = directory.appendingPathComponent(Self.partName(for: local))
        let progress = TransferProgress(direction: .download, name: entry.name, total: entry.size, resumedFrom: resume?.done ?? 0)
        let id = context.model.nextID()
        starters[id] = { [weak self] in self?.startDownload(id, entry: entry, to: part, in: directory, resume: resume) }
        apply { $0.enqueue(PhotoTransfer(id: id, progress: progress, remotePath: entry.path, local: part), showsModal: showsModal) }
        // Queued, it said so; a batch says it once for all.
        guard showsModal, state.transfers[id]?.isQueued == false else { return }
        context.update {
            if let resume {
                $0.message = StatusMessage("Resuming at \(resume.percent)%")
            } else if $0.message?.text.contains("starting again") != true {
                $0.message = StatusMessage("Downloading \"\(TerminalSafe.escape(entry.name))\"…")
            }
            if let problem = SafeName.problem(entry.name) {
                $0.message = StatusMessage("Downloading \"\(TerminalSafe.escape(entry.name))\" as \"\(TerminalSafe.escape(local))\": the server's name is not a safe file name (\(problem.reason))")
            }
        }
    }

    /// Runs the task of queued download `id`.
    private func startDownload(_ id: Int, entry: RemoteEntry, to part: URL, in directory: URL, resume: PausedDownload?) {
        let store = context.store, paused = configuration.pausedDownloads
        let relay = progressRelay(id)
        let rev = entry.rev, total = entry.size, path = entry.path
        // Written from the network's thread the moment resume data exists, so it survives a crash too.
        let keep: @Sendable (Data) -> Void = { data in
            let done = DownloadResume.offset(of: data) ?? 0
            paused?.save(PausedDownload(path: path, rev: rev, done: done, total: total, resumeData: data))
        }
        let resumeData = resume?.resumeData
        // Left when the download has ended (after its resume data is written): quitting waits.
        let running = downloadsRunning
        running.enter()
        tasks[id] = context.perform({ () async throws(RemoteError) -> RemoteEntry in
            defer { running.leave() }
            return try await store.download(path, to: part, resumeData: resumeData, progress: relay, onResumeData: keep)
        }) { [weak self] result in
            self?.downloadEnded(id, entry: entry, directory: directory, result)
        }
    }

    private func downloadEnded(_ id: Int, entry: RemoteEntry, directory: URL, _ result: Result<RemoteEntry, RemoteError>) {
        tasks[id] = nil
        // Cancelled or failed, what arrived stays as resume data for the next Enter.
        var saved: PausedDownload?
        if case .failure = result {
            saved = configuration.pausedDownloads?.all().first { $0.path.lowercased() == entry.pathLower }
            context.update { $0.paused[entry.pathLower] = saved }
        }
        let actions = mutateTransfers { $0.downloadFinished(id, result, resumable: saved != nil) }
        guard actions.contains(.placeDownload(id)), let transfer = state.transfers[id] else {
            perform(actions)
            return
        }
        // The rest (the next queued transfer's start) goes on while this one is placed below.
        perform(actions.filter { $0 != .placeDownload(id) })
        let local = SafeName.sanitized(entry.name)
        do {
            let final = try Self.placeUnique(transfer.local, in: directory, name: local)
            configuration.pausedDownloads?.remove(entry.path)
            context.update { $0.paused[entry.pathLower] = nil }
            apply { $0.downloadPlaced(id, at: final) }
            if let problem = SafeName.problem(entry.name) {
                context.say(StatusMessage("Downloaded \"\(TerminalSafe.escape(entry.name))\" to \(TerminalSafe.escape(final.path)): renamed, as the server's name is not a safe file name (\(problem.reason))"))
            }
        } catch {
            apply { $0.downloadNotPlaced(id, why: error.message) }
        }
    }

    /// The hidden part file a download of `name` (a safe name) is written to, beside where it
    /// will land; cut so it still fits in 255 bytes.
    nonisolated static func partName(for name: String) -> String {
        let suffix = ".byteclub-download"
        var stem = Substring(name)
        while !stem.isEmpty, 1 + stem.utf8.count + suffix.utf8.count > SafeName.maxBytes { stem.removeLast() }
        return "." + stem + suffix
    }

    /// Moves a finished download (a file in `directory`) to `name` there, or `name (1).jpg` and
    /// so on if taken; by name, relative to the folder held open (``LocalFolder``), so neither
    /// name can leave the folder.
    nonisolated static func placeUnique(_ file: URL, in directory: URL, name: String) throws(RemoteError) -> URL {
        let folder = try LocalFolder(directory)
        return folder.url(of: try folder.placeUnique(file.lastPathComponent, as: name))
    }
}
