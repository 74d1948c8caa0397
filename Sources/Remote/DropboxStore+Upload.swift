import DropboxWire
import Foundation
import Transfer

extension DropboxStore {
    public func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        var hasher = ContentHasher()
        hasher.update(data)
        return try await singleUpload(.data(data), contentHash: hasher.finalize(), to: path, mode: mode, autorename: autorename, progress: nil)
    }

    /// Over ``TransferStreams/automatic(for:)`` streams when the file is large (``upload(file:to:mode:autorename:progress:streams:)``).
    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        try await upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress, streams: nil)
    }

    /// The size of the regular file at `file`, or why it cannot be uploaded.
    static func regularFileSize(_ file: URL) throws(RemoteError) -> Int64 {
        let size: Int64
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { throw RemoteError.local("Not a regular file: \(file.path)") }
            size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch let error as RemoteError {
            throw error
        } catch {
            throw .local(FileManager.default.fileExists(atPath: file.path) ? "Cannot read \(file.path)" : "No such file: \(file.path)")
        }
        return size
    }

    /// One connection: a single request, or a sequential upload session for a large file.
    func uploadOverOneConnection(file: URL, to path: String, mode: WriteMode, autorename: Bool,
                                 progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let size = try Self.regularFileSize(file)
        if size <= singleUploadLimit {
            let hash: String
            do { hash = try ContentHasher.hash(fileAt: file.path) } catch { throw .local("Cannot read \(file.path): \(error)") }
            return try await singleUpload(.file(file, offset: 0, length: size), contentHash: hash, to: path, mode: mode, autorename: autorename, progress: progress)
        }
        return try await sessionUpload(content: .file(file), size: size, to: path, mode: mode, autorename: autorename, progress: progress)
    }

    /// One request. Retried only where a repeat cannot do harm: `add` and `update`, whose
    /// conflict on a retry is checked against our own content hash (our first try may have
    /// landed before its answer was lost). `overwrite` could clobber a newer write, so no.
    func singleUpload(_ body: Body, contentHash: String, to path: String, mode: WriteMode, autorename: Bool,
                              progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let argument: [String: Any] = ["path": path, "mode": mode.jsonValue, "autorename": autorename, "mute": false, "strict_conflict": false]
        let retriable = mode != .overwrite
        var attempt = 0
        return try await withRetries(idempotent: retriable) { () async throws(RemoteError) -> RemoteEntry in
            attempt += 1
            let request = try await self.request(.upload, arg: argument)
            let reply = await self.exchange(request, body: body, progress: progress)
            if let error = reply.error {
                let remote = Self.remoteError(error, response: reply.response, path: path, credential: self.credential)
                if case .conflict = remote, attempt > 1,
                   let existing = try? await self.metadata(path), existing.contentHash == contentHash {
                    return existing
                }
                throw remote
            }
            return try RemoteEntry(try Self.decode(FileMetadata.self, from: reply.body))
        }
    }

    /// Large files: upload_session start / append_v2 / finish, in chunks.
    func sessionUpload(content: UploadContent, size: Int64, to path: String, mode: WriteMode, autorename: Bool,
                               progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        do {
            return try await sessionLoop(content: content, size: size, to: path, mode: mode, autorename: autorename, resuming: nil,
                                         onSession: { _ in }, progress: progress)
        } catch {
            // `.gone` is for resumed sessions only.
            if case .remote(let failure) = error { throw failure }
            throw .server(status: 409, detail: "the upload session vanished")
        }
    }

    /// The session loop, for a new session or one resumed at its mark (``ResumableUploadStore``).
    ///
    /// ``UploadSessionStateMachine`` decides what to send and when to give up; this carries
    /// out its actions: the requests, the waits, the token refresh and the final check. Throws
    /// ``SessionLoopFailure/gone`` when a resumed session is unknown to the server before any
    /// chunk of ours landed in it; every other failure is a `RemoteError`.
    func sessionLoop(content: UploadContent, size: Int64, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?,
                     emptyStart: Bool = false, onSession: @escaping @Sendable (UploadSessionMark) -> Void,
                                  progress: ProgressHandler?) async throws(SessionLoopFailure) -> RemoteEntry {
        let commit: [String: Any] = ["path": path, "mode": mode.jsonValue, "autorename": autorename, "mute": false, "strict_conflict": false]
        var machine: UploadSessionStateMachine
        if let resuming {
            // The server's offset, asked before a byte is sent: it may hold more than the mark
            // (an append cut short leaves its bytes in a club server's session).
            let held = try await heldOffset(resuming, path: path)
            machine = UploadSessionStateMachine(size: size, chunkSize: chunkSize, retry: retry, resuming: resuming.sessionID, offset: held)
        } else {
            machine = UploadSessionStateMachine(size: size, chunkSize: chunkSize, retry: retry, emptyStart: emptyStart)
        }
        var action = machine.begin()
        var acknowledged = false
        while true {
            switch action {
            case .send(let next, let done):
                if let done { progress?(done, size) }
                if Task.isCancelled {
                    action = machine.cancelled()
                    continue
                }
                let reply: Reply
                do { reply = try await send(next, content: content, commit: commit, size: size, progress: progress) } catch { throw .remote(error) }
                if let error = reply.error {
                    let failure = Self.sessionFailure(error, response: reply.response, path: path, credential: credential)
                    if resuming != nil, !acknowledged, case .refused(_, let summary) = failure, summary.contains("not_found") {
                        throw .gone
                    }
                    action = Task.isCancelled ? machine.cancelled() : machine.failed(failure)
                    continue
                }
                acknowledged = true
                switch next {
                case .start:
                    action = machine.started(sessionID: (try? Self.decode(UploadSessionStart.self, from: reply.body))?.sessionID)
                case .append:
                    action = machine.appended()
                case .finish:
                    action = machine.finished(try? RemoteEntry(try Self.decode(FileMetadata.self, from: reply.body)))
                }
                if case .send = action, let id = machine.sessionID { onSession(UploadSessionMark(sessionID: id, offset: machine.offset)) }
            case .wait(let delay):
                let seconds: TimeInterval
                switch delay {
                case .backoff(let attempt): seconds = retry.delay(afterAttempt: attempt)
                case .retryAfter(let after): seconds = after
                }
                do {
                    try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                    action = machine.waited()
                } catch {
                    action = machine.cancelled()
                }
            case .refreshToken:
                action = machine.tokenRefreshed(await tokens.refreshAfterExpiry(), credential: credential)
            case .verifyCommitted:
                do { return try await verifyCommitted(content: content, path: path) } catch { throw .remote(error) }
            case .succeed(let entry):
                return entry
            case .fail(let error):
                throw .remote(error)
            }
        }
    }

    /// Sends one request of an upload session, its body a range of `content`.
    func send(_ next: UploadSessionStateMachine.Request, content: UploadContent, commit: [String: Any], size: Int64,
                      progress: ProgressHandler?) async throws(RemoteError) -> Reply {
        let base = next.offset
        var chunkProgress: ProgressHandler? = nil
        if let report = progress {
            chunkProgress = { @Sendable (sent: Int64, _: Int64) -> Void in report(base + sent, size) }
        }
        let request: Request
        switch next {
        case .start:
            request = try await self.request(.sessionStart, arg: ["close": false])
        case .append(let id, let offset, _):
            let cursor: [String: Any] = ["session_id": id, "offset": offset]
            request = try await self.request(.sessionAppend, arg: ["cursor": cursor, "close": false])
        case .finish(let id, let offset, _):
            let cursor: [String: Any] = ["session_id": id, "offset": offset]
            request = try await self.request(.sessionFinish, arg: ["cursor": cursor, "commit": commit])
        }
        return await exchange(request, body: content.body(offset: next.offset, length: next.length), progress: chunkProgress)
    }

    /// What a failed session request means to the state machine.
    static func sessionFailure(_ error: TransferError, response: HTTPResponse?, path: String,
                               credential: RemoteError.Credential) -> UploadSessionStateMachine.Failure {
        let remote = remoteError(error, response: response, path: path, credential: credential)
        guard case .httpStatus(409, let body) = error else { return .error(remote) }
        let wire = dropboxError(body)
        // `correct_offset` sits under `incorrect_offset`, at the top or under `lookup_failed`.
        if let correct = wire?.correctOffset { return .incorrectOffset(correct: correct) }
        return .refused(remote, summary: wire?.errorSummary ?? "")
    }

    /// Confirms that what is at `path` is our file, by Dropbox content hash.
    func verifyCommitted(content: UploadContent, path: String) async throws(RemoteError) -> RemoteEntry {
        let hash: String
        do { hash = try content.contentHash() } catch { throw .local("Cannot read \(content.name)") }
        let entry = try await metadata(path)
        guard entry.contentHash == hash else { throw .conflict(path) }
        return entry
    }

}

/// How a session loop ends badly: a resumed session is gone (start a new one), or an error.
enum SessionLoopFailure: Error {
    case gone
    case remote(RemoteError)
}

/// `upload_session/start`'s answer.
struct UploadSessionStart: Decodable {
    var sessionID: String

    enum CodingKeys: String, CodingKey { case sessionID = "session_id" }
}
