import Dispatch
import Foundation
import Imaging
import Transfer

extension WebDAVStore {
    /// GET into `destination`. Resume data is Transfer's, as for every store: the bytes already
    /// on disk and the ETag they belong to; the resumed GET sends `Range` with `If-Range`, so a
    /// file changed meanwhile starts over rather than splicing two versions.
    public func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
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
        return .success(RemoteEntry(kind: .file, name: name, path: path, rev: response.value(forHeader: "ETag"), size: size, modified: modified))
    }

    /// Plain WebDAV has no thumbnails: the JPEG is downloaded and scaled here, with
    /// libjpeg-turbo's DCT scaling, within the same limits the club server keeps. The app keeps
    /// the result on disk by path, rev (the ETag) and size, so each photo is fetched once.
    public func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data {
        let ext = (path as NSString).pathExtension.lowercased()
        guard ["jpg", "jpeg"].contains(ext) else { throw .server(status: 409, detail: "no thumbnail for \(path): not a JPEG") }
        let source = try await metadata(path)
        guard source.size <= Self.maxThumbnailSourceBytes else {
            throw .server(status: 409, detail: "no thumbnail for \(path): larger than \(Self.maxThumbnailSourceBytes >> 20) MiB")
        }
        let (data, _) = try await read(path)
        let box = size.box
        let made: Result<Data, ImagingError> = await withCheckedContinuation { continuation in
            // Decoding is long CPU work: off the cooperative pool, as the server does it.
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { () throws(ImagingError) in
                    try Thumbnail.make(from: data, boxWidth: box.width, boxHeight: box.height, fit: .within, limits: Self.thumbnailLimits)
                })
            }
        }
        switch made {
        case .success(let jpeg): return jpeg
        case .failure(let error): throw .server(status: 409, detail: "no thumbnail for \(path): \(error)")
        }
    }

    /// The club server's limits on one decode (see ClubAPI+Thumbnail.swift).
    static let thumbnailLimits = Thumbnail.Limits(maxPixels: 100_000_000, maxBufferedBytes: 128 << 20)
    static let maxThumbnailSourceBytes: Int64 = 64 << 20
}
