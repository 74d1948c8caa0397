import DropboxWire
import Foundation
import Transfer

extension DropboxStore {
    /// Large files (``TransferStreams/threshold`` and up) over `streams` connections, each
    /// asking `files/download` for a range; every answer must name the revision the metadata
    /// named, so a change meanwhile cannot mix two versions (it falls back to one stream).
    /// Smaller files, one stream, a bandwidth limit or a resume go as ever.
    ///
    /// Cancelled or cut off, the file's complete prefix is handed to `onResumeData` as ordinary
    /// resume data, and the next try continues from there over one connection.
    public func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                         onResumeData: (@Sendable (Data) -> Void)?, streams: Int?) async throws(RemoteError) -> RemoteEntry {
        let streams = TransferStreams.resolved(streams, server: endpoints.content)
        func oneConnection() async throws(RemoteError) -> RemoteEntry {
            try await downloadOverOneConnection(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
        }
        // A bandwidth limit is per transfer, and one stream fills it.
        guard streams > 1, resumeData == nil, !path.hasPrefix("rev:"), configuration.maxReceiveBytesPerSecond == nil else {
            return try await oneConnection()
        }
        let entry = try await metadata(path)
        guard entry.kind == .file, entry.size >= TransferStreams.threshold, let rev = entry.rev else { return try await oneConnection() }
        let location: URL
        do {
            location = try await ParallelDownload.run(size: entry.size, streams: streams, directory: configuration.temporaryDirectory,
                                                      progress: progress, fetch: { range in
                try await self.fetchRange(range, path: path, rev: rev)
            }, resume: { partial, prefix in
                guard let onResumeData else {
                    unlink(partial)
                    return
                }
                let resume = ResumeData(url: self.endpoints.content.appendingPathComponent("2/files/download"), method: "POST",
                                        headers: ["Dropbox-API-Arg": (try? Self.asciiJSON(["path": path])) ?? ""], offset: prefix,
                                        expectedLength: entry.size, etag: "\"\(rev)\"", lastModified: nil, temporaryPath: partial)
                onResumeData(resume.encoded())
            })
        } catch is ParallelDownload.RangesRefused {
            return try await oneConnection()
        } catch let error as RemoteError {
            throw error
        } catch {
            throw .cancelled
        }
        try Self.place(location, at: destination)
        return entry
    }

    /// One range, with the retries of any idempotent call; a 200 (the whole file), another
    /// range or another revision means the download cannot go on in parallel.
    private func fetchRange(_ range: ClosedRange<Int64>, path: String, rev: String) async throws -> Data {
        let answer = try await withRetries(idempotent: true) { () async throws(RemoteError) -> Data? in
            var request = try await self.request(self.endpoints.content, "2/files/download", arg: ["path": path])
            request.headers["Range"] = "bytes=\(range.lowerBound)-\(range.upperBound)"
            request.body = Data()
            let reply = await self.exchange(request, body: .none)
            try self.check(reply, path: path)
            guard reply.response?.statusCode == 206,
                  reply.response?.value(forHeader: "Content-Range")?.hasPrefix("bytes \(range.lowerBound)-") == true,
                  let response = reply.response, (try? Self.resultEntry(response))?.rev == rev else { return nil }
            return reply.body
        }
        guard let answer else { throw ParallelDownload.RangesRefused() }
        return answer
    }
}
