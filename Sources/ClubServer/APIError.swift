import Foundation
import HTTPTypes

/// An error answer in Dropbox's shapes: 400 plain text, 401/409/429 JSON.
struct APIError: Error, Sendable {
    var status: HTTPResponse.Status
    var contentType: String
    var body: Data
    var retryAfter: Int?

    /// 400 with a plain-text reason, as Dropbox answers malformed arguments.
    static func badRequest(_ reason: String) -> APIError {
        APIError(status: .badRequest, contentType: "text/plain; charset=utf-8", body: Data("Error in call to API function: \(reason)".utf8))
    }

    static func unauthorized() -> APIError {
        json(.unauthorized, summary: "invalid_access_token/", error: [".tag": "invalid_access_token"])
    }

    static func rateLimited(retryAfter seconds: Int) -> APIError {
        var error = json(.tooManyRequests, summary: "too_many_requests/",
                         error: ["reason": [".tag": "too_many_requests"], "retry_after": seconds])
        error.retryAfter = seconds
        return error
    }

    /// A 409 endpoint error. `tags` is the nested tag path, e.g. ["path", "not_found"]:
    /// `{"error_summary":"path/not_found/..","error":{".tag":"path","path":{".tag":"not_found"}}}`.
    static func endpoint(_ tags: [String], extra: [String: Any] = [:]) -> APIError {
        json(.conflict, summary: tags.joined(separator: "/") + "/", error: nest(tags, extra: extra))
    }

    /// An upload's write error: `{".tag":"path","reason":{...},"upload_session_id":""}`.
    static func uploadPath(_ reasonTags: [String]) -> APIError {
        json(.conflict, summary: (["path"] + reasonTags).joined(separator: "/") + "/",
             error: [".tag": "path", "reason": nest(reasonTags, extra: [:]), "upload_session_id": ""])
    }

    /// Builds `{".tag":a, a:{".tag":b, b:{...}}}` from [a, b, …]; the last level gets `extra`.
    private static func nest(_ tags: [String], extra: [String: Any]) -> [String: Any] {
        guard let first = tags.first else { return extra }
        var object: [String: Any] = [".tag": first]
        if tags.count > 1 {
            object[first] = nest(Array(tags.dropFirst()), extra: extra)
        } else {
            object.merge(extra) { _, new in new }
        }
        return object
    }

    private static func json(_ status: HTTPResponse.Status, summary: String, error: [String: Any]) -> APIError {
        let object: [String: Any] = ["error_summary": summary + "..", "error": error]
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return APIError(status: status, contentType: "application/json", body: body)
    }

    // Common lookups.
    static let notFound = endpoint(["path", "not_found"])
    static let notFile = endpoint(["path", "not_file"])
    static let notFolder = endpoint(["path", "not_folder"])
    static func malformedPath() -> APIError { endpoint(["path", "malformed_path"]) }
}
