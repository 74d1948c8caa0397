import Foundation
import Transfer

extension WebDAVStore {
    /// GET into `destination`. Resume data is Transfer's, as for every store: the bytes already
    /// on disk and the ETag they belong to; the resumed GET sends `Range` with `If-Range`, so a
    /// file changed meanwhile starts over rather than splicing two versions.
    /// Over ``TransferStreams/automatic(for:)`` streams when the file is large (WebDAVStore+ParallelDownload).
    public func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                         onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        try await download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData,
                           streams: nil)
    }

    /// A note's bytes: one GET into memory, no temporary file to make, read and remove (the
    /// index's first sync of a 100,000-note club reads every one of them).
    public func read(_ path: String) async throws(RemoteError) -> (data: Data, entry: RemoteEntry) {
        if path.hasPrefix("rev:") { throw .notSupported("revisions") }
        let url = try self.url(path)
        let reply = try await withRetries(idempotent: true) { () async throws(RemoteError) -> Reply in
            try await self.send("GET", url, path: path)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let modified = reply.header("Last-Modified").flatMap(WebDAVMultistatus.date)
        return (reply.body, RemoteEntry(kind: .file, name: name, path: path, rev: WebDAVEntityTag.canonical(reply.header("ETag")),
                                        size: Int64(reply.body.count), modified: modified))
    }

    /// One GET, resuming from `resumeData` when given.
    func downloadOverOneConnection(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                                   onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        if path.hasPrefix("rev:") { throw .notSupported("revisions") }
        let url = try self.url(path)
        var resume = resumeData
        return try await withRetries(idempotent: true) { () async throws(RemoteError) -> RemoteEntry in
            let attempt = await self.downloadOnce(url, path: path, resumeData: resume, destination: destination, progress: progress,
                                                  onResumeData: onResumeData)
            return try attempt.entry(resuming: &resume)
        }
    }

    private func downloadOnce(_ url: URL, path: String, resumeData: Data?, destination: URL, progress: ProgressHandler?,
                              onResumeData: (@Sendable (Data) -> Void)?) async -> DropboxStore.DownloadAttempt {
        await session.runDownload(Request(url: url), resumeData: resumeData, rebase: { decoded in
            // Today's URL: the same file, wherever the server listens now.
            decoded.url = url
            decoded.method = "GET"
        }, router: router, progress: progress, onResumeData: onResumeData, failure: { error, response in
            Self.remoteError(error, response: response, path: path, method: "GET")
        }, finish: { location, response in
            Self.finishDownload(location: location, response: response, path: path, destination: destination)
        })
    }

    /// Places a finished download and describes it from the response's headers.
    private static func finishDownload(location: URL, response: HTTPResponse, path: String, destination: URL) -> DropboxStore.DownloadAttempt {
        let size = (try? FileManager.default.attributesOfItem(atPath: location.path)[.size] as? NSNumber)?.int64Value ?? 0
        do {
            try DropboxStore.place(location, at: destination)
        } catch {
            return .failure(error, partial: nil)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let modified = response.value(forHeader: "Last-Modified").flatMap(WebDAVMultistatus.date)
        return .success(RemoteEntry(kind: .file, name: name, path: path, rev: WebDAVEntityTag.canonical(response.value(forHeader: "ETag")), size: size, modified: modified))
    }

    /// Plain WebDAV has no thumbnail endpoint, and a store only moves bytes: the app makes the
    /// thumbnail from the downloaded JPEG (ByteClubApp's `Thumbnails+Local.swift`) when a store
    /// says `.notSupported`, as this one always does, without asking the server.
    public func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data {
        throw .notSupported("thumbnails")
    }
}
