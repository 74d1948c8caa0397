import Foundation
import Remote

/// Running the transfers: start what is queued (up to ``AgentEngine/concurrency``), report
/// progress, keep the marks that let a later agent continue, and record how each ended.
extension AgentEngine {
    /// Starts queued transfers while there is room and a store.
    func schedule() {
        defer { rearmIdle() }
        guard store != nil else { return }
        for transfer in queue.admit() {
            lastEvent[transfer.id] = nil
            tasks[transfer.id] = Task { [weak self] in
                let outcome: Outcome
                do {
                    guard let store = try await self?.store(limitedTo: transfer.bandwidthLimit) else { return }
                    outcome = await Self.perform(transfer, store: store, engine: self)
                } catch {
                    outcome = .failed(.local("cannot reach the club: \(error)"))
                }
                await self?.ended(transfer.id, outcome)
            }
            broadcast(transfer)
        }
        persist()
    }

    /// How a transfer's task ended.
    enum Outcome: Sendable {
        case done(RemoteEntry)
        case failed(RemoteError)
    }

    /// Moves the bytes. Runs off the actor; reports back through `engine`.
    nonisolated static func perform(_ transfer: AgentTransfer, store: any RemoteStore, engine: AgentEngine?) async -> Outcome {
        let id = transfer.id
        let progress: ProgressHandler = { [weak engine] done, total in
            guard let engine else { return }
            Task { await engine.progressed(id, done: done, total: total) }
        }
        do {
            switch transfer.kind {
            case .upload:
                let file = URL(fileURLWithPath: transfer.local)
                if let resumable = store as? any ResumableUploadStore {
                    let entry = try await resumable.upload(file: file, to: transfer.remote, mode: transfer.mode, autorename: transfer.autorename,
                                                           resuming: transfer.session, streams: transfer.streams, onSession: { [weak engine] mark in
                                                               guard let engine else { return }
                                                               Task { await engine.marked(id, mark) }
                                                           }, progress: progress)
                    return .done(entry)
                }
                if let parallel = store as? any ParallelTransferStore {
                    return .done(try await parallel.upload(file: file, to: transfer.remote, mode: transfer.mode, autorename: transfer.autorename,
                                                           progress: progress, streams: transfer.streams))
                }
                return .done(try await store.upload(file: file, to: transfer.remote, mode: transfer.mode, autorename: transfer.autorename, progress: progress))
            case .download:
                let destination = URL(fileURLWithPath: transfer.local)
                try? FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                let resumeData = try await partialDownload(transfer, store: store, engine: engine)
                let entry = try await store.download(transfer.remote, to: destination, resumeData: resumeData, progress: progress,
                                                     onResumeData: { [weak engine] data in
                                                         guard let engine else { return }
                                                         Task { await engine.keepResumeData(id, data) }
                                                     })
                return .done(entry)
            }
        } catch {
            return .failed(error)
        }
    }

    /// Where a download's bytes go until it is whole: a partial file named in the journal (as
    /// resume data) before the first byte arrives, so a new agent after `kill -9` continues
    /// at the file's size with `Range` and `If-Range` rather than from the first byte.
    /// A transfer that already has resume data (paused, or killed) continues it.
    nonisolated static func partialDownload(_ transfer: AgentTransfer, store: any RemoteStore, engine: AgentEngine?) async throws(RemoteError) -> Data? {
        if let kept = transfer.resumeData, let continued = DownloadResume.continuing(kept) { return continued }
        guard let engine, let partialStore = store as? any PartialDownloadStore, !transfer.remote.hasPrefix("rev:") else { return nil }
        let partial = engine.partials.appendingPathComponent("\(transfer.id).part")
        guard let data = try await partialStore.partialDownload(of: transfer.remote, at: partial) else { return nil }
        // Journaled before the download starts: a kill from here on leaves the path on record.
        await engine.keepResumeData(transfer.id, data)
        return data
    }

    /// The folder of downloads' partial files, beside the journal.
    nonisolated var partials: URL {
        journal.url.deletingLastPathComponent().appendingPathComponent("partials", isDirectory: true)
    }

    /// Removes the partial file a download's resume data names (cancelled, cleared or done).
    nonisolated static func discardPartial(_ transfer: AgentTransfer) {
        guard transfer.kind == .download, let data = transfer.resumeData, let path = DownloadResume.partialPath(of: data) else { return }
        unlink(path)
    }

    func progressed(_ id: String, done: Int64, total: Int64) {
        guard queue[id]?.state == .running else { return }
        queue.update(id) { transfer in
            transfer.done = done
            transfer.total = total
        }
        let now = ContinuousClock.now
        if let last = lastEvent[id], now - last < .milliseconds(100), done < total { return }
        lastEvent[id] = now
        if let transfer = queue[id] { broadcast(transfer) }
    }

    /// An upload chunk was acknowledged: journaled, so a new agent continues from here.
    func marked(_ id: String, _ mark: UploadSessionMark) {
        guard queue[id]?.state == .running else { return }
        queue.update(id) { transfer in
            transfer.session = mark
            transfer.done = max(transfer.done, mark.offset)
        }
        persist()
    }

    func keepResumeData(_ id: String, _ data: Data) {
        guard let state = queue[id]?.state, state != .cancelled else { return }
        queue.update(id) { $0.resumeData = data }
        persist()
    }

    func ended(_ id: String, _ outcome: Outcome) {
        tasks[id] = nil
        lastEvent[id] = nil
        let succeeded = if case .done = outcome { true } else { false }
        guard let was = queue.end(id, succeeded: succeeded), var transfer = queue[id] else { return }
        switch (was, outcome) {
        case (.running, .done(let entry)):
            transfer.result = entry.path
            transfer.total = max(transfer.total, entry.size)
            transfer.done = transfer.total
            transfer.session = nil
            // Moved into place by now; a download that started over leaves its first partial.
            Self.discardPartial(transfer)
            transfer.resumeData = nil
        case (.running, .failed(let error)):
            transfer.error = error.message
        case (.cancelled, _):
            // A cancelled download leaves nothing half-written behind.
            if transfer.kind == .download, case .failed = outcome {
                Self.discardPartial(transfer)
                transfer.resumeData = nil
            }
        default:
            // Paused: the state was set by the pause; the resume data or session mark is kept.
            break
        }
        queue.update(id) { $0 = transfer }
        persist()
        broadcast(transfer)
        schedule()
    }
}
