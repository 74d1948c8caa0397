import DropboxWire
import Foundation
import HTTPTypes
import NIOCore

/// The answers the server gives about a connection or a request as a whole, before (or instead of)
/// any endpoint: JSON in Dropbox's error shape, like a 429's, so a client reads them as it reads
/// every other error.
struct ConnectionAnswer: Sendable {
    var status: HTTPResponse.Status
    var contentType: String
    var body: Data
    var retryAfter: Int?

    /// 408: the request head did not arrive in time.
    static let requestTimeout = json(.requestTimeout, tag: "request_timeout")

    /// 413: a body over the endpoint's cap (1 MiB of JSON for RPC endpoints; an upload's
    /// 150 MiB per request).
    static let payloadTooLarge = json(.contentTooLarge, tag: "payload_too_large")

    /// 431: a request head over `ConnectionLimits.maxHeaderBytes`.
    static let headerTooLarge = json(.requestHeaderFieldsTooLarge, tag: "request_header_too_large")

    /// 503 with `Retry-After`: too many connections, in all or from one address.
    /// `{"error_summary":"too_many_connections/..","error":{"reason":{".tag":"too_many_connections"},"retry_after":N}}`,
    /// the shape of a 429.
    static func tooManyConnections(retryAfter seconds: Int) -> ConnectionAnswer {
        let error = DropboxError(errorSummary: "too_many_connections/..",
                                 error: ErrorUnion(tag: nil, unions: ["reason": ErrorUnion(tag: "too_many_connections")],
                                                   numbers: ["retry_after": Int64(seconds)]))
        return ConnectionAnswer(status: .serviceUnavailable, contentType: "application/json", body: error.json, retryAfter: seconds)
    }

    /// 400 in plain text, as Dropbox answers a malformed call.
    static func malformedRequest(_ reason: String) -> ConnectionAnswer {
        ConnectionAnswer(status: .badRequest, contentType: "text/plain; charset=utf-8",
                         body: Data("Error in call to API function: \(reason)".utf8))
    }

    private static func json(_ status: HTTPResponse.Status, tag: String) -> ConnectionAnswer {
        let error = DropboxError(errorSummary: tag + "/..", error: ErrorUnion(tag: tag))
        return ConnectionAnswer(status: status, contentType: "application/json", body: error.json)
    }

    /// The header fields, `Connection: close` included: every such answer ends its connection.
    var headerFields: [(String, String)] {
        var fields = [("Content-Type", contentType), ("Content-Length", String(body.count)), ("Connection", "close")]
        if let retryAfter { fields.append(("Retry-After", String(retryAfter))) }
        return fields
    }

    /// The whole answer as HTTP/1.1 bytes, for connections that have no HTTP pipeline (refused
    /// ones) or whose request never got far enough for one (a 408).
    func rawHTTP(allocator: ByteBufferAllocator) -> ByteBuffer {
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for (name, value) in headerFields { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        var buffer = allocator.buffer(capacity: text.utf8.count + body.count)
        buffer.writeString(text)
        buffer.writeBytes(body)
        return buffer
    }

    /// As an error a handler throws, so the router answers it like any other.
    var apiError: APIError {
        APIError(status: status, contentType: contentType, body: body, retryAfter: retryAfter)
    }
}
