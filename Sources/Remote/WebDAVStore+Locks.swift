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

    /// The `If` header that names the locked resource by its URL (a tagged list): what a MOVE
    /// onto it needs, since an untagged list would apply to the MOVE's source.
    var taggedIfHeader: String { "<\(url.absoluteString)> (\(token))" }
}

extension WebDAVStore {
    /// An exclusive write lock on `path` for two minutes (enough for a save; it lapses by itself
    /// if this process dies). 423: someone else holds one, a conflict; 403: this user may not
    /// write there (a reader's write, as the PUT's 403 would be). A LOCK whose parent folder is
    /// missing (some servers answer 409, rclone 500) is tried once more after MKCOL.
    func lock(_ path: String) async throws(RemoteError) -> WebDAVLock {
        let url = try self.url(path)
        let headers = ["Timeout": "Second-120", "Depth": "0", "Content-Type": "application/xml; charset=utf-8"]
        var reply = await exchange("LOCK", url, headers: headers, body: .data(Self.lockBody))
        if reply.error != nil, ![401, 403, 423, 412].contains(reply.status), reply.status >= 400, !Task.isCancelled {
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
