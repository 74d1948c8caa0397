import Foundation
import Transfer

extension WebDAVStore: SourceUploadStore {
    public func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await write(.data(data), to: path, mode: mode, autorename: autorename, progress: nil)
    }

    /// Streams the file from disk (constant memory) with progress; cancel stops it at once.
    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else { throw .local("No such file: \(file.path)") }
        guard !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: file.path) else { throw .local("Cannot read \(file.path)") }
        return try await write(.file(file), to: path, mode: mode, autorename: autorename, progress: progress)
    }

    /// A body made as it is sent: one PUT, as a file's (WebDAV has no sessions to resume).
    public func upload(source: any UploadSource, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?, streams: Int?,
                       onSession: (@Sendable (UploadSessionMark) -> Void)?, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        try await write(.source(source), to: path, mode: mode, autorename: autorename, progress: progress)
    }

    /// One write in `mode`, never overwriting a change it was not asked to, and never leaving a
    /// cut-off file:
    /// 1. the body is PUT to a hidden temporary name in the same folder (``temporaryName()``),
    ///    through a LOCK of that name where the server locks, so a cancelled PUT's leftovers can
    ///    be deleted even while the server is still writing them;
    /// 2. a MOVE puts it in place: `.overwrite` with `Overwrite: T`; `.add` with `Overwrite: F`
    ///    (the next free name with `autorename`); `.update(rev)` only while the file's ETag is
    ///    still `rev`: under an exclusive LOCK of the file (the MOVE carries its token) where the
    ///    server locks, since some ignore `If-Match` (rclone serve webdav 1.60), else with an
    ///    `If` condition on the ETag.
    ///
    /// A PUT cut off half-way (a dropped connection, a cancel) leaves the file as it was: only
    /// the temporary name saw the bytes, and it is deleted. Once the body is up, the MOVE runs
    /// to its end even if the caller is cancelled meanwhile, so a lock is never left half-used.
    /// See docs/webdav.md.
    ///
    /// A refusal a read-only server gives is said as one (WebDAVStore+ReadOnly).
    func write(_ body: Body, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        do throws(RemoteError) {
            return try await writeOnce(body, to: path, mode: mode, autorename: autorename, progress: progress)
        } catch {
            throw await readOnlyOr(error, writing: path, makingFolders: true)
        }
    }

    private func writeOnce(_ body: Body, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        guard !path.isEmpty, !path.hasSuffix("/") else { throw .malformedPath(path) }
        let staged = Self.parent(of: path) + "/" + Self.temporaryName()
        try await stage(body, at: staged, progress: progress)
        do throws(RemoteError) {
            if Task.isCancelled { throw RemoteError.cancelled }
            let store = self
            return try await Self.shielded { () async throws(RemoteError) -> RemoteEntry in
                try await store.commit(staged, of: body, to: path, mode: mode, autorename: autorename)
            }
        } catch {
            await discard(staged)
            throw error
        }
    }

    // MARK: - Temporary names

    /// What a temporary upload is named: hidden (a dot file) and listed by no one.
    static let temporaryPrefix = ".byteclub-upload-"

    /// A fresh temporary name: the prefix and 32 random hex digits, unique without asking.
    static func temporaryName() -> String {
        temporaryPrefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// Whether `name` is an upload in progress (ours or another member's): listings skip it.
    public static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(temporaryPrefix)
    }

    // MARK: - Steps

    /// PUTs `body` to the temporary name `staged`. Where the server locks, the name is LOCKed
    /// first (the LOCK creates it) and the PUT goes through the lock, so a failed or cancelled
    /// PUT is deleted through the lock (which waits out a server still writing it); elsewhere a
    /// plain DELETE follows a failure.
    private func stage(_ body: Body, at staged: String, progress: ProgressHandler?) async throws(RemoteError) {
        guard try await serverCapabilities().locking else {
            do throws(RemoteError) {
                try await put(body, to: staged, headers: ["If-None-Match": "*"], progress: progress)
            } catch {
                await discard(staged)
                throw error
            }
            return
        }
        let lock = try await lock(staged)
        do throws(RemoteError) {
            try await put(body, to: staged, headers: ["If": lock.ifHeader], progress: progress)
        } catch {
            await release(lock, deleting: true)
            // The DELETE through the lock waits only a few seconds for a server still inside the
            // cut PUT (rclone under load took longer, and the name stayed for good): the sweep
            // looks again once the lock is gone.
            await discard(staged)
            throw error
        }
        // Unlocked before the MOVE: a locked source would need its token too, and servers
        // differ in how they take two tokens for two resources.
        await release(lock, deleting: false)
    }

    /// Moves the staged upload to `path` as `mode` says; answers the file's new properties.
    /// An add that meets a file holding `body`'s bytes already writes nothing and answers that
    /// file, as a club server and Dropbox do (WebDAVStore+SameBytes).
    private func commit(_ staged: String, of body: Body, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        switch mode {
        case .overwrite:
            try await moveStaged(staged, to: path, headers: ["Overwrite": "T"])
            return try await metadata(path)
        case .add:
            for candidate in Self.candidates(path, autorename: autorename) {
                do throws(RemoteError) {
                    try await moveStaged(staged, to: candidate, headers: ["Overwrite": "F"])
                    return try await metadata(candidate)
                } catch .conflict(_) {
                    if candidate == path, try await holds(body, at: path) {
                        // The staged copy was whole, so no cut PUT can make it late: one DELETE.
                        let gone = await exchange("DELETE", try url(staged))
                        if gone.error != nil { logger.info("could not remove the temporary upload \(staged): HTTP \(gone.status)") }
                        return try await metadata(path)
                    }
                    guard autorename else { throw .conflict(path) }
                    continue
                }
            }
            throw .conflict(path)
        case .update(let rev):
            try await replace(path, with: staged, rev: rev)
            return try await metadata(path)
        }
    }

    /// MOVEs the staged upload over the file, provided the file is still at `rev`.
    private func replace(_ path: String, with staged: String, rev: String) async throws(RemoteError) {
        guard try await serverCapabilities().locking else {
            try await expect(path, at: rev)
            let target = try url(path)
            do throws(RemoteError) {
                // The If header's ETag condition guards the MOVE on servers that check it.
                let tag = WebDAVEntityTag.canonical(rev) ?? rev
                try await moveStaged(staged, to: path, headers: ["Overwrite": "T", "If": "<\(target.absoluteString)> ([\(tag)])"])
            } catch .conflict(_) {
                // Some servers refuse every ETag condition (rclone's, for one): a refusal is a
                // conflict only if the file really changed. Unchanged, the window is one round trip.
                try await expect(path, at: rev)
                try await moveStaged(staged, to: path, headers: ["Overwrite": "T"])
            }
            return
        }
        let lock = try await lock(path)
        if lock.created {
            // Deleted since it was opened: not ours to make again.
            await release(lock, deleting: true)
            throw .conflict(path)
        }
        do throws(RemoteError) {
            try await expect(path, at: rev)
            try await moveStaged(staged, to: path, headers: ["Overwrite": "T", "If": lock.taggedIfHeader])
        } catch {
            await release(lock, deleting: false)
            throw error
        }
        await release(lock, deleting: false)
    }

    /// Throws `.conflict` unless the file's ETag is `rev` by opaque value (``WebDAVEntityTag``);
    /// a file deleted since is a conflict too.
    func expect(_ path: String, at rev: String) async throws(RemoteError) {
        let current: RemoteEntry
        do throws(RemoteError) {
            current = try await metadata(path)
        } catch .notFound(_) {
            throw .conflict(path)
        }
        guard current.kind == .file, WebDAVEntityTag.same(current.rev, rev) else {
            logger.info("not saving \(path): it changed since it was opened")
            throw .conflict(path)
        }
    }

    /// MOVE of a staged upload (never retried: a second MOVE could meet what the first did).
    private func moveStaged(_ staged: String, to path: String, headers: [String: String]) async throws(RemoteError) {
        var all = headers
        all["Destination"] = try url(path).absoluteString
        all["Depth"] = "infinity"
        _ = try await send("MOVE", try url(staged), path: path, headers: all)
    }

    /// PUT, making missing parent folders (MKCOL) and trying once more if the server says
    /// they are missing.
    private func put(_ body: Body, to path: String, headers: [String: String], progress: ProgressHandler?) async throws(RemoteError) {
        let url = try self.url(path)
        try await withRetries(idempotent: false) { () async throws(RemoteError) in
            var reply = await exchange("PUT", url, headers: headers, body: body, progress: progress)
            if reply.error != nil, [404, 409].contains(reply.status) {
                try await makeParents(of: path)
                reply = await exchange("PUT", url, headers: headers, body: body, progress: progress)
            }
            if let error = reply.error { throw Self.remoteError(error, response: reply.response, path: path, method: "PUT") }
        }
    }

    /// Deletes a temporary upload after a failure, even when the caller was cancelled (a
    /// detached task); a failure is only logged.
    ///
    /// A server may still be reading a cut PUT when the DELETE arrives and make the name after it
    /// (rclone serve webdav does, under load, seconds late), or refuse the DELETE while it holds
    /// the name's lock, so a background sweep looks again, every second after the first
    /// (`discardSweep`, 16 s in all), and deletes the name once it is there to delete.
    func discard(_ staged: String) async {
        guard let url = try? url(staged) else { return }
        let store = self
        await Task.detached {
            let reply = await store.exchange("DELETE", url)
            if reply.error != nil, reply.status != 404 { store.logger.info("could not remove the temporary upload \(staged): HTTP \(reply.status)") }
            Task.detached {
                for delay in Self.discardSweep {
                    try? await Task.sleep(for: delay)
                    let seen = await store.exchange("HEAD", url)
                    guard seen.error == nil else { continue }
                    let gone = await store.exchange("DELETE", url)
                    // Refused (still locked by the cut PUT, say): the next look tries again.
                    guard gone.error == nil || gone.status == 404 else { continue }
                    store.logger.info("removed the temporary upload \(staged), which the server made after its PUT was cut")
                    return
                }
            }
        }.value
    }

    /// When `discard` looks again for a temporary upload a server made late: soon, then every
    /// second (a HEAD each, only after a cut PUT), so a name made seconds late lives about a second.
    static let discardSweep: [Duration] = [.milliseconds(250), .milliseconds(750)] + Array(repeating: .seconds(1), count: 15)

    /// Runs `work` to its end whatever happens to the calling task: a detached task, which no
    /// cancellation reaches.
    static func shielded<T: Sendable>(_ work: @escaping @Sendable () async throws(RemoteError) -> T) async throws(RemoteError) -> T {
        let result = await Task.detached { () async -> Result<T, RemoteError> in
            do throws(RemoteError) {
                return .success(try await work())
            } catch {
                return .failure(error)
            }
        }.value
        return try result.get()
    }
}
