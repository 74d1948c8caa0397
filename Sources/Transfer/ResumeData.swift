import Foundation

/// What a cancelled download needs to continue later, even in another process.
///
/// Encoded as small JSON (`encoded()`), so the app can store it next to its state and
/// hand it back to `Session.downloadTask(withResumeData:)` after a restart.
public struct ResumeData: Codable, Sendable, Equatable {
    public static let currentVersion = 1

    public var version: Int
    public var url: URL
    public var method: String
    /// Request headers to send again. Authorization is never stored here; the session's
    /// `additionalHeaders` supply it again when the download resumes.
    public var headers: [String: String]
    /// Bytes already in `temporaryPath`.
    public var offset: Int64
    /// The full size, when the server told us.
    public var expectedLength: Int64?
    /// Validators of the partial content; sent as `If-Range` so a changed file restarts.
    public var etag: String?
    public var lastModified: String?
    public var temporaryPath: String

    public init(version: Int = ResumeData.currentVersion, url: URL, method: String, headers: [String: String], offset: Int64,
                expectedLength: Int64?, etag: String?, lastModified: String?, temporaryPath: String) {
        self.version = version
        self.url = url
        self.method = method
        self.headers = headers
        self.offset = offset
        self.expectedLength = expectedLength
        self.etag = etag
        self.lastModified = lastModified
        self.temporaryPath = temporaryPath
    }

    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding a struct of strings and numbers cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Decodes and checks resume data, naming what is wrong with it.
    public static func decode(_ data: Data) -> Result<ResumeData, TransferError> {
        guard let value = try? JSONDecoder().decode(ResumeData.self, from: data) else {
            return .failure(.invalidResumeData(reason: "the resume data is corrupt"))
        }
        guard value.version == currentVersion else {
            return .failure(.invalidResumeData(reason: "resume data version \(value.version) is not supported"))
        }
        guard value.offset >= 0, !value.temporaryPath.isEmpty else {
            return .failure(.invalidResumeData(reason: "the resume data is corrupt"))
        }
        return .success(value)
    }

    /// The `If-Range` validator: a strong ETag if there is one, otherwise Last-Modified.
    var ifRange: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}
