import Foundation
import Transfer

extension DropboxStore {
    public func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        var hasher = ContentHasher()
        hasher.update(data)
        return try await singleUpload(.data(data), contentHash: hasher.finalize(), to: path, mode: mode, autorename: autorename, progress: nil)
    }

    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
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
        if size <= singleUploadLimit {
            let hash: String
            do { hash = try ContentHasher.hash(fileAt: file.path) } catch { throw .local("Cannot read \(file.path): \(error)") }
            return try await singleUpload(.file(file, offset: 0, length: size), contentHash: hash, to: path, mode: mode, autorename: autorename, progress: progress)
        }
        return try await sessionUpload(file: file, size: size, to: path, mode: mode, autorename: autorename, progress: progress)
    }

    static func modeArgument(_ mode: WriteMode) -> Any {
        switch mode {
        case .add: return "add"
        case .overwrite: return "overwrite"
        case .update(let rev): return [".tag": "update", "update": rev]
        }
    }

    /// One request. Retried only where a repeat cannot do harm: `add` and `update`, whose
    /// conflict on a retry is checked against our own content hash (our first try may have
    /// landed before its answer was lost). `overwrite` could clobber a newer write, so no.
    private func singleUpload(_ body: Body, contentHash: String, to path: String, mode: WriteMode, autorename: Bool,
                              progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let argument: [String: Any] = ["path": path, "mode": Self.modeArgument(mode), "autorename": autorename, "mute": false, "strict_conflict": false]
        let retriable = mode != .overwrite
        var attempt = 0
        return try await withRetries(idempotent: retriable) { () async throws(RemoteError) -> RemoteEntry in
            attempt += 1
            let request = try await self.request(self.endpoints.content, "2/files/upload", arg: argument)
            let reply = await self.exchange(request, body: body, progress: progress)
            if let error = reply.error {
                let remote = Self.remoteError(error, response: reply.response, path: path)
                if case .conflict = remote, attempt > 1,
                   let existing = try? await self.metadata(path), existing.contentHash == contentHash {
                    return existing
                }
                throw remote
            }
            return try Self.entry(try Self.object(reply.body))
        }
    }

    /// Large files: upload_session start / append_v2 / finish, in chunks.
    ///
    /// The server's offset is the truth. After any failure the next request is sent at the
    /// offset we believe; if the server says `incorrect_offset`, we continue from its
    /// `correct_offset`. So a dropped connection costs only the bytes in flight, never a restart.
    private func sessionUpload(file: URL, size: Int64, to path: String, mode: WriteMode, autorename: Bool,
                               progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let commit: [String: Any] = ["path": path, "mode": Self.modeArgument(mode), "autorename": autorename, "mute": false, "strict_conflict": false]
        var sessionID: String?
        var offset: Int64 = 0
        var failures = 0
        var finishAttempted = false

        while true {
            if Task.isCancelled { throw .cancelled }
            let length = min(chunkSize, size - offset)
            let isLast = offset + length >= size
            let base = offset
            var chunkProgress: ProgressHandler? = nil
            if let report = progress {
                chunkProgress = { @Sendable (sent: Int64, _: Int64) -> Void in report(base + sent, size) }
            }
            let reply: Reply
            let endpoint: String
            if let id = sessionID {
                let cursor: [String: Any] = ["session_id": id, "offset": offset]
                if isLast {
                    endpoint = "2/files/upload_session/finish"
                    finishAttempted = true
                    let request = try await self.request(endpoints.content, endpoint, arg: ["cursor": cursor, "commit": commit])
                    reply = await exchange(request, body: .file(file, offset: offset, length: length), progress: chunkProgress)
                } else {
                    endpoint = "2/files/upload_session/append_v2"
                    let request = try await self.request(endpoints.content, endpoint, arg: ["cursor": cursor, "close": false])
                    reply = await exchange(request, body: .file(file, offset: offset, length: length), progress: chunkProgress)
                }
            } else {
                endpoint = "2/files/upload_session/start"
                let request = try await self.request(endpoints.content, endpoint, arg: ["close": false])
                reply = await exchange(request, body: .file(file, offset: 0, length: min(chunkSize, size)), progress: chunkProgress)
            }

            guard let error = reply.error else {
                if sessionID == nil {
                    guard let id = (try? Self.object(reply.body))?["session_id"] as? String else {
                        // Started, but the answer was lost: that session is unusable. Start again.
                        try await pause(after: &failures, .server(status: 0, detail: "upload_session/start answered without a session id"))
                        continue
                    }
                    sessionID = id
                    offset = min(chunkSize, size)
                } else if isLast {
                    do {
                        return try Self.entry(try Self.object(reply.body))
                    } catch {
                        // Committed, but the answer was cut short: ask for the metadata.
                        return try await verifyCommitted(file: file, path: path)
                    }
                } else {
                    offset += length
                }
                failures = 0
                progress?(offset, size)
                continue
            }

            let remote = Self.remoteError(error, response: reply.response, path: path)
            if remote == .cancelled || Task.isCancelled { throw .cancelled }
            if case .httpStatus(409, let body) = error {
                if let correct = Self.correctOffset(body) {
                    // The server has more (or less) than we thought: continue from its offset.
                    offset = correct
                    failures = 0
                    continue
                }
                let summary = Self.errorSummary(body)
                if finishAttempted, summary.contains("not_found"), sessionID != nil {
                    // The session is gone: an earlier finish committed it and its answer was lost.
                    return try await verifyCommitted(file: file, path: path)
                }
                throw remote
            }
            if case .server(401, _) = remote {
                guard await tokens.refreshAfterExpiry() else { throw .unauthorized }
                continue
            }
            guard remote.isTransient else { throw remote }
            try await pause(after: &failures, remote)
        }
    }

    /// Waits before the next try, or gives up when the retries are spent.
    private func pause(after failures: inout Int, _ error: RemoteError) async throws(RemoteError) {
        failures += 1
        guard failures < retry.maxAttempts else { throw error }
        let wait: TimeInterval
        if case .rateLimited(let seconds) = error {
            guard seconds <= retry.maxRetryAfter else { throw error }
            wait = seconds
        } else {
            wait = retry.delay(afterAttempt: failures - 1)
        }
        do { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) } catch { throw .cancelled }
    }

    /// Confirms that what is at `path` is our file, by Dropbox content hash.
    private func verifyCommitted(file: URL, path: String) async throws(RemoteError) -> RemoteEntry {
        let hash: String
        do { hash = try ContentHasher.hash(fileAt: file.path) } catch { throw .local("Cannot read \(file.path)") }
        let entry = try await metadata(path)
        guard entry.contentHash == hash else { throw .conflict(path) }
        return entry
    }

    /// `correct_offset` from an `incorrect_offset` error, at the top level or under `lookup_failed`.
    static func correctOffset(_ body: Data) -> Int64? {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
              let error = object["error"] as? [String: Any] else { return nil }
        if let value = error["correct_offset"] as? Int { return Int64(value) }
        if let nested = error["lookup_failed"] as? [String: Any], let value = nested["correct_offset"] as? Int { return Int64(value) }
        return nil
    }
}
