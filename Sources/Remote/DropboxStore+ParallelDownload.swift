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
        let minimum = TransferStreams.minimumSize(requested: streams)
        let streams = TransferStreams.resolved(streams, server: endpoints.content)
        func oneConnection() async throws(RemoteError) -> RemoteEntry {
            try await downloadOverOneConnection(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
        }
        // A bandwidth limit is per transfer, and one stream fills it.
        guard streams > 1, resumeData == nil, !path.hasPrefix("rev:"), configuration.maxReceiveBytesPerSecond == nil else {
            return try await oneConnection()
        }
        let entry = try await metadata(path)
        guard entry.kind == .file, entry.size >= minimum, let rev = entry.rev else { return try await oneConnection() }
        let downloadURL = url(for: .download)
        let header = (try? Self.asciiJSON(["path": path])) ?? ""
        // What a single-stream resume continues from: the file's complete prefix.
        let makeResume = { @Sendable (partial: String, prefix: Int64) -> Data in
            ResumeData(url: downloadURL, method: "POST", headers: ["Dropbox-API-Arg": header], offset: prefix,
                       expectedLength: entry.size, etag: "\"\(rev)\"", lastModified: nil, temporaryPath: partial).encoded()
        }
        var checkpoint: (@Sendable (String, Int64) -> Void)?
        if let sink = DownloadCheckpoint.sink { checkpoint = { partial, prefix in sink(makeResume(partial, prefix)) } }
        let location: URL
        do {
            location = try await ParallelDownload.run(size: entry.size, streams: streams, directory: configuration.temporaryDirectory,
                                                      progress: progress, fetch: { range, write in
                try await self.fetchRange(range, path: path, rev: rev, write: write)
            }, resume: { partial, prefix in
                guard let onResumeData else {
                    unlink(partial)
                    return
                }
                onResumeData(makeResume(partial, prefix))
            }, checkpoint: checkpoint)
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

    /// One range, with the retries of any idempotent call, its bytes written as they arrive;
    /// a 200 (the whole file), another range or another revision means the download cannot go
    /// on in parallel.
    private func fetchRange(_ range: ClosedRange<Int64>, path: String, rev: String,
                            write: @escaping ParallelDownload.RangeWriter) async throws {
        let answered = try await withRetries(idempotent: true) { () async throws(RemoteError) -> Bool in
            var request = try await self.request(.download, arg: ["path": path])
            request.headers["Range"] = "bytes=\(range.lowerBound)-\(range.upperBound)"
            request.body = Data()
            let receiver = StreamReceiver(accept: { response in
                response.statusCode == 206
                    && response.value(forHeader: "Content-Range")?.hasPrefix("bytes \(range.lowerBound)-") == true
                    && (try? Self.resultEntry(response))?.rev == rev
            }, write: write)
            let outcome = await receiver.run(self.session.dataTask(with: request), router: self.router)
            guard outcome.accepted, !(outcome.writeFailure is ParallelDownload.RangesRefused) else { return false }
            if let failure = outcome.writeFailure { throw failure as? RemoteError ?? .local("\(failure)") }
            try self.check(Reply(body: Data(), response: outcome.response, error: outcome.error), path: path)
            return true
        }
        guard answered else { throw ParallelDownload.RangesRefused() }
    }
}
