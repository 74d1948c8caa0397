import DropboxWire
import Foundation
import Hummingbird

/// Upload sessions within their bounds, and their refusals in each route's own error union.
///
/// Every session is at most the largest file Dropbox takes (350 GB), and a member's open
/// sessions together at most `maxSessionBytesPerMember`, `maxSessionsPerMember` of them
/// (``UploadSessionLedger``). A write failure on the server's disk was once answered with an
/// upload's `path/...` on every session route; only `finish` has a `path` (a WriteError there),
/// so `start` and `append_v2` now answer it as what it is, a failure of the server (500).
extension ClubAPI {
    /// The routes of an upload session, whose error unions differ.
    enum SessionRoute {
        case start, append, finish
    }

    var sessionQuota: UploadSessionLedger.Quota {
        UploadSessionLedger.Quota(maxSessions: max(1, configuration.maxSessionsPerMember), maxBytes: max(0, configuration.maxSessionBytesPerMember))
    }

    /// Who is calling, for whom a session is kept.
    static var caller: String { Caller.member ?? ClubMember.sharedName }

    /// Creates a session's file (with `create`) for the caller, if they may open one more.
    func openSession(_ path: String, create: () async -> Bool) async throws {
        do throws(UploadSessionLedger.Refusal) {
            try await store.uploads.admitSession(of: Self.caller, quota: sessionQuota)
        } catch {
            throw quotaError(error, route: .start)
        }
        guard await create() else { throw APIError.serverFailure("the server cannot create upload sessions (its disk is full or not writable)") }
        guard UploadSessionFiles.recordOwner(Self.caller, of: path) else {
            unlink(path)
            throw APIError.serverFailure("the server cannot create upload sessions (its disk is full or not writable)")
        }
    }

    /// Runs `grow`, which writes at most `length` bytes (nil: as many as come) to `session` from
    /// `start`, holding a claim on the size it leaves the session at; `grow` gets the most it may
    /// write. Refused before a byte is written when the session would pass the largest file, or
    /// the caller's sessions their bound.
    func growing<T>(_ session: String, from start: Int64, by length: Int64?, route: SessionRoute,
                    _ grow: (_ limit: Int64) async throws -> T) async throws -> T {
        let largest = UploadSessionType.maxSessionBytes
        // `start` is an offset the server checked, at most `largest`: the difference cannot overflow.
        guard start <= largest, (length ?? 0) <= largest - start else { throw quotaError(nil, route: route) }
        let room: Int64
        do throws(UploadSessionLedger.Refusal) {
            room = try await store.uploads.claimGrowth(of: session, to: start + (length ?? 0), member: Self.caller, quota: sessionQuota)
        } catch {
            throw quotaError(error, route: route)
        }
        defer { Task { await store.uploads.releaseGrowth(of: session) } }
        let limit = length ?? max(0, min(room, largest) - start)
        do {
            return try await grow(limit)
        } catch {
            throw Self.sessionError(error, route: route)
        }
    }

    /// The refusal of a session past its bounds (nil: past the largest file), in the route's words.
    func quotaError(_ refusal: UploadSessionLedger.Refusal?, route: SessionRoute) -> APIError {
        let limit = sessionQuota
        let message = switch refusal {
        case nil: "an upload session makes a file of at most \(UploadSessionType.maxSessionBytes) bytes"
        case .tooManySessions(let open):
            "you have \(open) upload sessions open, the most this server keeps for a member; finish them, or wait for them to expire"
        case .tooManyBytes(let wanted):
            "with this your open upload sessions would hold \(wanted) bytes; this server keeps at most \(limit.maxBytes) for a member (finish them, or wait for them to expire)"
        }
        switch (route, refusal) {
        case (.start, .tooManySessions): return APIError.rateLimited(retryAfter: 3600).saying(message)
        case (.start, _): return APIError.endpoint([.payloadTooLarge]).saying(message)
        case (.append, _): return APIError.endpoint([.tooLarge]).saying(message)
        case (.finish, _): return APIError.endpoint([.lookupFailed, .tooLarge]).saying(message)
        }
    }

    /// An upload's write error (`path` with a `reason`, as `files/upload` has it) in a session
    /// route's words: `finish`'s `path` is the WriteError itself; `start` and `append_v2` have no
    /// member for a disk that fails, so it is the server's failure, said plainly.
    static func sessionError(_ error: Error, route: SessionRoute) -> Error {
        guard let api = error as? APIError, let wire = api.wire, wire.error.tag == ErrorTag.path.rawValue,
              let reason = wire.error.unions["reason"] else { return error }
        switch route {
        case .finish:
            let body = DropboxError(errorSummary: wire.errorSummary, error: ErrorUnion(tag: ErrorTag.path.rawValue, unions: [ErrorTag.path.rawValue: reason]))
            return APIError(status: api.status, contentType: api.contentType, body: body.json, wire: body)
        case .start, .append:
            return APIError.serverFailure(reason.tag == ErrorTag.insufficientSpace.rawValue
                ? "the server's disk is full: it could not store the upload's bytes"
                : "the server could not write the upload's bytes (\(reason.tag ?? "write failed"))")
        }
    }
}
