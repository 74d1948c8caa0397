import DropboxWire
import Foundation
import Transfer

/// Upload sessions that another process can continue: the same ``UploadSessionStateMachine``
/// as `upload(file:…)`, one chunk at a time, with the session's mark handed out after each
/// acknowledged chunk and a way back in through ``UploadSessionStateMachine/init(size:chunkSize:retry:resuming:offset:)``.
extension DropboxStore: ResumableUploadStore {
    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?,
                       onSession: @escaping @Sendable (UploadSessionMark) -> Void, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
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
        guard size > singleUploadLimit else {
            return try await upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
        }
        if let resuming {
            do {
                return try await resumableSession(file: file, size: size, to: path, mode: mode, autorename: autorename,
                                                  resuming: resuming, onSession: onSession, progress: progress)
            } catch {
                // Gone (expired, or its server restarted): a new session from the first byte.
                if case .remote(let failure) = error { throw failure }
            }
        }
        do {
            return try await resumableSession(file: file, size: size, to: path, mode: mode, autorename: autorename,
                                              resuming: nil, onSession: onSession, progress: progress)
        } catch {
            if case .remote(let failure) = error { throw failure }
            throw .server(status: 409, detail: "the upload session vanished")
        }
    }

    /// The session loop. Throws ``ResumableFailure/gone`` when the resumed session is unknown to the
    /// server before any chunk of ours landed in it; every other failure is a `RemoteError`.
    private func resumableSession(file: URL, size: Int64, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?,
                                  onSession: @escaping @Sendable (UploadSessionMark) -> Void,
                                  progress: ProgressHandler?) async throws(ResumableFailure) -> RemoteEntry {
        let commit: [String: Any] = ["path": path, "mode": mode.jsonValue, "autorename": autorename, "mute": false, "strict_conflict": false]
        var machine = resuming.map { UploadSessionStateMachine(size: size, chunkSize: chunkSize, retry: retry, resuming: $0.sessionID, offset: $0.offset) }
            ?? UploadSessionStateMachine(size: size, chunkSize: chunkSize, retry: retry)
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
                do { reply = try await sendChunk(next, file: file, commit: commit, size: size, progress: progress) } catch { throw .remote(error) }
                if let error = reply.error {
                    let failure = Self.sessionFailure(error, response: reply.response, path: path)
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
                action = machine.tokenRefreshed(await tokens.refreshAfterExpiry())
            case .verifyCommitted:
                do {
                    let hash = try ContentHasher.hash(fileAt: file.path)
                    let entry = try await metadata(path)
                    guard entry.contentHash == hash else { throw RemoteError.conflict(path) }
                    return entry
                } catch let error as RemoteError {
                    throw .remote(error)
                } catch {
                    throw .remote(.local("Cannot read \(file.path)"))
                }
            case .succeed(let entry):
                return entry
            case .fail(let error):
                throw .remote(error)
            }
        }
    }

    /// One request of the session, its body a range of `file`.
    private func sendChunk(_ next: UploadSessionStateMachine.Request, file: URL, commit: [String: Any], size: Int64,
                           progress: ProgressHandler?) async throws(RemoteError) -> Reply {
        let base = next.offset
        let chunkProgress: ProgressHandler? = progress.map { report in { @Sendable sent, _ in report(base + sent, size) } }
        let request: Request
        switch next {
        case .start:
            request = try await self.request(endpoints.content, "2/files/upload_session/start", arg: ["close": false])
        case .append(let id, let offset, _):
            request = try await self.request(endpoints.content, "2/files/upload_session/append_v2",
                                             arg: ["cursor": ["session_id": id, "offset": offset] as [String: Any], "close": false])
        case .finish(let id, let offset, _):
            request = try await self.request(endpoints.content, "2/files/upload_session/finish",
                                             arg: ["cursor": ["session_id": id, "offset": offset] as [String: Any], "commit": commit])
        }
        return await exchange(request, body: .file(file, offset: next.offset, length: next.length), progress: chunkProgress)
    }
}

/// How a resumed session loop ends badly: the session is gone (start a new one), or an error.
private enum ResumableFailure: Error {
    case gone
    case remote(RemoteError)
}
