import DropboxWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Concurrent upload sessions, as Dropbox has them: `upload_session/start` with
/// `session_type: concurrent` and no data; `append_v2` of whole 4 MiB blocks at block-aligned
/// offsets, in any order and several at once, the last one (`close: true`) of any length;
/// `finish` with no data, once every byte up to the end arrived.
///
/// Each block is written with pwrite at its offset into the session file, and the session's
/// ledger (``ConcurrentSessionLedger``) records it once it arrived whole. A block sent again
/// after a cut connection simply writes the same bytes again.
extension ClubAPI {
    /// Reads `session_type` from a start's argument (absent: sequential).
    func sessionType(_ arguments: Arguments) throws(APIError) -> UploadSessionType {
        try arguments.decode(UploadSessionType.self, "session_type") ?? .sequential
    }

    func concurrentStart(_ request: Request, close: Bool) async throws -> Response {
        if close { throw APIError.endpoint([.concurrentSessionCloseNotAllowed]) }
        // No data rides on a concurrent start; a body would have no offset to go to.
        if let declared = try Self.declaredLength(request), declared > 0 { throw APIError.endpoint([.concurrentSessionDataNotAllowed]) }
        let id = FolderFiles.randomToken(bytes: 18)
        let path = store.sessionDirectory + "/" + id
        try await openSession(path) { await store.uploads.createConcurrentSession(path) }
        var text = "{\"session_id\":"
        DropboxJSON.appendQuoted(id, to: &text)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text + "}")))
    }

    /// The concurrent session a cursor names, with its ledger; nil when the session is sequential
    /// (or absent: the sequential lookup then answers `not_found` in its own words).
    func concurrentSession(_ cursor: Arguments) throws(APIError) -> (path: String, offset: Int64, ledger: ConcurrentSessionLedger)? {
        guard let id = try? cursor.string("session_id"), Self.isSessionID(id) else { return nil }
        let path = store.sessionDirectory + "/" + id
        guard let ledger = UploadSessionFiles.readLedger(path) else { return nil }
        guard let offset = try cursor.int("offset", default: nil, range: 0...Int.max) else {
            throw APIError.badRequest("cursor: missing required field 'offset'")
        }
        return (path, Int64(offset), ledger)
    }

    func concurrentAppend(_ request: Request, session: (path: String, offset: Int64, ledger: ConcurrentSessionLedger), close: Bool,
                          fault: Fault) async throws -> Response {
        let (path, offset, ledger) = session
        guard let length = try Self.declaredLength(request) else {
            throw APIError.badRequest("append_v2: a concurrent session's append needs a Content-Length")
        }
        // Refused before a byte is written: a block out of line could overwrite its neighbours.
        do throws(ConcurrentSessionLedger.Refusal) {
            try ledger.check(offset: offset, length: length, closing: close)
        } catch {
            throw Self.concurrentError(error, nested: false)
        }
        guard await store.uploads.leaseBlock(path, offset: offset) else { throw APIError.rateLimited(retryAfter: 1) }
        defer { Task { await store.uploads.release(path + "@\(offset)") } }
        let received = try await growing(path, from: offset, by: length, route: .append) { limit in
            try await receiveCounted(request.body, into: path, append: true, at: offset, limit: limit, fault: fault)
        }
        guard received.count == length else { throw APIError.badRequest("append_v2: the body ended before its Content-Length") }
        try await store.uploads.recordConcurrentAppend(path, offset: offset, length: length, closing: close)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "null")))
    }

    func concurrentFinish(_ request: Request, session: (path: String, offset: Int64, ledger: ConcurrentSessionLedger),
                          commit: CommitInfo, target: DropboxPath, contentHash: String?) async throws -> Response {
        if let declared = try Self.declaredLength(request), declared > 0 { throw APIError.endpoint([.concurrentSessionDataNotAllowed]) }
        guard await store.uploads.leaseSession(session.path) else { throw APIError.rateLimited(retryAfter: 1) }
        defer { Task { await store.uploads.release(session.path) } }
        return jsonBody(try await concurrentCommit(session.path, offset: session.offset, commit: commit, target: target, contentHash: contentHash))
    }

    /// Commits a concurrent session whose every block arrived, the caller holding its lease
    /// (`finish`, and each entry of `finish_batch_v2`).
    func concurrentCommit(_ path: String, offset: Int64, commit: CommitInfo, target: DropboxPath, contentHash: String?) async throws -> Metadata {
        // Read again under the lease: an append may have completed since the first look.
        guard let ledger = UploadSessionFiles.readLedger(path) else { throw APIError.endpoint([.lookupFailed, .notFound]) }
        let end: Int64
        do throws(ConcurrentSessionLedger.Refusal) { end = try ledger.complete() } catch { throw Self.concurrentError(error, nested: true) }
        guard offset == end else { throw APIError.endpoint([.lookupFailed, .incorrectOffset], numbers: ["correct_offset": end]) }
        // A block cut short past the end (never recorded) must not linger in the file.
        guard truncate(path, off_t(end)) == 0 else { throw APIError.endpoint([.lookupFailed, .notFound]) }
        let hash: String
        do { hash = try ContentHasher.hash(fileAt: path) } catch { throw APIError.endpoint([.lookupFailed, .notFound]) }
        // A concurrent finish carries no data, so a `content_hash` (of this call's bytes, as the
        // spec has it) can only be the hash of nothing.
        if let contentHash, contentHash != ContentHasher.hash(Data()) { throw APIError.endpoint([.contentHashMismatch]) }
        let metadata: Metadata
        do {
            metadata = try await store.commit(temp: path, contentHash: hash, to: target, mode: commit.mode, autorename: commit.autorename,
                                              clientModified: commit.clientModified, discardOnFailure: false)
        } catch {
            throw Self.sessionError(error, route: .finish)
        }
        unlink(UploadSessionFiles.ledgerPath(path))
        UploadSessionFiles.forgetOwner(of: path)
        return metadata
    }

    /// The spec's tags for a refused concurrent append or finish.
    static func concurrentError(_ refusal: ConcurrentSessionLedger.Refusal, nested: Bool) -> APIError {
        switch refusal {
        case .invalidOffset: return .endpoint(nested ? [.lookupFailed, .concurrentSessionInvalidOffset] : [.concurrentSessionInvalidOffset])
        case .invalidDataSize: return .endpoint(nested ? [.lookupFailed, .concurrentSessionInvalidDataSize] : [.concurrentSessionInvalidDataSize])
        case .closed: return .endpoint(nested ? [.lookupFailed, .closed] : [.closed])
        case .notClosed: return .endpoint([.concurrentSessionNotClosed])
        case .missingData: return .endpoint([.concurrentSessionMissingData])
        case .tooLarge: return .endpoint(nested ? [.lookupFailed, .tooLarge] : [.tooLarge])
        }
    }

    /// The body's declared length; nil when it comes chunked.
    static func declaredLength(_ request: Request) throws(APIError) -> Int64? {
        guard let text = request.headers[.contentLength] else { return nil }
        guard let value = Int64(text), value >= 0 else { throw APIError.badRequest("a malformed Content-Length") }
        return value
    }

    /// Session ids become file names: only what we hand out is accepted.
    static func isSessionID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64 && id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
    }
}
