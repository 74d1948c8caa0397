import Foundation
import Transfer

extension WebDAVStore: ParallelTransferStore {
    /// Large files over `streams` connections where the server says it serves ranges: a HEAD
    /// first (`Accept-Ranges: bytes`, the length, a strong ETag), then ranged GETs with
    /// `If-Range`, so a file changed meanwhile answers 200 and the download falls back to one
    /// stream rather than splice two versions. Uploads stay one PUT: WebDAV has no sessions.
    public func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                         onResumeData: (@Sendable (Data) -> Void)?, streams: Int?) async throws(RemoteError) -> RemoteEntry {
        func oneConnection() async throws(RemoteError) -> RemoteEntry {
            try await downloadOverOneConnection(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
        }
        // A bandwidth limit is per transfer, and one stream fills it.
        guard resumeData == nil, !path.hasPrefix("rev:"), session.configuration.maxReceiveBytesPerSecond == nil else {
            return try await oneConnection()
        }
        let url = try self.url(path)
        let minimum = TransferStreams.minimumSize(requested: streams)
        let streams = TransferStreams.resolved(streams, server: url)
        guard streams > 1 else { return try await oneConnection() }
        let head = try await withRetries(idempotent: true) { () async throws(RemoteError) -> Reply in
            try await self.send("HEAD", url, path: path)
        }
        guard head.header("Accept-Ranges")?.lowercased().contains("bytes") == true,
              let size = head.header("Content-Length").flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }),
              size >= minimum,
              let etag = head.header("ETag"), !etag.hasPrefix("W/") else { return try await oneConnection() }
        let modified = head.header("Last-Modified")
        let location: URL
        do {
            location = try await ParallelDownload.run(size: size, streams: streams, directory: session.configuration.temporaryDirectory,
                                                      progress: progress, fetch: { range, write in
                try await self.fetchRange(range, url: url, etag: etag, path: path, write: write)
            }, resume: { partial, prefix in
                guard let onResumeData else {
                    unlink(partial)
                    return
                }
                onResumeData(ResumeData(url: url, method: "GET", headers: [:], offset: prefix, expectedLength: size, etag: etag,
                                        lastModified: modified, temporaryPath: partial).encoded())
            })
        } catch is ParallelDownload.RangesRefused {
            return try await oneConnection()
        } catch let error as RemoteError {
            throw error
        } catch {
            throw .cancelled
        }
        try DropboxStore.place(location, at: destination)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return RemoteEntry(kind: .file, name: name, path: path, rev: WebDAVEntityTag.canonical(etag), size: size,
                           modified: modified.flatMap(WebDAVMultistatus.date))
    }

    /// WebDAV has no upload sessions: one PUT, whatever `streams` says.
    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?,
                       streams: Int?) async throws(RemoteError) -> RemoteEntry {
        try await upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
    }

    /// One range, its bytes written as they arrive; an answer other than 206 for that range
    /// (a changed file answers 200 to `If-Range`) means falling back to one stream.
    private func fetchRange(_ range: ClosedRange<Int64>, url: URL, etag: String, path: String,
                            write: @escaping ParallelDownload.RangeWriter) async throws {
        let answered = try await withRetries(idempotent: true) { () async throws(RemoteError) -> Bool in
            let request = Request(url: url, method: "GET", headers: ["Range": "bytes=\(range.lowerBound)-\(range.upperBound)", "If-Range": etag])
            let receiver = StreamReceiver(accept: { response in
                response.statusCode == 206 && response.value(forHeader: "Content-Range")?.hasPrefix("bytes \(range.lowerBound)-") == true
            }, write: write)
            let outcome = await receiver.run(self.session.dataTask(with: request), router: self.router)
            guard outcome.accepted, !(outcome.writeFailure is ParallelDownload.RangesRefused) else { return false }
            if let failure = outcome.writeFailure { throw failure as? RemoteError ?? .local("\(failure)") }
            if let error = outcome.error { throw Self.remoteError(error, response: outcome.response, path: path, method: "GET") }
            return true
        }
        guard answered else { throw ParallelDownload.RangesRefused() }
    }
}
