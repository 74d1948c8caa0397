import DropboxWire
import Foundation
import Synchronization
import Transfer

/// One streamed download across its retries (``StreamingDownloadStore``): how far its bytes
/// have been handed over, the file's entry, and a failure that is not the network's (the
/// consumer refused a byte, the file changed), which ends the retries.
final class StreamedDownload: Sendable {
    private struct State {
        var position: Int64
        var entry: RemoteEntry?
        var failure: (any Error)?
    }

    private let state: Mutex<State>
    /// The revision every answer must be of, when the caller knew it.
    private let rev: String?
    private let same: @Sendable (String?, String?) -> Bool
    private let began: @Sendable (RemoteEntry) throws -> Void
    private let receive: @Sendable (Data) throws -> Void
    private let progress: ProgressHandler?

    init(from offset: Int64, rev: String?, same: @escaping @Sendable (String?, String?) -> Bool, progress: ProgressHandler?,
         began: @escaping @Sendable (RemoteEntry) throws -> Void, receive: @escaping @Sendable (Data) throws -> Void) {
        state = Mutex(State(position: offset))
        self.rev = rev
        self.same = same
        self.progress = progress
        self.began = began
        self.receive = receive
    }

    /// Where the next answer must start.
    var position: Int64 { state.withLock { $0.position } }
    /// The revision the next answer must be of: the caller's, or the first answer's.
    var expectedRev: String? { rev ?? state.withLock { $0.entry?.rev } }
    var entry: RemoteEntry? { state.withLock { $0.entry } }
    var failure: (any Error)? { state.withLock { $0.failure } }

    /// Whether to take an answer that describes `entry` (nil: it did not say), with `status`
    /// and `Content-Range`, to a request from `start`. Anything but the bytes asked for, of
    /// the revision expected, is a failure the retries do not paper over.
    func accept(_ entry: RemoteEntry?, status: Int, contentRange: String?, start: Int64) -> Bool {
        guard let entry else { return fail(RemoteError.server(status: status, detail: "the download did not say which file it is")) }
        if let expected = expectedRev, !same(entry.rev, expected) { return fail(StreamingDownloadChanged()) }
        if start > 0 {
            // A server that ignores the range (200) or answers another: start over from the first byte.
            guard status == 206, contentRange?.hasPrefix("bytes \(start)-") == true else { return fail(StreamingDownloadChanged()) }
        } else {
            guard status == 200 || (status == 206 && contentRange?.hasPrefix("bytes 0-") == true) else {
                return fail(RemoteError.server(status: status, detail: "an answer that is not the file"))
            }
        }
        if self.entry == nil {
            do { try began(entry) } catch { return fail(error) }
            state.withLock { $0.entry = entry }
        }
        return true
    }

    /// Hands `data` to the consumer; its error ends the download.
    func take(_ data: Data) throws {
        do {
            try receive(data)
        } catch {
            _ = fail(error)
            throw error
        }
        let (done, total) = state.withLock { state -> (Int64, Int64) in
            state.position += Int64(data.count)
            return (state.position, state.entry?.size ?? -1)
        }
        progress?(done, total)
    }

    private func fail(_ error: any Error) -> Bool {
        state.withLock { if $0.failure == nil { $0.failure = error } }
        return false
    }

    /// Runs `attempt` (one request from ``position``) with `retries`, and answers the entry, or
    /// throws the failure that was not the network's.
    func run(_ retries: (() async throws(RemoteError) -> RemoteEntry) async throws(RemoteError) -> RemoteEntry,
             attempt: @escaping () async throws(RemoteError) -> Void) async throws -> RemoteEntry {
        do {
            return try await retries { () async throws(RemoteError) -> RemoteEntry in
                try await attempt()
                if self.failure != nil { throw .cancelled }
                guard let entry = self.entry else { throw .server(status: 0, detail: "no response") }
                return entry
            }
        } catch {
            if let failure { throw failure }
            throw error
        }
    }
}

extension DropboxStore: StreamingDownloadStore {
    public func stream(_ path: String, from offset: Int64, rev: String?, progress: ProgressHandler?,
                       began: @escaping @Sendable (RemoteEntry) throws -> Void,
                       receive: @escaping @Sendable (Data) throws -> Void) async throws -> RemoteEntry {
        let stream = StreamedDownload(from: offset, rev: rev, same: { $0 == $1 }, progress: progress, began: began, receive: receive)
        return try await stream.run({ body async throws(RemoteError) in try await self.withRetries(idempotent: true, body) }) { () async throws(RemoteError) in
            let start = stream.position
            var request = try await self.request(.download, arg: ["path": path])
            request.body = Data()
            if start > 0 { request.headers["Range"] = "bytes=\(start)-" }
            let receiver = StreamReceiver(accept: { response in
                stream.accept(try? Self.resultEntry(response), status: response.statusCode, contentRange: response.value(forHeader: "Content-Range"),
                              start: start)
            }, write: { data, _ in try stream.take(data) })
            let outcome = await receiver.run(self.session.dataTask(with: request), router: self.router)
            if stream.failure != nil { throw .cancelled }
            if let error = outcome.error { throw Self.remoteError(error, response: outcome.response, path: path, credential: self.credential) }
        }
    }
}

extension WebDAVStore: StreamingDownloadStore {
    public func stream(_ path: String, from offset: Int64, rev: String?, progress: ProgressHandler?,
                       began: @escaping @Sendable (RemoteEntry) throws -> Void,
                       receive: @escaping @Sendable (Data) throws -> Void) async throws -> RemoteEntry {
        if path.hasPrefix("rev:") { throw RemoteError.notSupported("revisions") }
        let url = try self.url(path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let stream = StreamedDownload(from: offset, rev: rev, same: { WebDAVEntityTag.same($0, $1) }, progress: progress, began: began,
                                      receive: receive)
        return try await stream.run({ body async throws(RemoteError) in try await self.withRetries(idempotent: true, body) }) { () async throws(RemoteError) in
            let start = stream.position
            var headers: [String: String] = [:]
            if start > 0 {
                headers["Range"] = "bytes=\(start)-"
                // A changed file answers 200 to If-Range: refused, and the caller starts over.
                if let etag = stream.expectedRev { headers["If-Range"] = etag }
            }
            let receiver = StreamReceiver(accept: { response in
                let etag = response.value(forHeader: "ETag")
                let size = response.value(forHeader: "Content-Range").flatMap { $0.split(separator: "/").last.flatMap { Int64($0) } }
                    ?? Int64(response.value(forHeader: "Content-Length")?.trimmingCharacters(in: .whitespaces) ?? "")
                    ?? -1
                let entry = RemoteEntry(kind: .file, name: name, path: path, rev: WebDAVEntityTag.canonical(etag), size: size,
                                        modified: response.value(forHeader: "Last-Modified").flatMap(WebDAVMultistatus.date))
                return stream.accept(entry, status: response.statusCode, contentRange: response.value(forHeader: "Content-Range"), start: start)
            }, write: { data, _ in try stream.take(data) })
            let outcome = await receiver.run(self.session.dataTask(with: Request(url: url, method: "GET", headers: headers)), router: self.router)
            if stream.failure != nil { throw .cancelled }
            if let error = outcome.error { throw Self.remoteError(error, response: outcome.response, path: path, method: "GET") }
        }
    }
}
