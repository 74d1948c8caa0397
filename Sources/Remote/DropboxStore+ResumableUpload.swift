import DropboxWire
import Foundation
import Transfer

/// Upload sessions that another process can continue: the same ``UploadSessionStateMachine``
/// as `upload(file:…)` (or the same concurrent session over `streams` connections), with the
/// session's mark handed out as soon as the session exists and after each acknowledged chunk,
/// and a way back in at the server's offset.
extension DropboxStore: ResumableUploadStore, SourceUploadStore {
    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?, streams: Int?,
                       onSession: @escaping @Sendable (UploadSessionMark) -> Void, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let size = try Self.regularFileSize(file)
        guard size > singleUploadLimit else {
            return try await uploadOverOneConnection(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
        }
        return try await upload(content: .file(file), size: size, to: path, mode: mode, autorename: autorename, resuming: resuming,
                                streams: streams, onSession: onSession, progress: progress)
    }

    /// As a file is sent, but each byte made as it goes: a small one in one request, a large one
    /// by an upload session (continued at `resuming` when given).
    public func upload(source: any UploadSource, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?, streams: Int?,
                       onSession: (@Sendable (UploadSessionMark) -> Void)?, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let size = source.length
        guard size > singleUploadLimit else {
            let hash: String
            do { hash = try UploadContent.source(source).contentHash() } catch { throw .local("Cannot make the upload's body: \(error)") }
            return try await singleUpload(.source(source, offset: 0, length: size), contentHash: hash, to: path, mode: mode, autorename: autorename,
                                         progress: progress)
        }
        guard let onSession else {
            // Nobody to hand the session to: as `put` sends a file.
            let streams = TransferStreams.resolved(streams, server: endpoints.content)
            if streams > 1, size >= TransferStreams.minimumSize(requested: streams), configuration.maxSendBytesPerSecond == nil {
                return try await concurrentUpload(content: .source(source), size: size, to: path, mode: mode, autorename: autorename,
                                                  progress: progress, streams: streams)
            }
            return try await sessionUpload(content: .source(source), size: size, to: path, mode: mode, autorename: autorename, progress: progress)
        }
        return try await upload(content: .source(source), size: size, to: path, mode: mode, autorename: autorename, resuming: resuming,
                                streams: streams, onSession: onSession, progress: progress)
    }

    private func upload(content: UploadContent, size: Int64, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?,
                        streams: Int?, onSession: @escaping @Sendable (UploadSessionMark) -> Void,
                        progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let minimum = TransferStreams.minimumSize(requested: streams)
        let streams = TransferStreams.resolved(streams, server: endpoints.content)
        if let resuming, resuming.isConcurrent {
            do {
                return try await concurrentUpload(content: content, size: size, to: path, mode: mode, autorename: autorename, progress: progress,
                                                  streams: streams, resuming: resuming, onSession: onSession)
            } catch .notFound {
                // Gone (expired, or its server restarted): a new session from the first byte.
            }
        } else if let resuming {
            do {
                return try await sessionLoop(content: content, size: size, to: path, mode: mode, autorename: autorename,
                                             resuming: resuming, onSession: onSession, progress: progress)
            } catch {
                if case .remote(let failure) = error { throw failure }
            }
        }
        // As `put` chooses: one stream for a bandwidth limit (which one stream fills) or a small file.
        if streams > 1, size >= minimum, configuration.maxSendBytesPerSecond == nil {
            return try await concurrentUpload(content: content, size: size, to: path, mode: mode, autorename: autorename, progress: progress,
                                              streams: streams, resuming: nil, onSession: onSession)
        }
        do {
            return try await sessionLoop(content: content, size: size, to: path, mode: mode, autorename: autorename,
                                         resuming: nil, emptyStart: true, onSession: onSession, progress: progress)
        } catch {
            if case .remote(let failure) = error { throw failure }
            throw .server(status: 409, detail: "the upload session vanished")
        }
    }

    /// What a sequential session holds, asked with an empty `append_v2` at the mark's offset:
    /// accepted, the mark is right; `incorrect_offset` names the server's offset. So a session
    /// another process left (its last chunk cut short part-way) goes on from the server's last
    /// byte, and not one byte of the file is sent before the offset is known.
    func heldOffset(_ mark: UploadSessionMark, path: String) async throws(SessionLoopFailure) -> Int64 {
        enum Held { case at(Int64), gone }
        let cursor: [String: Any] = ["session_id": mark.sessionID, "offset": mark.offset]
        let held: Held
        do {
            held = try await withRetries(idempotent: true) { () async throws(RemoteError) -> Held in
                let request = try await self.request(.sessionAppend, arg: ["cursor": cursor, "close": false])
                let reply = await self.exchange(request, body: .data(Data()))
                guard let error = reply.error else { return .at(mark.offset) }
                switch Self.sessionFailure(error, response: reply.response, path: path, credential: self.credential) {
                case .incorrectOffset(let correct): return .at(correct)
                case .refused(_, let summary) where summary.contains("not_found"): return .gone
                case .refused(let failure, _), .error(let failure): throw failure
                }
            }
        } catch {
            throw .remote(error)
        }
        switch held {
        case .at(let offset): return offset
        case .gone: throw .gone
        }
    }
}
