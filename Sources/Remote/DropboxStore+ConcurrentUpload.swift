import DropboxWire
import Foundation
import Synchronization
import Transfer

extension DropboxStore: ParallelTransferStore {
    /// Large files (``TransferStreams/minimumSize(requested:)`` and up) over `streams` connections at once, by
    /// a concurrent upload session; smaller ones, one stream, or a bandwidth limit (which is per
    /// transfer, and which one stream fills), as ever.
    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?,
                       streams: Int?) async throws(RemoteError) -> RemoteEntry {
        let minimum = TransferStreams.minimumSize(requested: streams)
        let streams = TransferStreams.resolved(streams, server: endpoints.content)
        let size = try Self.regularFileSize(file)
        guard streams > 1, size >= minimum, size > singleUploadLimit, configuration.maxSendBytesPerSecond == nil else {
            return try await uploadOverOneConnection(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
        }
        return try await concurrentUpload(content: .file(file), size: size, to: path, mode: mode, autorename: autorename, progress: progress, streams: streams)
    }

    /// A concurrent upload session: start (no data), every block appended by one of `streams`
    /// workers at its offset (the last one closing the session), then finish (no data) with the
    /// file's content hash, which the server checks before it commits.
    ///
    /// Each block's append is retried on its own like any idempotent call (a lost connection,
    /// a 429, a 5xx, an expired token): the server takes a block sent twice. Bodies are read
    /// from the file by the transfer, a buffer at a time, so memory stays the same whatever
    /// the size and the streams. Cancelling the calling task cancels every stream.
    ///
    /// `resuming` continues a session another process began (``ResumableUploadStore``): only the
    /// blocks its mark does not list are sent, cut as that process cut them. `onSession` hears
    /// the session's mark once it exists and after every acknowledged block.
    func concurrentUpload(content: UploadContent, size: Int64, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?,
                          streams: Int, resuming: UploadSessionMark? = nil,
                          onSession: (@Sendable (UploadSessionMark) -> Void)? = nil) async throws(RemoteError) -> RemoteEntry {
        // A source is checked by whoever reads it (an encrypted club's reader authenticates every
        // chunk): hashing it here would make it once more, end to end, before the first block.
        var contentHash: String?
        if case .file(let file) = content {
            do { contentHash = try ContentHasher.hash(fileAt: file.path) } catch { throw .local("Cannot read \(file.path): \(error)") }
        }
        let sessionID: String
        let plan: SharedPlan<ConcurrentUploadPlan>
        if let resuming, let block = resuming.blockSize,
           let resumed = ConcurrentUploadPlan(size: size, block: block, acknowledged: resuming.blocksDone ?? []) {
            sessionID = resuming.sessionID
            plan = SharedPlan(resumed)
        } else {
            sessionID = try await withRetries(idempotent: true) { () async throws(RemoteError) -> String in
                let request = try await self.request(.sessionStart,
                                                     arg: ["close": false, "session_type": UploadSessionType.concurrent.taggedObject])
                let reply = await self.exchange(request, body: .data(Data()))
                try self.check(reply, path: path)
                return try Self.decode(UploadSessionStart.self, from: reply.body).sessionID
            }
            plan = SharedPlan(ConcurrentUploadPlan(size: size, streams: streams, largestBlock: chunkSize))
        }
        onSession?(plan.withLock { $0.mark(sessionID) })
        progress?(plan.withLock { $0.done }, size)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<min(streams, plan.withLock { $0.blocks.count }) {
                    group.addTask {
                        while let index = plan.withLock({ $0.take() }) {
                            try Task.checkCancellation()
                            let block = plan.withLock { $0.blocks[index] }
                            try await self.append(block, index: index, sessionID: sessionID, content: content, path: path, plan: plan,
                                                  size: size, progress: progress)
                            // Only a caller that hands the session on pays for its marks.
                            if let onSession { onSession(plan.withLock { $0.acknowledge(index, session: sessionID) }) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        } catch let error as RemoteError {
            throw error
        } catch {
            throw .cancelled
        }
        return try await finishConcurrent(sessionID: sessionID, size: size, contentHash: contentHash, content: content, path: path, mode: mode,
                                          autorename: autorename)
    }

    private func append(_ block: ConcurrentUploadPlan.Block, index: Int, sessionID: String, content: UploadContent, path: String,
                        plan: SharedPlan<ConcurrentUploadPlan>, size: Int64, progress: ProgressHandler?) async throws(RemoteError) {
        var blockProgress: ProgressHandler? = nil
        if let progress {
            blockProgress = { @Sendable (sent: Int64, _: Int64) -> Void in
                progress(plan.withLock { $0.progressed(index, sent: sent) }, size)
            }
        }
        try await withRetries(idempotent: true) { () async throws(RemoteError) -> Void in
            blockProgress?(0, block.length)
            let cursor: [String: Any] = ["session_id": sessionID, "offset": block.offset]
            let request = try await self.request(.sessionAppend,
                                                 arg: ["cursor": cursor, "close": block.closing])
            let reply = await self.exchange(request, body: content.body(offset: block.offset, length: block.length), progress: blockProgress)
            try self.check(reply, path: path)
        }
    }

    /// Commits the session. A finish whose answer was lost may have committed already; its
    /// retry then finds the session gone, and what is at the path is checked instead.
    private func finishConcurrent(sessionID: String, size: Int64, contentHash: String?, content: UploadContent, path: String, mode: WriteMode,
                                  autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        let commit: [String: Any] = ["path": path, "mode": mode.jsonValue, "autorename": autorename, "mute": false, "strict_conflict": false]
        let cursor: [String: Any] = ["session_id": sessionID, "offset": size]
        var tries = 0
        return try await withRetries(idempotent: true) { () async throws(RemoteError) -> RemoteEntry in
            tries += 1
            let request = try await self.request(.sessionFinish,
                                                 arg: ["cursor": cursor, "commit": commit])
            let reply = await self.exchange(request, body: .data(Data()))
            if let error = reply.error {
                let remote = Self.remoteError(error, response: reply.response, path: path, credential: self.credential)
                if case .notFound = remote, tries > 1 { return try await self.verifyCommitted(content: content, path: path) }
                throw remote
            }
            // The spec's `content_hash` covers only the bytes of one call (none here), so the
            // whole file is checked against what the server committed.
            let entry = try RemoteEntry(try Self.decode(FileMetadata.self, from: reply.body))
            guard entry.contentHash == nil || contentHash == nil || entry.contentHash == contentHash else {
                throw RemoteError.local("\(path) arrived damaged: its content hash differs from the local file's")
            }
            return entry
        }
    }
}
