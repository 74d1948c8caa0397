import Foundation
import Transfer

/// A store whose downloads can be continued by another process at a partial file the caller
/// chose: the background agent's, which may be killed with no chance to hand over resume data.
///
/// The store names the validator its server compares `If-Range` with, so a file changed since
/// the partial began is sent whole again and never spliced onto older bytes.
public protocol PartialDownloadStore: RemoteStore {
    /// The `If-Range` validator for the file `entry` describes; nil when there is none.
    func rangeValidator(for entry: RemoteEntry) -> String?
    /// The method of a download request (resume data repeats it).
    var downloadMethod: String { get }
}

extension PartialDownloadStore {
    /// Resume data that downloads the file at `path` into `partial` (``DownloadResume/starting(at:method:validator:)``);
    /// nil when the file has no validator, so it cannot be continued safely and downloads as ever.
    public func partialDownload(of path: String, at partial: URL) async throws(RemoteError) -> Data? {
        let entry = try await metadata(path)
        guard entry.kind == .file, let validator = rangeValidator(for: entry) else { return nil }
        return try DownloadResume.starting(at: partial, method: downloadMethod, validator: validator)
    }
}

extension DropboxStore: PartialDownloadStore {
    /// The club server (and the content endpoint's ETag) quote the revision.
    public func rangeValidator(for entry: RemoteEntry) -> String? {
        entry.rev.map { "\"\($0)\"" }
    }

    /// `2/files/download` is a POST with its argument in a header.
    public var downloadMethod: String { "POST" }
}

extension WebDAVStore: PartialDownloadStore {
    /// A WebDAV `rev` is already the entity tag, quoted (``WebDAVEntityTag/canonical(_:)``);
    /// a weak one cannot validate a range (RFC 9110 §13.1.5).
    public func rangeValidator(for entry: RemoteEntry) -> String? {
        entry.rev.flatMap { $0.hasPrefix("W/") ? nil : $0 }
    }

    public var downloadMethod: String { "GET" }
}

extension DownloadResume {
    /// Resume data for a download that has not begun: it writes into `partial` (created empty
    /// here, mode 0600) from the first byte, without a `Range`. Journaled before the transfer
    /// starts, it lets ``continuing(_:)`` pick the file up after a crash. The URL and request
    /// headers are placeholders: each store points resume data at today's request.
    public static func starting(at partial: URL, method: String, validator: String) throws(RemoteError) -> Data {
        let folder = partial.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .local("Cannot make \(folder.path): \(error.localizedDescription)")
        }
        let fd = open(partial.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .local("Cannot write \(partial.path): \(String(cString: strerror(errno)))") }
        close(fd)
        return ResumeData(url: partial, method: method, headers: [:], offset: 0, expectedLength: nil, etag: validator,
                          lastModified: nil, temporaryPath: partial.path).encoded()
    }

    /// `data` brought up to what its partial file holds now: every byte a killed process wrote
    /// is in the file (a kill loses only what it had not yet written), so the file's size is
    /// where the next request starts. Nil, and the partial file removed, when the data cannot
    /// be continued safely: undecodable, the file gone, or no validator to send as `If-Range`
    /// (a strong ETag or Last-Modified; a `Range` without one could splice two versions).
    public static func continuing(_ data: Data) -> Data? {
        guard var resume = try? ResumeData.decode(data).get() else { return nil }
        // Transfer's own `If-Range` choice: a strong ETag, else Last-Modified.
        guard resume.etag.map({ !$0.hasPrefix("W/") }) ?? false || resume.lastModified != nil else {
            unlink(resume.temporaryPath)
            return nil
        }
        var info = stat()
        guard stat(resume.temporaryPath, &info) == 0 else { return nil }
        resume.offset = Int64(info.st_size)
        return resume.encoded()
    }

    /// The partial file `data` continues, if it decodes.
    public static func partialPath(of data: Data) -> String? {
        try? ResumeData.decode(data).get().temporaryPath
    }
}
