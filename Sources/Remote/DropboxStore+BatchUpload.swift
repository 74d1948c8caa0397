import DropboxWire
import Foundation
import Transfer

/// Many small files in few calls, as Dropbox asks bulk uploads to go: each file's bytes in one
/// `upload_session/start` with `close: true`, a few at a time over the store's connections, then
/// up to 1,000 sessions committed by one `upload_session/finish_batch_v2`. On Dropbox a commit
/// takes the namespace's lock, so one batch beats a thousand uploads that queue for it; the club
/// server answers the same calls (docs/server.md).
public enum BatchUpload {
    /// The largest file that goes in a batch: one request's worth (a 4 MiB block). Larger files
    /// take the single-file path (sessions of several chunks, several streams).
    public static let maxFileSize: Int64 = 4 << 20
    /// Sessions started at once.
    public static let concurrency = 4
    /// Entries per `finish_batch_v2` call on a club server. The server takes 1,000, but a member
    /// may hold at most 1,000 open sessions there, and the next batch's sessions start while the
    /// last one commits: 1,000-entry batches are refused (429) half way through a `put -r`.
    /// Servers before 2026-11-26 also looked at every open session at each start (1,000 small
    /// files took 55 s in 1,000-entry batches, debug build); 128 keeps both well clear.
    /// (Dropbox gets its 1,000.)
    public static let clubBatchEntries = 128
    /// Files in one `upload_batch` request to a club server (``UploadBatch``), and the most
    /// bytes one carries (a file larger than that goes alone): a few hundred notes a request,
    /// committed in the server's groups of 32 while the next request arrives.
    public static let partsPerRequest = 256
    public static let bytesPerRequest: Int64 = 8 << 20

    public enum Source: Sendable {
        case file(URL)
        case data(Data)
    }

    /// One file to send: its bytes (a file, or bytes in memory) and where it goes.
    public struct Item: Sendable {
        public var source: Source
        public var path: String

        public init(source: Source, path: String) {
            self.source = source
            self.path = path
        }
    }
}

/// Stores that commit many small files at once (Dropbox, the club server). WebDAV has no such
/// call: its callers keep the one-by-one path.
public protocol BatchUploadStore: RemoteStore {
    /// Sends `items` (each at most ``BatchUpload/maxFileSize``) and commits them with `mode`,
    /// never renaming; the answer for each at its position, a failure for one leaving the others
    /// committed. `progress` gets the bytes sent so far, as sessions complete.
    func uploadBatch(_ items: [BatchUpload.Item], mode: WriteMode, progress: (@Sendable (_ sent: Int64) -> Void)?) async
        -> [Result<RemoteEntry, RemoteError>]
}

extension DropboxStore: BatchUploadStore {
    public func uploadBatch(_ items: [BatchUpload.Item], mode: WriteMode, progress: (@Sendable (_ sent: Int64) -> Void)?) async
        -> [Result<RemoteEntry, RemoteError>] {
        if speaksClub, !clubUploadBatchRefused.withLock({ $0 }), let results = await uploadInParts(items, mode: mode, progress: progress) {
            return results
        }
        var results: [Result<RemoteEntry, RemoteError>] = []
        results.reserveCapacity(items.count)
        let sent = SharedPlan<Int64>(0)
        // The next batch's sessions start while the server commits the last one (a commit that
        // was under way when the task is cancelled ends on its own: its sessions are all sent).
        var committing: Task<[Result<RemoteEntry, RemoteError>], Never>? = nil
        for first in stride(from: 0, to: items.count, by: batchEntries) {
            let chunk = Array(items[first..<min(items.count, first + batchEntries)])
            let sessions = await startClosedSessions(chunk, sent: sent, progress: progress)
            if let committing { results += await committing.value }
            committing = Task { await self.finishBatch(chunk, sessions: sessions, mode: mode) }
        }
        if let committing { results += await committing.value }
        return results
    }

    /// A session that holds a whole file, closed.
    struct ClosedSession: Sendable {
        var id: String
        var size: Int64
    }

    /// Starts a closed session for each item, ``BatchUpload/concurrency`` at a time; each one's
    /// answer at its position.
    func startClosedSessions(_ items: [BatchUpload.Item], sent: SharedPlan<Int64>,
                             progress: (@Sendable (Int64) -> Void)?) async -> [Result<ClosedSession, RemoteError>] {
        await withTaskGroup(of: (Int, Result<ClosedSession, RemoteError>).self) { group in
            var results = [Result<ClosedSession, RemoteError>](repeating: .failure(.cancelled), count: items.count)
            var next = 0
            while next < min(BatchUpload.concurrency, items.count) {
                let index = next
                group.addTask { (index, await self.startClosedSession(items[index])) }
                next += 1
            }
            while let (index, result) = await group.next() {
                results[index] = result
                if case .success(let session) = result {
                    let total = sent.withLock { total in
                        total += session.size
                        return total
                    }
                    progress?(total)
                }
                if next < items.count, !Task.isCancelled {
                    let index = next
                    group.addTask { (index, await self.startClosedSession(items[index])) }
                    next += 1
                }
            }
            return results
        }
    }

    /// One file's bytes in one `upload_session/start` with `close: true`. Retried as any
    /// idempotent call: a start whose answer was lost leaves a session nobody commits, which the
    /// server lets expire.
    func startClosedSession(_ item: BatchUpload.Item) async -> Result<ClosedSession, RemoteError> {
        do {
            let body: Body
            let size: Int64
            switch item.source {
            case .data(let data):
                (body, size) = (.data(data), Int64(data.count))
            case .file(let url):
                size = try Self.regularFileSize(url)
                body = size == 0 ? .data(Data()) : .file(url, offset: 0, length: size)
            }
            let id = try await withRetries(idempotent: true) { () async throws(RemoteError) -> String in
                let request = try await self.request(.sessionStart, arg: ["close": true])
                let reply = await self.exchange(request, body: body)
                try self.check(reply, path: item.path)
                return try Self.decode(UploadSessionStart.self, from: reply.body).sessionID
            }
            return .success(ClosedSession(id: id, size: size))
        } catch {
            return .failure(error)
        }
    }

    /// Commits the sessions that started with one `finish_batch_v2` (retried as an idempotent
    /// call); entries the server was too busy for (`too_many_write_operations`) go again in the
    /// next call, after a backoff. An entry whose session is gone after a retry of the call (the
    /// first call landed, its answer lost) counts as committed if the file there is ours.
    func finishBatch(_ items: [BatchUpload.Item], sessions: [Result<ClosedSession, RemoteError>],
                     mode: WriteMode) async -> [Result<RemoteEntry, RemoteError>] {
        var results = [Result<RemoteEntry, RemoteError>](repeating: .failure(.cancelled), count: items.count)
        var pending: [(index: Int, session: ClosedSession)] = []
        for (index, session) in sessions.enumerated() {
            switch session {
            case .success(let session): pending.append((index, session))
            case .failure(let error): results[index] = .failure(error)
            }
        }
        var round = 0
        while !pending.isEmpty {
            round += 1
            let entries: [[String: Any]] = pending.map { item in
                ["cursor": ["session_id": item.session.id, "offset": item.session.size],
                 "commit": ["path": items[item.index].path, "mode": mode.jsonValue, "autorename": false, "mute": false, "strict_conflict": false]]
            }
            guard let body = try? JSONSerialization.data(withJSONObject: ["entries": entries]) else {
                for item in pending { results[item.index] = .failure(.local("cannot encode the request")) }
                break
            }
            var attempt = 0
            let expected = pending.count
            let answer: UploadSessionFinishBatchResult
            do {
                answer = try await withRetries(idempotent: true) { () async throws(RemoteError) -> UploadSessionFinishBatchResult in
                    attempt += 1
                    let request = try await self.request(.sessionFinishBatch, json: true)
                    let reply = await self.exchange(request, body: .data(body))
                    try self.check(reply, path: items[pending[0].index].path)
                    let decoded = try Self.decode(UploadSessionFinishBatchResult.self, from: reply.body)
                    guard decoded.entries.count == expected else {
                        throw .server(status: 0, detail: "finish_batch_v2 answered \(decoded.entries.count) entries for \(expected)")
                    }
                    return decoded
                }
            } catch {
                for item in pending { results[item.index] = .failure(error) }
                break
            }
            var again: [(index: Int, session: ClosedSession)] = []
            for (position, item) in pending.enumerated() {
                let path = items[item.index].path
                switch answer.entries[position] {
                case .success(let file):
                    results[item.index] = Result { () throws(RemoteError) -> RemoteEntry in try RemoteEntry(file) }
                case .failure(let union):
                    let tags = union.summaryTags
                    if tags.first == ErrorTag.tooManyWriteOperations.rawValue, round < retry.maxAttempts {
                        again.append(item)
                        continue
                    }
                    if attempt > 1, tags.contains(ErrorTag.notFound.rawValue), let landed = await landedEarlier(items[item.index]) {
                        results[item.index] = .success(landed)
                        continue
                    }
                    results[item.index] = .failure(Self.endpointError(tags.joined(separator: "/"), path: path))
                }
            }
            pending = again
            if !pending.isEmpty {
                do { try await Task.sleep(for: .milliseconds(Int(retry.delay(afterAttempt: round) * 1000))) } catch {
                    for item in pending { results[item.index] = .failure(.cancelled) }
                    break
                }
            }
        }
        return results
    }

    /// Sends the items to a club server's `upload_batch` (``UploadBatch``), many files' bytes a
    /// request (``BatchUpload/partsPerRequest``, ``BatchUpload/bytesPerRequest``), two requests
    /// under way at once so that the server commits one while the next arrives. Nil when the
    /// server has no such route (one from before 2026-11-28): nothing was sent, and the caller
    /// takes the sessions' way.
    func uploadInParts(_ items: [BatchUpload.Item], mode: WriteMode, progress: (@Sendable (Int64) -> Void)?) async
        -> [Result<RemoteEntry, RemoteError>]? {
        var requests: [Range<Int>] = []
        var start = 0
        var bytes: Int64 = 0
        for (index, item) in items.enumerated() {
            let size: Int64 = switch item.source {
            case .data(let data): Int64(data.count)
            case .file(let url): (try? Self.regularFileSize(url)) ?? 0
            }
            if index > start, index - start >= BatchUpload.partsPerRequest || bytes + size > BatchUpload.bytesPerRequest {
                requests.append(start..<index)
                (start, bytes) = (index, 0)
            }
            bytes += size
        }
        if start < items.count { requests.append(start..<items.count) }
        var results = [Result<RemoteEntry, RemoteError>](repeating: .failure(.cancelled), count: items.count)
        let sent = SharedPlan<Int64>(0)
        var inFlight: [(range: Range<Int>, task: Task<[Result<RemoteEntry, RemoteError>]?, Never>)] = []
        func collect(_ range: Range<Int>, _ answer: [Result<RemoteEntry, RemoteError>]?) -> Bool {
            guard let answer else { return false }
            for (offset, result) in answer.enumerated() { results[range.lowerBound + offset] = result }
            return true
        }
        for (number, range) in requests.enumerated() {
            if Task.isCancelled { break }
            let chunk = Array(items[range])
            let task = Task { await self.sendParts(chunk, mode: mode, sent: sent, progress: progress) }
            if number == 0 {
                // The first answer says whether the server has the route at all.
                guard collect(range, await task.value) else { return nil }
                continue
            }
            inFlight.append((range, task))
            if inFlight.count >= 2 {
                let first = inFlight.removeFirst()
                _ = collect(first.range, await first.task.value)
            }
        }
        for pending in inFlight { _ = collect(pending.range, await pending.task.value) }
        return results
    }

    /// One `upload_batch` request: each item's answer at its position, or nil when the server
    /// has no such route (404). Sent again as any idempotent call: a file whose first sending
    /// landed, its answer lost, is found at its path with its bytes (``landedEarlier(_:)``).
    /// Entries the server was too busy for go again in the next request, after a backoff.
    private func sendParts(_ items: [BatchUpload.Item], mode: WriteMode, sent: SharedPlan<Int64>,
                           progress: (@Sendable (Int64) -> Void)?) async -> [Result<RemoteEntry, RemoteError>]? {
        var results = [Result<RemoteEntry, RemoteError>](repeating: .failure(.cancelled), count: items.count)
        var pending = Array(items.indices)
        var round = 0
        while !pending.isEmpty {
            round += 1
            var body = Data()
            var sending: [Int] = []
            var bytes: Int64 = 0
            for index in pending {
                let data: Data
                switch items[index].source {
                case .data(let bytes): data = bytes
                case .file(let url):
                    do {
                        _ = try Self.regularFileSize(url)
                        data = try Data(contentsOf: url)
                    } catch let error as RemoteError {
                        results[index] = .failure(error)
                        continue
                    } catch {
                        results[index] = .failure(.local("cannot read \(url.path): \(error.localizedDescription)"))
                        continue
                    }
                }
                body.append(contentsOf: UploadBatch.partLine(path: items[index].path, mode: mode, size: Int64(data.count)).utf8)
                body.append(data)
                bytes += Int64(data.count)
                sending.append(index)
            }
            guard !sending.isEmpty else { break }
            var attempt = 0
            let answer: UploadSessionFinishBatchResult
            do {
                answer = try await withRetries(idempotent: true) { () async throws(RemoteError) -> UploadSessionFinishBatchResult in
                    attempt += 1
                    let request = try await self.request(.clubUploadBatch, arg: [String: Any]())
                    let reply = await self.exchange(request, body: .data(body))
                    try self.check(reply, path: sending.count == 1 ? items[sending[0]].path : "")
                    let decoded = try Self.decode(UploadSessionFinishBatchResult.self, from: reply.body)
                    guard decoded.entries.count == sending.count else {
                        throw .server(status: 0, detail: "upload_batch answered \(decoded.entries.count) entries for \(sending.count)")
                    }
                    return decoded
                }
            } catch .server(404, _) where round == 1 {
                clubUploadBatchRefused.withLock { $0 = true }
                return nil
            } catch {
                for index in sending { results[index] = .failure(error) }
                break
            }
            let total = sent.withLock { total in
                total += bytes
                return total
            }
            progress?(total)
            var again: [Int] = []
            for (position, index) in sending.enumerated() {
                let path = items[index].path
                switch answer.entries[position] {
                case .success(let file):
                    results[index] = Result { () throws(RemoteError) -> RemoteEntry in try RemoteEntry(file) }
                case .failure(let union):
                    let tags = union.summaryTags
                    if tags.first == ErrorTag.tooManyWriteOperations.rawValue, round < retry.maxAttempts {
                        again.append(index)
                        continue
                    }
                    // Sent again after an answer was lost: the first sending's file is there.
                    if attempt > 1, tags.contains(ErrorTag.conflict.rawValue), let landed = await landedEarlier(items[index]) {
                        results[index] = .success(landed)
                        continue
                    }
                    results[index] = .failure(Self.endpointError(tags.joined(separator: "/"), path: path))
                }
            }
            pending = again
            if !pending.isEmpty {
                do { try await Task.sleep(for: .milliseconds(Int(retry.delay(afterAttempt: round) * 1000))) } catch {
                    for index in pending { results[index] = .failure(.cancelled) }
                    break
                }
            }
        }
        return results
    }

    /// What is at the item's path, if it holds the item's bytes (by content hash).
    private func landedEarlier(_ item: BatchUpload.Item) async -> RemoteEntry? {
        let hash: String
        switch item.source {
        case .data(let data): hash = ContentHasher.hash(data)
        case .file(let url):
            guard let fileHash = try? ContentHasher.hash(fileAt: url.path) else { return nil }
            hash = fileHash
        }
        guard let entry = try? await metadata(item.path), entry.contentHash == hash else { return nil }
        return entry
    }

    /// Entries per `finish_batch_v2` call: the spec's most (1,000) on Dropbox, where every commit
    /// call takes the namespace's lock; ``BatchUpload/clubBatchEntries`` on a club server.
    var batchEntries: Int { endpoints == .dropbox ? UploadSessionFinishBatchResult.maxEntries : BatchUpload.clubBatchEntries }
}
