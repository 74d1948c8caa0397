import DropboxWire
import Foundation
import Synchronization

/// One file of a batch read: its bytes with the metadata of exactly what was read, or why it
/// could not be read (the batch went on without it).
public enum BatchRead: Sendable {
    case file(RemoteEntry, Data)
    case failed(path: String, RemoteError)
}

/// A store that can read many small files in one request: the first sync of a big club and the
/// catching up after a long time away, without one request per note.
public protocol BatchReadingStore: RemoteStore {
    /// Whether this store's server reads in batches (the club server does; Dropbox does not).
    var readsInBatches: Bool { get }
    /// The files at `paths` (at most ``BatchDownload/maxEntries``), in the same order. Throws only
    /// when the request as a whole failed; a file that could not be read is `.failed`.
    func readBatch(_ paths: [String]) async throws(RemoteError) -> [BatchRead]
}

extension DropboxStore: BatchReadingStore {
    /// The club server's `/2/byteclub/files/download_batch`; never asked of Dropbox (``speaksClub``),
    /// and given up on for good once a server answers that it has no such endpoint (an older byteclub).
    public var readsInBatches: Bool { speaksClub && !batchReadsRefused.withLock { $0 } }

    public func readBatch(_ paths: [String]) async throws(RemoteError) -> [BatchRead] {
        guard paths.count <= BatchDownload.maxEntries else {
            throw .local("a batch read takes at most \(BatchDownload.maxEntries) files, not \(paths.count)")
        }
        // Once refused, not asked again: the caller's other batches go one file at a time at once.
        guard !batchReadsRefused.withLock({ $0 }) else { throw .server(status: 404, detail: "this server has no batch download") }
        let body = BatchDownload.requestBody(paths: paths)
        return try await withRetries(idempotent: true) { () async throws(RemoteError) -> [BatchRead] in
            let request = try await self.request(.downloadBatch, json: true)
            let reply = await self.exchange(request, body: .data(body))
            if case .httpStatus(let status, _) = reply.error, status == 404 || status == 400 {
                // No such route here: the caller reads one file at a time from now on.
                self.batchReadsRefused.withLock { $0 = true }
            }
            try self.check(reply, path: paths.first ?? "/")
            let parts: [BatchDownload.Part]
            do {
                parts = try BatchDownload.parse(reply.body)
            } catch {
                // Cut short or garbled on the way: worth asking again.
                throw .server(status: 0, detail: "the batch download's answer did not parse (\(error))")
            }
            guard parts.count == paths.count else {
                throw .server(status: 0, detail: "the batch download answered \(parts.count) files of \(paths.count)")
            }
            return zip(paths, parts).map { path, part in
                switch part {
                case .file(let file, let data):
                    do throws(RemoteError) { return .file(try RemoteEntry(file), data) } catch { return .failed(path: path, error) }
                case .failure(_, let summary):
                    return .failed(path: path, Self.endpointError(summary, path: path))
                }
            }
        }
    }
}
