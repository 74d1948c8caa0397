import Dispatch
import Foundation
import Remote
import TerminalUI
import Transfer

/// An upload or download of a photo, as the app follows it.
public struct PhotoTransfer: Sendable {
    public let id: Int
    public var progress: TransferProgress
    /// The photo's path in the club folder (for an upload: where it goes).
    public var remotePath: String
    /// The local file read (upload) or written (download).
    public var local: URL
    /// Sent to the background with `b`: shown in the status bar, not in the modal.
    public var isBackground = false
}

/// Uploads (`u`) and downloads (`Enter` on a photo) with the transfer modal.
extension ClubApp {
    /// Seconds on the monotonic clock, for rates and ETAs.
    private var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The transfers still running, oldest first.
    public var activeTransfers: [PhotoTransfer] {
        transfers.values.filter { $0.progress.isActive }.sorted { $0.id < $1.id }
    }

    // MARK: Upload

    /// `u`: the file chooser, then the upload.
    public func chooseUpload() {
        let start = configuration.uploadStartDirectory
        let home = URL(fileURLWithPath: ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory())
        let state = FileChooserState(directory: start, extensions: ClubLayout.photoExtensions, homeDirectory: home)
        let chooser = FileChooser(title: "Upload a photo", state: state) { [weak self] result in
            if case .chosen(let url) = result { self?.upload(url) }
        }
        compositor.push(chooser)
    }

    /// Why `file` cannot be uploaded as a photo, or nil.
    nonisolated static func uploadProblem(_ file: URL) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            return "No such file: \(file.path)"
        }
        if isDirectory.boolValue { return "\(file.lastPathComponent) is a folder, not a photo" }
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "Cannot read \(file.path)" }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 3)) ?? Data()
        guard magic.count == 3, magic[magic.startIndex] == 0xFF, magic[magic.startIndex + 1] == 0xD8, magic[magic.startIndex + 2] == 0xFF else {
            return "\(file.lastPathComponent) is not a JPEG photo; PanoPhotos takes .jpg files"
        }
        return nil
    }

    /// Uploads `file` to the photos folder (renamed if the name is taken), with the modal.
    public func upload(_ file: URL) {
        if let problem = Self.uploadProblem(file) {
            update { $0.message = .error(problem) }
            return
        }
        var name = file.lastPathComponent
        if !ClubLayout.hasExtension(name, in: ClubLayout.photoExtensions) { name += ".jpg" }
        let target = configuration.layout.photosFolder + "/" + name
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        var progress = TransferProgress(direction: .upload, name: name, total: size)
        _ = progress.start(total: size, at: now)
        let id = nextGeneration()
        transfers[id] = PhotoTransfer(id: id, progress: progress, remotePath: target, local: file)
        showModal(id)
        startTicker()
        update {
            $0.runningTransfers += 1
            $0.message = StatusMessage("Uploading \"\(name)\"…")
        }
        let store = self.store
        let relay = progressRelay(id)
        transferTasks[id] = perform({ () async throws(RemoteError) in
            try await store.upload(file: file, to: target, mode: .add, autorename: true, progress: relay)
        }) { [weak self] result in
            self?.finishUpload(id, result)
        }
    }

    private func finishUpload(_ id: Int, _ result: Result<RemoteEntry, RemoteError>) {
        transferTasks[id] = nil
        guard var transfer = transfers[id] else { return }
        update { $0.runningTransfers = max(0, $0.runningTransfers - 1) }
        switch result {
        case .success(let entry) where transfer.progress.phase == .cancelled:
            // Esc came after the server had committed the file: take it back, as cancel promises.
            transfers[id] = nil
            let store = self.store
            perform({ () async throws(RemoteError) in try await store.delete(entry.path) }) { [weak self] result in
                if case .failure(let error) = result {
                    self?.update { $0.message = .error("The upload finished as it was cancelled, and \"\(entry.name)\" could not be removed: \(error.message)") }
                } else {
                    self?.update { $0.message = StatusMessage("Upload cancelled") }
                }
            }
        case .success(let entry):
            _ = transfer.progress.finish(at: now)
            transfers[id] = nil
            closeModal(id)
            update { $0.message = StatusMessage("Uploaded \"\(entry.name)\"") }
            refresh(.photos, select: entry.pathLower)
        case .failure(.cancelled):
            transfers[id] = nil
            closeModal(id)
            update { $0.message = StatusMessage("Upload cancelled") }
        case .failure(let error):
            _ = transfer.progress.fail(error.message)
            transfers[id] = transfer
            syncModal(id)
            update { $0.message = .error("Upload of \"\(transfer.progress.name)\" failed: \(error.message)") }
            if transfer.isBackground || transferModalID != id { transfers[id] = nil }
        }
    }

    // MARK: Download

    /// `Enter` on a photo: downloads it, resuming a paused download of the same rev.
    public func downloadSelectedPhoto() {
        guard let entry = selectedPhoto else { return }
        if let earlier = transfers.values.first(where: { $0.remotePath.lowercased() == entry.pathLower }) {
            if earlier.progress.isActive {
                showModal(earlier.id)
                return
            }
            if transferTasks[earlier.id] != nil {
                // Esc was just pressed: its resume data is on the way; a second task now would
                // share the partial file.
                update { $0.message = StatusMessage("Still stopping the last download of \"\(entry.name)\"; press Enter again in a moment") }
                return
            }
            // An ended one (a failure still on record): Enter tries again.
            if transferModalID == earlier.id { closeModal(earlier.id) }
            transfers[earlier.id] = nil
        }
        guard let directory = configuration.downloadDirectory else {
            update { $0.message = .error("No download folder is set (--download-dir)") }
            return
        }
        var resume: PausedDownload? = state.paused[entry.pathLower]
        if let paused = resume, paused.rev != entry.rev {
            configuration.pausedDownloads?.remove(entry.path)
            update { $0.paused[entry.pathLower] = nil }
            resume = nil
            update { $0.message = StatusMessage("\"\(entry.name)\" changed since the download paused; starting again") }
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            update { $0.message = .error("Cannot create \(directory.path): \(error.localizedDescription)") }
            return
        }
        let part = directory.appendingPathComponent(".\(entry.name).byteclub-download")
        var progress = TransferProgress(direction: .download, name: entry.name, total: entry.size, resumedFrom: resume?.done ?? 0)
        _ = progress.start(total: entry.size, at: now)
        let id = nextGeneration()
        transfers[id] = PhotoTransfer(id: id, progress: progress, remotePath: entry.path, local: part)
        showModal(id)
        startTicker()
        update {
            $0.runningTransfers += 1
            if let resume {
                $0.message = StatusMessage("Resuming at \(resume.percent)%")
            } else if $0.message?.text.contains("starting again") != true {
                $0.message = StatusMessage("Downloading \"\(entry.name)\"…")
            }
        }
        let store = self.store, paused = configuration.pausedDownloads
        let relay = progressRelay(id)
        let rev = entry.rev, total = entry.size, path = entry.path
        // Written from Transfer's queue the moment resume data exists, so it survives a crash too.
        let keep: @Sendable (Data) -> Void = { data in
            let done = (try? ResumeData.decode(data).get())?.offset ?? 0
            paused?.save(PausedDownload(path: path, rev: rev, done: done, total: total, resumeData: data))
        }
        let resumeData = resume?.resumeData
        // Left when the download has ended (after its resume data is written): quitting waits.
        let running = downloadsRunning
        running.enter()
        transferTasks[id] = perform({ () async throws(RemoteError) -> RemoteEntry in
            defer { running.leave() }
            return try await store.download(path, to: part, resumeData: resumeData, progress: relay, onResumeData: keep)
        }) { [weak self] result in
            self?.finishDownload(id, entry: entry, directory: directory, result)
        }
    }

    private func finishDownload(_ id: Int, entry: RemoteEntry, directory: URL, _ result: Result<RemoteEntry, RemoteError>) {
        transferTasks[id] = nil
        guard var transfer = transfers[id] else { return }
        update { $0.runningTransfers = max(0, $0.runningTransfers - 1) }
        switch result {
        case .success:
            do {
                let final = try Self.placeUnique(transfer.local, in: directory, name: entry.name)
                configuration.pausedDownloads?.remove(entry.path)
                transfers[id] = nil
                closeModal(id)
                update {
                    $0.paused[entry.pathLower] = nil
                    $0.message = StatusMessage("Downloaded \"\(entry.name)\" to \(final.path)")
                }
            } catch {
                _ = transfer.progress.fail("Cannot place the file: \(error.localizedDescription)")
                transfers[id] = transfer
                syncModal(id)
                try? FileManager.default.removeItem(at: transfer.local)
                if transfer.isBackground || transferModalID != id { transfers[id] = nil }
                update { $0.message = .error("Downloaded \"\(entry.name)\" but cannot place it: \(error.localizedDescription)") }
            }
        case .failure(let error):
            // Cancelled or failed, what arrived stays as resume data for the next Enter.
            let saved = configuration.pausedDownloads?.all().first { $0.path.lowercased() == entry.pathLower }
            if case .cancelled = error {
                transfers[id] = nil
                closeModal(id)
            } else {
                _ = transfer.progress.fail(error.message)
                transfers[id] = transfer
                syncModal(id)
                if transfer.isBackground || transferModalID != id { transfers[id] = nil }
            }
            update {
                $0.paused[entry.pathLower] = saved
                if case .cancelled = error {
                    $0.message = StatusMessage(saved == nil ? "Download cancelled" : "Download paused, Enter resumes")
                } else {
                    $0.message = .error("Download of \"\(entry.name)\" failed: \(error.message)" + (saved == nil ? "" : "; Enter resumes"))
                }
            }
        }
    }

    /// Moves a finished download to `name` in `directory`, or `name (1).jpg` and so on if taken.
    nonisolated static func placeUnique(_ file: URL, in directory: URL, name: String) throws -> URL {
        let title = ClubLayout.title(of: name)
        let ext = String(name.dropFirst(title.count))
        for attempt in 0..<10_000 {
            let candidate = directory.appendingPathComponent(attempt == 0 ? name : "\(title) (\(attempt))\(ext)")
            // link() fails if the name exists, so two downloads never take the same name.
            if link(file.path, candidate.path) == 0 {
                unlink(file.path)
                return candidate
            }
            switch errno {
            case EEXIST:
                continue
            case EPERM, ENOTSUP, EOPNOTSUPP, EXDEV:
                // No hard links here (vfat, some network mounts): rename to a name not taken.
                if !FileManager.default.fileExists(atPath: candidate.path) {
                    guard rename(file.path, candidate.path) == 0 else { break }
                    return candidate
                }
                continue
            default:
                break
            }
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: candidate.path])
        }
        throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: directory.path])
    }

    // MARK: The modal

    /// A progress handler that forwards to the UI queue.
    private func progressRelay(_ id: Int) -> ProgressHandler {
        { [weak self] done, expected in
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self?.transferProgressed(id, done: done, expected: expected) }
            }
        }
    }

    private func transferProgressed(_ id: Int, done: Int64, expected: Int64) {
        transferProgressEvents += 1
        guard var transfer = transfers[id] else { return }
        _ = transfer.progress.progress(done: done, total: expected > 0 ? expected : nil, at: now)
        transfers[id] = transfer
        syncModal(id)
        compositor.setNeedsRedraw()
    }

    /// While transfers run: the figures are fed again 4 times a second, so a stalled connection
    /// shows its rate falling instead of the last one, and the spinner turns.
    private func startTicker() {
        guard transferTicker == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.tick() }
        }
        transferTicker = timer
        onBusyChanged?(true)
        timer.resume()
    }

    private func tick() {
        let active = transfers.values.filter { $0.progress.isActive }
        guard !active.isEmpty else {
            transferTicker?.cancel()
            transferTicker = nil
            onBusyChanged?(isAnimating)
            return
        }
        for transfer in active {
            var updated = transfer
            _ = updated.progress.progress(done: transfer.progress.done, at: now)
            transfers[transfer.id] = updated
            syncModal(transfer.id)
        }
        compositor.setNeedsRedraw()
    }

    /// Shows transfer `id` in the modal (`t` reopens the newest background one).
    func showModal(_ id: Int) {
        guard var transfer = transfers[id] else { return }
        transfer.isBackground = false
        transfers[id] = transfer
        if let modal = transferModal { compositor.remove(modal) }
        let modal = TransferModal(transfer.progress) { [weak self] outcome in
            self?.modalOutcome(id, outcome)
        }
        transferModal = modal
        transferModalID = id
        compositor.push(modal)
    }

    public func showBackgroundTransfer() {
        guard let newest = activeTransfers.last else {
            update { $0.message = StatusMessage("No transfer is running") }
            return
        }
        showModal(newest.id)
    }

    private func syncModal(_ id: Int) {
        guard let modal = transferModal, transferModalID == id, let transfer = transfers[id] else { return }
        modal.transfer = transfer.progress
    }

    private func closeModal(_ id: Int) {
        guard let modal = transferModal, transferModalID == id else { return }
        compositor.remove(modal)
        transferModal = nil
        transferModalID = nil
    }

    private func modalOutcome(_ id: Int, _ outcome: TransferModal.Outcome) {
        switch outcome {
        case .cancel:
            cancelTransfer(id)
        case .background:
            transfers[id]?.isBackground = true
            closeModal(id)
            update { $0.message = StatusMessage("Still running in the background · t shows it") }
        case .close:
            closeModal(id)
            if transfers[id]?.progress.isActive == false { transfers[id] = nil }
        }
    }

    /// Cancels a transfer at once: the modal goes now, the connection is aborted by the task's
    /// cancellation, and the final status follows when the task ends.
    public func cancelTransfer(_ id: Int) {
        closeModal(id)
        guard var transfer = transfers[id] else { return }
        _ = transfer.progress.direction == .download ? transfer.progress.pause() : transfer.progress.cancel()
        transfers[id] = transfer
        transferTasks[id]?.cancel()
        update { $0.message = StatusMessage(transfer.progress.direction == .upload ? "Cancelling the upload…" : "Pausing the download…") }
    }

    /// On the way out: downloads stop with their resume data (so `Enter` resumes them next time),
    /// uploads stop. The resume data is written from Transfer's queue, not this one, so it lands
    /// while the process waits for the session to close.
    public func stopTransfersForExit() {
        for (id, task) in transferTasks {
            logger.info("stopping a transfer on exit", metadata: ["name": "\(transfers[id]?.progress.name ?? "")"])
            task.cancel()
        }
        // The downloads' ends run off this queue, so waiting here cannot block them.
        if downloadsRunning.wait(timeout: .now() + 2) == .timedOut {
            logger.warning("a download did not stop within 2 s; its resume data may be older")
        }
    }

    /// Reads the paused downloads kept from earlier runs.
    func reloadPausedDownloads() {
        guard let store = configuration.pausedDownloads else { return }
        let all = store.all()
        update { state in
            state.paused = Dictionary(all.map { ($0.path.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        }
    }
}

extension ClubApp {
    /// `d` on a photo: asks, then deletes it from the club folder.
    public func deleteSelectedPhoto() {
        guard let entry = selectedPhoto else { return }
        confirmDelete(entry, kind: "photo", tab: .photos) {}
    }

    /// Asks "Delete x from the club folder?" (Cancel the default), then deletes and refreshes `tab`.
    func confirmDelete(_ entry: RemoteEntry, kind: String, tab: Tab, then deleted: @escaping @MainActor () -> Void) {
        let modal = Modal(title: "Delete \(kind)", body: ["Delete \"\(entry.name)\" from the club folder?"], buttons: ["Delete", "Cancel"])
        compositor.push(DialogLayer(modal, selected: 1) { [weak self] choice in
            guard choice == 0, let self else { return }
            self.update {
                $0.beginRequest()
                $0.message = StatusMessage("Deleting \"\(entry.name)\"…")
            }
            let store = self.store
            self.perform({ () async throws(RemoteError) in try await store.delete(entry.path) }) { [weak self] result in
                guard let self else { return }
                self.update { $0.endRequest() }
                switch result {
                case .success:
                    deleted()
                    self.update { $0.message = StatusMessage("Deleted \"\(entry.name)\"") }
                    self.refresh(tab)
                case .failure(let error):
                    self.update { $0.message = .error("Could not delete \"\(entry.name)\": \(error.message)") }
                }
            }
        })
    }
}
