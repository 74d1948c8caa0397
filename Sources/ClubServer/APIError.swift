import DropboxWire
import Foundation
import HTTPTypes

/// An error answer in Dropbox's shapes: 400 plain text, 401/409/429 JSON.
package struct APIError: Error, Sendable {
    var status: HTTPResponse.Status
    var contentType: String
    var body: Data
    var retryAfter: Int?
    /// The JSON error, for the 401, 409 and 429 answers.
    var wire: DropboxError?

    /// 400 with a plain-text reason, as Dropbox answers malformed arguments.
    static func badRequest(_ reason: String) -> APIError {
        APIError(status: .badRequest, contentType: "text/plain; charset=utf-8", body: Data("Error in call to API function: \(reason)".utf8))
    }

    /// 500 with a plain-text reason: the server, not the request, failed (its disk, say) and no
    /// member of the route's error union says so.
    static func serverFailure(_ reason: String) -> APIError {
        APIError(status: .internalServerError, contentType: "text/plain; charset=utf-8", body: Data("Error: \(reason)".utf8))
    }

    /// 403 with a plain-text reason: the caller is known, but their role does not allow this.
    static func forbidden(_ reason: String) -> APIError {
        APIError(status: .forbidden, contentType: "text/plain; charset=utf-8", body: Data("Error: \(reason)".utf8))
    }

    static func unauthorized() -> APIError {
        json(.unauthorized, .invalidAccessToken)
    }

    /// A removed member's token: Dropbox's 401 for an account that may no longer sign in
    /// (`user_suspended`), with the sentence for them as its `user_message`.
    static func removedMember(_ name: String) -> APIError {
        json(.unauthorized, .userSuspended).saying("You (\(name)) were removed from this club")
    }

    static func rateLimited(retryAfter seconds: Int) -> APIError {
        var error = json(.tooManyRequests, .rateLimited(retryAfter: Int64(seconds)))
        error.retryAfter = seconds
        return error
    }

    /// A 409 endpoint error along nested tags, e.g. [.path, .notFound]:
    /// `{"error_summary":"path/not_found/..","error":{".tag":"path","path":{".tag":"not_found"}}}`.
    static func endpoint(_ tags: [ErrorTag], numbers: [String: Int64] = [:]) -> APIError {
        json(.conflict, .endpoint(tags, numbers: numbers))
    }

    /// An upload's write error: `{".tag":"path","reason":{...},"upload_session_id":""}`.
    static func uploadPath(_ reason: [ErrorTag]) -> APIError {
        json(.conflict, .uploadPath(reason))
    }

    private static func json(_ status: HTTPResponse.Status, _ error: DropboxError) -> APIError {
        APIError(status: status, contentType: "application/json", body: error.json, wire: error)
    }

    // Common lookups.
    static let notFound = endpoint([.path, .notFound])
    static let notFile = endpoint([.path, .notFile])
    static let notFolder = endpoint([.path, .notFolder])
    static func malformedPath() -> APIError { endpoint([.path, .malformedPath]) }
    /// Work given up because its task was cancelled; the client is gone or the server stopping.
    static let cancelled = APIError(status: .serviceUnavailable, contentType: "text/plain; charset=utf-8",
                                    body: Data("The server stopped this request.".utf8))

    /// The same JSON error with a `user_message` for a person (the tags stay as they are, so
    /// clients that read only those are unaffected).
    func saying(_ text: String) -> APIError {
        guard var wire else { return self }
        wire.userMessage = text
        return APIError(status: status, contentType: contentType, body: wire.json, retryAfter: retryAfter, wire: wire)
    }

    /// Whether this is the 409 along exactly `tags`.
    func isEndpoint(_ tags: [ErrorTag]) -> Bool {
        wire == DropboxError.endpoint(tags)
    }
}

extension DropboxPath {
    /// A client's path, parsed as `DropboxPath.parse` does, refused with `path/malformed_path`.
    static func checked(_ text: String) throws(APIError) -> DropboxPath {
        do { return try parse(text) } catch { throw .malformedPath() }
    }
}

/// Errors re-tagged for endpoints whose lookups and writes sit under another field than
/// `path` (`from_lookup`, `to`, `path_lookup`, `path_write`).
extension APIError {
    /// A lookup error (`path/not_found`, …) re-tagged under `field`.
    func relabeled(as field: ErrorTag) -> APIError {
        for tag in [ErrorTag.notFound, .notFolder, .notFile, .malformedPath] where isEndpoint([.path, tag]) {
            return .endpoint([field, tag])
        }
        return self
    }

    /// `body`, its lookup errors re-tagged under `field`.
    static func relabeling<T>(_ field: ErrorTag, _ body: () throws(APIError) -> T) throws(APIError) -> T {
        do { return try body() } catch { throw error.relabeled(as: field) }
    }

    /// An upload's write error (`path/conflict/file`, `path/insufficient_space`) re-tagged
    /// under `field`, as restore (`path_write`) and copy (`to`) answer them.
    func relabeledWrite(as field: ErrorTag) -> APIError {
        guard let tags = wire?.tags, tags.first == ErrorTag.path.rawValue else { return self }
        let rest = tags.dropFirst().compactMap(ErrorTag.init(rawValue:))
        guard rest.count == tags.count - 1, !rest.isEmpty else { return self }
        return .endpoint([field] + rest)
    }
}
