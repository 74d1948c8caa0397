import CCurl
import Foundation

/// Which of the two session timeouts fired.
public enum TimeoutKind: String, Sendable, Codable {
    /// `timeoutIntervalForRequest`: no data moved for that long.
    case idle
    /// `timeoutIntervalForResource`: the whole transfer took longer than allowed.
    case resource
}

/// Every way a task can fail. Delivered once, on the delegate queue.
///
/// Messages are one line, meant for a status bar, and never contain request headers
/// (so a bearer token can never leak into a log or onto the screen).
public enum TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    case cancelled
    case badURL(String)
    case dnsFailure(host: String)
    case cannotConnect(host: String, detail: String)
    case tlsFailure(detail: String)
    /// The server's public key is not the one pinned for it (`SessionConfiguration.pinnedPublicKey`):
    /// the connection was closed during the handshake, before a byte of the request was sent.
    case pinnedKeyMismatch(host: String)
    case timedOut(TimeoutKind, seconds: Double)
    case connectionLost(detail: String)
    case malformedResponse(detail: String)
    /// The server answered, but not with a 2xx. The body (capped at 1 MiB) is kept for error decoding.
    case httpStatus(Int, body: Data)
    case tooManyRedirects
    case fileNotFound(path: String)
    case cannotReadFile(path: String, reason: String)
    case cannotWriteFile(path: String, reason: String)
    case invalidResumeData(reason: String)
    case sessionInvalidated
    case curl(code: Int, detail: String)

    public var description: String { message }

    /// The reason ``cannotConnect(host:detail:)`` gives when nothing listens at the address
    /// (`ECONNREFUSED`): its message ends `(connection refused)`, which Remote reads back.
    public static let refusedReason = "connection refused"

    /// A one-line message for people.
    public var message: String {
        switch self {
        case .cancelled: return "Cancelled"
        case .badURL(let url): return "Bad URL: \(url)"
        case .dnsFailure(let host): return "Could not resolve host \(host)"
        // "can't connect to 127.0.0.1:8421 (connection refused)": the reason the socket gave,
        // never a timeout for a refusal.
        case .cannotConnect(let host, let detail): return "can't connect to \(host) (\(detail))"
        case .tlsFailure(let detail): return "Secure connection failed: \(detail)"
        case .pinnedKeyMismatch(let host):
            return "Refused: the server at \(host) did not show the key pinned for it, so nothing was sent. Someone may be "
                + "intercepting the connection (a proxy, a captive portal), or the server's key was replaced. Check the fingerprint "
                + "`byteclub serve` prints against this remote's pin in config.toml; if the key really changed, join again with a new invite."
        case .timedOut(.idle, let seconds): return "Timed out: no data for \(Self.format(seconds))"
        case .timedOut(.resource, let seconds): return "Timed out: transfer took longer than \(Self.format(seconds))"
        case .connectionLost(let detail): return "Connection lost: \(detail)"
        case .malformedResponse(let detail): return "Malformed response from server: \(detail)"
        case .httpStatus(let code, _): return "Server answered HTTP \(code)"
        case .tooManyRedirects: return "Too many redirects"
        case .fileNotFound(let path): return "No such file: \(path)"
        case .cannotReadFile(let path, let reason): return "Cannot read \(path): \(reason)"
        case .cannotWriteFile(let path, let reason): return "Cannot write \(path): \(reason)"
        case .invalidResumeData(let reason): return "Cannot resume download: \(reason)"
        case .sessionInvalidated: return "The session was already invalidated"
        case .curl(let code, let detail): return "Network error \(code): \(detail)"
        }
    }

    /// Whether retrying the same request later could succeed.
    public var isTransient: Bool {
        switch self {
        case .cannotConnect, .timedOut, .connectionLost, .dnsFailure: return true
        case .httpStatus(let code, _): return code == 429 || code >= 500
        default: return false
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }

    /// Maps a libcurl result to a typed error. `detail` is curl's error buffer.
    static func from(code: CURLcode, detail: String, osErrno: Int32, url: URL, elapsed: Double, configuration: SessionConfiguration) -> TransferError {
        let host = url.host ?? url.absoluteString
        let hostPort = url.port.map { "\(host):\($0)" } ?? host
        let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL where ["http", "https"].contains(url.scheme?.lowercased() ?? ""):
            // For an HTTP URL this means the reply was not HTTP (curl refuses HTTP/0.9).
            return .malformedResponse(detail: text)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .badURL(url.absoluteString)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .dnsFailure(host: host)
        case CURLE_COULDNT_CONNECT:
            // curl's own text hides the reason; the socket's errno has it.
            let reason = osErrno == ECONNREFUSED ? Self.refusedReason : osErrno != 0 ? String(cString: strerror(osErrno)) : text
            return .cannotConnect(host: hostPort, detail: reason)
        case CURLE_OPERATION_TIMEDOUT:
            // curl reports both timeouts with one code; the elapsed time tells them apart.
            let resource = configuration.timeoutIntervalForResource
            if elapsed + 0.05 >= resource {
                return .timedOut(.resource, seconds: resource)
            }
            return .timedOut(.idle, seconds: configuration.timeoutIntervalForRequest)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .tlsFailure(detail: text)
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .pinnedKeyMismatch(host: hostPort)
        case CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
             CURLE_SEND_FAIL_REWIND, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3:
            return .connectionLost(detail: text)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_RANGE_ERROR:
            return .malformedResponse(detail: text)
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        default:
            return .curl(code: Int(code.rawValue), detail: text)
        }
    }
}
