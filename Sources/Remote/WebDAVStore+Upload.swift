import Foundation
import Transfer

/// A write lock held on one resource: its token (`<opaquelocktoken:…>`, as the server sent it)
/// and whether the LOCK created the resource (an unmapped URL is created empty, answering 201).
struct WebDAVLock: Sendable {
    var url: URL
    var token: String
    var created: Bool

    /// The `If` header that lets a request through the lock: an untagged list, which applies
    /// to the request's own URL.
    var ifHeader: String { "(\(token))" }
}

extension WebDAVStore {
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

    /// One write in `mode`, never overwriting a change it was not asked to:
    /// - `.overwrite`: a plain PUT;
    /// - `.add`: only where nothing is (the next free name with `autorename`);
    /// - `.update(rev)`: only while the file's ETag is still `rev`.
    ///
    /// On a server with locking (DAV class 2) the check and the PUT happen under an exclusive
    /// LOCK (the PUT carries the lock token in `If:`), since some servers ignore `If-Match`
    /// and `If-None-Match` (rclone serve webdav 1.60) and weak ETags never match. Without
    /// locking, the check is followed by a PUT with `If-Match` (strong ETags) or
    /// `If-None-Match: *`. See docs/webdav.md.
    func write(_ body: Body, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        guard !path.isEmpty, !path.hasSuffix("/") else { throw .malformedPath(path) }
        switch mode {
        case .overwrite:
            return try await put(body, to: path, headers: [:], progress: progress)
        case .add:
            for candidate in Self.candidates(path, autorename: autorename) {
                do throws(RemoteError) {
                    return try await create(body, at: candidate, progress: progress)
                } catch .conflict(_) where autorename {
                    continue
                }
            }
            throw .conflict(path)
        case .update(let rev):
            return try await replace(body, at: path, rev: rev, progress: progress)
        }
    }

    /// Writes `body` where nothing is yet.
    private func create(_ body: Body, at path: String, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        guard try await serverCapabilities().locking else {
            do throws(RemoteError) {
                _ = try await metadata(path)
                throw RemoteError.conflict(path)
            } catch .notFound(_) {
                return try await put(body, to: path, headers: ["If-None-Match": "*"], progress: progress)
            }
        }
        let lock = try await lock(path)
        guard lock.created else {
            await release(lock, deleting: false)
            throw .conflict(path)
        }
        do {
            let entry = try await put(body, to: path, headers: ["If": lock.ifHeader], progress: progress)
            await release(lock, deleting: false)
            return entry
        } catch {
            // Cancelled or failed: what the LOCK created (and any part of the body) goes.
            await release(lock, deleting: true)
            throw error
        }
    }

    /// Writes `body` over the file, provided it is still at `rev`.
    private func replace(_ body: Body, at path: String, rev: String, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let strong = !rev.hasPrefix("W/")
        guard try await serverCapabilities().locking else {
            try await expect(path, at: rev)
            return try await put(body, to: path, headers: strong ? ["If-Match": rev] : [:], progress: progress)
        }
        let lock = try await lock(path)
        if lock.created {
            // Deleted since it was opened: not ours to make again.
            await release(lock, deleting: true)
            throw .conflict(path)
        }
        do {
            try await expect(path, at: rev)
            var headers = ["If": lock.ifHeader]
            if strong { headers["If-Match"] = rev }
            let entry = try await put(body, to: path, headers: headers, progress: progress)
            await release(lock, deleting: false)
            return entry
        } catch {
            await release(lock, deleting: false)
            throw error
        }
    }

    /// Throws `.conflict` unless the file's ETag is `rev` (a file deleted since is a conflict too).
    private func expect(_ path: String, at rev: String) async throws(RemoteError) {
        let current: RemoteEntry
        do throws(RemoteError) {
            current = try await metadata(path)
        } catch .notFound(_) {
            throw .conflict(path)
        }
        guard current.kind == .file, current.rev == rev else {
            logger.info("not saving \(path): it changed since it was opened")
            throw .conflict(path)
        }
    }

    /// PUT, making missing parent folders (MKCOL) and trying once more if the server says
    /// they are missing; then the new file's properties.
    private func put(_ body: Body, to path: String, headers: [String: String], progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let url = try self.url(path)
        return try await withRetries(idempotent: false) { () async throws(RemoteError) -> RemoteEntry in
            var reply = await exchange("PUT", url, headers: headers, body: body, progress: progress)
            if reply.error != nil, [404, 409].contains(reply.status) {
                try await makeParents(of: path)
                reply = await exchange("PUT", url, headers: headers, body: body, progress: progress)
            }
            if let error = reply.error { throw Self.remoteError(error, response: reply.response, path: path, method: "PUT") }
            return try await metadata(path)
        }
    }

    /// An exclusive write lock on `path` for two minutes (enough for a save; it lapses by itself
    /// if this process dies). 423: someone else holds one, a conflict. A LOCK whose parent
    /// folder is missing (some servers answer 409, rclone 500) is tried once more after MKCOL.
    func lock(_ path: String) async throws(RemoteError) -> WebDAVLock {
        let url = try self.url(path)
        let headers = ["Timeout": "Second-120", "Depth": "0", "Content-Type": "application/xml; charset=utf-8"]
        var reply = await exchange("LOCK", url, headers: headers, body: .data(Self.lockBody))
        if reply.error != nil, ![401, 423, 412].contains(reply.status), reply.status >= 400, !Task.isCancelled {
            try await makeParents(of: path)
            reply = await exchange("LOCK", url, headers: headers, body: .data(Self.lockBody))
        }
        if let error = reply.error { throw Self.remoteError(error, response: reply.response, path: path, method: "LOCK") }
        guard let token = reply.header("Lock-Token")?.trimmingCharacters(in: .whitespaces), !token.isEmpty else {
            throw .server(status: reply.status, detail: "the server answered LOCK on \(path) without a lock token")
        }
        return WebDAVLock(url: url, token: token.hasPrefix("<") ? token : "<\(token)>", created: reply.status == 201)
    }

    /// UNLOCK (after a DELETE through the lock, when `deleting`), even when the caller's task
    /// was cancelled: a detached task, which no cancellation reaches. Failures are only logged:
    /// the lock lapses by itself.
    ///
    /// After a cancelled PUT the server may still be inside it, holding the lock (it notices the
    /// closed connection only when it next reads), and a server like rclone refuses a second
    /// request through a lock in use with 412 or 423: those are tried again for a few seconds.
    func release(_ lock: WebDAVLock, deleting: Bool) async {
        let store = self
        await Task.detached {
            if deleting {
                let reply = await store.throughLock("DELETE", lock, headers: ["If": lock.ifHeader])
                if reply.error != nil, reply.status != 404 { store.logger.info("could not remove \(lock.url.path) after a failed write: HTTP \(reply.status)") }
            }
            let reply = await store.throughLock("UNLOCK", lock, headers: ["Lock-Token": lock.token])
            if reply.error != nil, ![404, 409].contains(reply.status) { store.logger.debug("UNLOCK \(lock.url.path): HTTP \(reply.status)") }
        }.value
    }

    /// A request through `lock`, tried again on 412/423 (the lock still in use by a request of
    /// ours the server has not finished) for about five seconds.
    private func throughLock(_ method: String, _ lock: WebDAVLock, headers: [String: String]) async -> Reply {
        var wait = 0.05
        var reply = await exchange(method, lock.url, headers: headers)
        while reply.error != nil, [412, 423].contains(reply.status), wait < 3 {
            try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))
            wait *= 2
            reply = await exchange(method, lock.url, headers: headers)
        }
        return reply
    }

    static let lockBody = Data("""
        <?xml version="1.0" encoding="utf-8"?>
        <d:lockinfo xmlns:d="DAV:"><d:lockscope><d:exclusive/></d:lockscope><d:locktype><d:write/></d:locktype>\
        <d:owner>byteclub</d:owner></d:lockinfo>
        """.utf8)
}
