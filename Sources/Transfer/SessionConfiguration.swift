import Foundation

/// Settings shared by every task of a `Session`, fixed when the session is made.
public struct SessionConfiguration: Sendable {
    /// Headers added to every request, unless the request sets the same name itself.
    public var additionalHeaders: [String: String] = [:]
    /// Idle timeout: a task fails when no byte moves, or no connection is made, for this long.
    public var timeoutIntervalForRequest: TimeInterval = 60
    /// Total timeout: a task fails when it takes longer than this from start to end.
    public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
    /// At most this many connections to one host at once; further tasks queue inside the session.
    public var maximumConnectionsPerHost: Int = 6
    /// Upload bandwidth cap per task, in bytes per second. `nil` means no cap.
    public var maxSendBytesPerSecond: Int64?
    /// Download bandwidth cap per task, in bytes per second. `nil` means no cap.
    public var maxReceiveBytesPerSecond: Int64?
    /// Verify the server's TLS certificate and host name. Only tests against self-signed servers turn this off.
    public var verifiesTLSCertificates: Bool = true
    /// The server's public key, `sha256//BASE64` of its SubjectPublicKeyInfo (curl's
    /// `CURLOPT_PINNEDPUBLICKEY`). When set, the key is what is trusted: a club server's
    /// self-signed certificate passes without a CA or a matching host name, and any other key
    /// fails the handshake (`TransferError.pinnedKeyMismatch`) before the request is sent.
    public var pinnedPublicKey: String?
    /// Follow HTTP redirects (at most 10).
    public var followsRedirects: Bool = true
    /// Keep cookies in memory and share them between the session's tasks.
    public var sharesCookies: Bool = true
    /// Where download tasks write their temporary files.
    public var temporaryDirectory: URL = FileManager.default.temporaryDirectory
    /// The smallest gap between two progress callbacks of one task: 50 Hz by default, so that
    /// with the final value added a task never gets more than 60 a second.
    public var progressInterval: TimeInterval = 1.0 / 50.0
    /// curl's receive buffer. Larger buffers mean fewer callbacks on fast links.
    public var receiveBufferSize: Int = 512 * 1024
    /// curl's upload buffer (curl allows up to 2 MiB). 64 KiB, curl's own default: each buffer
    /// is read from the file and handed to `send` while it is still in the CPU's cache, and the
    /// driver runs curl again on the same socket while it takes data (`SocketBurst`), so small
    /// buffers cost no hand-off. With 2 MiB buffers a 512 MiB upload took 1.29× the curl CLI's
    /// time on loopback; with 64 KiB, 0.91–0.96× (docs/benchmarks.md, 2026-11-23).
    public var uploadBufferSize: Int = 64 * 1024
    /// The User-Agent sent unless a request or `additionalHeaders` sets one.
    public var userAgent: String = "byteclub/0.1"
    /// A user name and password for HTTP authentication (Basic, Digest), answered by curl
    /// itself; nil for none. Never part of resume data or of any description.
    public var credentials: Credentials?

    public init() {}

    /// The usual configuration: cookies shared between tasks, connections kept alive.
    public static var `default`: SessionConfiguration { SessionConfiguration() }

    /// Like `default`, but keeps nothing between tasks: no cookies are stored.
    public static var ephemeral: SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.sharesCookies = false
        return configuration
    }
}

/// One HTTP request. A value type, like `URLRequest`.
public struct Request: Sendable {
    public var url: URL
    public var method: String
    public var headers: [String: String]
    /// An in-memory body for data tasks; upload tasks take their body separately.
    public var body: Data?

    public init(url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    /// The value of a header, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// The head of an HTTP response.
public struct HTTPResponse: Sendable, Equatable {
    public var url: URL
    public var statusCode: Int
    /// Header fields in the order received. Names keep their case as sent.
    public var headerFields: [(name: String, value: String)]

    public init(url: URL, statusCode: Int, headerFields: [(name: String, value: String)]) {
        self.url = url
        self.statusCode = statusCode
        self.headerFields = headerFields
    }

    /// The last value of a header, compared case-insensitively.
    public func value(forHeader name: String) -> String? {
        headerFields.last { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// `Content-Length`, or -1 when the server did not say.
    public var expectedContentLength: Int64 {
        value(forHeader: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    public var isSuccess: Bool { (200..<300).contains(statusCode) }

    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.url == rhs.url && lhs.statusCode == rhs.statusCode
            && lhs.headerFields.map { "\($0.name): \($0.value)" } == rhs.headerFields.map { "\($0.name): \($0.value)" }
    }
}
