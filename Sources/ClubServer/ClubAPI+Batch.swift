import DropboxWire
import Foundation
import Hummingbird
import NIOCore

/// `upload_session/finish_batch_v2`: many closed upload sessions committed in one call, as
/// Dropbox answers it, synchronously.
///
/// The argument is `UploadSessionFinishBatchArg`, `{"entries": [UploadSessionFinishArg, …]}`, at
/// most 1,000 entries (more is a 400, as the spec's list bound makes it). The answer is
/// `UploadSessionFinishBatchResult`: one entry per entry asked, at the same position, either
/// `{".tag":"success", …FileMetadata}` or `{".tag":"failure","failure":UploadSessionFinishError}`.
/// The route's own error is void: whatever goes wrong with one entry is that entry's failure,
/// and the others are committed all the same.
///
/// Each entry commits as `upload_session/finish` does (the same write path, journal, revisions
/// and conflict rules), one after another in the order given, in groups of ``commitGroupSize``
/// flushed together (``FolderStore/commitGroup(_:)``). A session must have been closed
/// (`close: true` on its start or last append), as Dropbox requires for a batch; a concurrent
/// session must have all its blocks. A reader's batch commits nothing: every entry fails with
/// `path/no_write_permission`, the answer Dropbox gives a viewer of a read-only folder.
///
/// The answer is written entry by entry as each commits (chunked): a thousand commits, each
/// flushed to disk, can take longer than a client waits for a silent connection, and bytes
/// that keep coming show it that the server is at work.
extension ClubAPI {
    /// The most entries one call takes (Dropbox's bound on `UploadSessionFinishBatchArg.entries`).
    static let maxBatchEntries = 1000

    /// One entry of a batch, read before anything is committed: a malformed entry is the whole
    /// call's 400, as the spec's validation makes it. Only the path's own form is the entry's
    /// failure (`path/malformed_path`), as a single finish answers it.
    struct BatchEntry: Sendable {
        var sessionID: String
        var offset: Int
        var commit: CommitInfo
        var target: Result<DropboxPath, APIError>
        var contentHash: String?

        /// The cursor again, as the session lookups read it.
        var cursor: Arguments { Arguments(object: ["session_id": sessionID, "offset": offset], what: "cursor") }
    }

    func finishBatch(_ request: Request) async throws -> Response {
        let what = "upload_session/finish_batch_v2"
        let object = try JSON.object(Data(buffer: try await jsonBody(request)), what: what)
        let entries = try Self.batchEntries(Arguments(object: object, what: what))
        // The commits run as the answer is written, after this returns: the caller goes with them.
        let (member, role) = (Caller.member, CallerRole.role)
        let api = self
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
            try await Caller.$member.withValue(member) {
                try await CallerRole.$role.withValue(role) {
                    await api.store.holdIdentifierWrites()
                    api.store.batchCommits.began()
                    defer { api.store.batchCommits.ended() }
                    do {
                        try await writer.write(ByteBuffer(string: "{\"entries\":["))
                        var first = true
                        for start in stride(from: 0, to: entries.count, by: Self.commitGroupSize) {
                            var text = ""
                            for outcome in await api.outcomes(of: entries[start..<min(entries.count, start + Self.commitGroupSize)]) {
                                text += first ? "" : ","
                                first = false
                                api.appendOutcome(outcome, to: &text)
                            }
                            try await writer.write(ByteBuffer(string: text))
                        }
                        await api.store.releaseIdentifierWrites()
                    } catch {
                        await api.store.releaseIdentifierWrites()
                        throw error
                    }
                    try await writer.write(ByteBuffer(string: "]}"))
                }
            }
            try await writer.finish(nil)
        })
    }

    /// The entries of a batch's argument, or the 400 that refuses the whole call.
    static func batchEntries(_ arguments: Arguments) throws(APIError) -> [BatchEntry] {
        let what = arguments.what
        guard let value = arguments.object["entries"] else { throw APIError.badRequest("\(what): missing required field 'entries'") }
        guard let list = value as? [Any] else { throw APIError.badRequest("\(what): 'entries' must be a list") }
        guard list.count <= maxBatchEntries else {
            throw APIError.badRequest("\(what): 'entries': \(list.count) items, more than the \(maxBatchEntries) allowed")
        }
        var entries: [BatchEntry] = []
        entries.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            guard let object = item as? [String: Any] else { throw APIError.badRequest("\(what): 'entries[\(index)]' must be an object") }
            let entry = Arguments(object: object, what: "\(what): entries[\(index)]")
            guard let cursor = try entry.object("cursor") else { throw APIError.badRequest("\(entry.what): missing required field 'cursor'") }
            guard let commitArguments = try entry.object("commit") else { throw APIError.badRequest("\(entry.what): missing required field 'commit'") }
            let sessionID = try cursor.string("session_id")
            guard let offset = try cursor.int("offset", default: nil, range: 0...Int.max) else {
                throw APIError.badRequest("\(cursor.what): missing required field 'offset'")
            }
            let commit = try commitArguments.decode(CommitInfo.self)
            let target = Result { () throws(APIError) -> DropboxPath in try DropboxPath.checked(commit.path) }
            entries.append(BatchEntry(sessionID: sessionID, offset: offset, commit: commit, target: target,
                                      contentHash: try entry.optionalString("content_hash")))
        }
        return entries
    }

    /// Entries committed together and flushed once (``FolderStore/commitGroup(_:)``) before
    /// their answers are written: a note's four flushes become a group's few, and the answer
    /// still moves every few dozen commits.
    static let commitGroupSize = 32

    /// Commits a run of entries (a reader's: none), in order, and answers each: sequential
    /// sessions as one group of commits, a concurrent session's alone, where it stands.
    private func outcomes(of entries: ArraySlice<BatchEntry>) async -> [Result<Metadata, Error>] {
        if CallerRole.role.map({ !$0.canWrite }) ?? false {
            return entries.map { _ in .failure(APIError.endpoint([.path, .noWritePermission])) }
        }
        var outcomes: [Result<Metadata, Error>?] = Array(repeating: nil, count: entries.count)
        var group: [(position: Int, session: String, commit: FolderStore.GroupCommit)] = []
        for (position, entry) in entries.enumerated() {
            do {
                switch try await prepareBatchEntry(entry) {
                case .sequential(let session, let commit):
                    group.append((position, session, commit))
                case .concurrent(let session, let offset, let target):
                    // Its place in the order: the group before it commits first.
                    await commitSequential(group, into: &outcomes)
                    group = []
                    guard await store.uploads.leaseSession(session) else { throw APIError.endpoint([.tooManyWriteOperations]) }
                    defer { Task { await store.uploads.release(session) } }
                    outcomes[position] = .success(try await concurrentCommit(session, offset: offset, commit: entry.commit, target: target,
                                                                             contentHash: entry.contentHash))
                }
            } catch {
                outcomes[position] = .failure(error)
            }
        }
        await commitSequential(group, into: &outcomes)
        return outcomes.map { $0 ?? .failure(APIError.endpoint([.tooManyWriteOperations])) }
    }

    /// A batch entry checked and ready to commit.
    private enum PreparedEntry {
        /// A closed sequential session, its lease held (released by ``commitSequential(_:into:)``).
        case sequential(session: String, commit: FolderStore.GroupCommit)
        case concurrent(session: String, offset: Int64, target: DropboxPath)
    }

    /// Checks an entry as `finish` would, and leases a sequential session for its commit.
    private func prepareBatchEntry(_ entry: BatchEntry) async throws -> PreparedEntry {
        let target = try entry.target.get()
        if let concurrent = try concurrentSession(entry.cursor) {
            return .concurrent(session: concurrent.path, offset: concurrent.offset, target: target)
        }
        let session = try await lookupSession(entry.cursor, nested: true, allowClosed: true)
        guard UploadSessionFiles.isClosed(session) else { throw APIError.endpoint([.lookupFailed, .notClosed]) }
        // A batch sends no bytes: a `content_hash` of this call's data can only be that of nothing.
        if let contentHash = entry.contentHash, contentHash != ContentHasher.hash(Data()) { throw APIError.endpoint([.contentHashMismatch]) }
        // An append still running on it: a failure to try again, as Dropbox's busy namespace is.
        guard await store.uploads.lease(session) else { throw APIError.endpoint([.tooManyWriteOperations]) }
        let hash: String
        do {
            hash = try ContentHasher.hash(fileAt: session)
        } catch {
            await store.uploads.release(session)
            throw APIError.endpoint([.lookupFailed, .notFound])
        }
        return .sequential(session: session, commit: FolderStore.GroupCommit(
            temp: session, contentHash: hash, target: target, mode: entry.commit.mode, autorename: entry.commit.autorename,
            clientModified: entry.commit.clientModified))
    }

    /// Commits leased sequential sessions as one group, each answer at its position, and lets
    /// their sessions go.
    private func commitSequential(_ group: [(position: Int, session: String, commit: FolderStore.GroupCommit)],
                                  into outcomes: inout [Result<Metadata, Error>?]) async {
        guard !group.isEmpty else { return }
        let results = await store.commitGroup(group.map(\.commit))
        for (item, result) in zip(group, results) {
            switch result {
            case .success(let metadata):
                Self.forgetSession(item.session, markerLater: true)
                outcomes[item.position] = .success(metadata)
            case .failure(let error):
                outcomes[item.position] = .failure(Self.sessionError(error, route: .finish))
            }
        }
        let sessions = group.map(\.session)
        Task { for session in sessions { await store.uploads.release(session) } }
    }

    /// A committed sequential session's markers go (its file is now the folder's); a batch's
    /// owner markers once the uploads have stopped (``UploadSessionFiles/removeForgottenMarkers()``).
    static func forgetSession(_ session: String, markerLater: Bool = false) {
        // Closed by a server before the mode bit (UploadSessionFiles.closedBit).
        unlink(session + ".closed")
        UploadSessionFiles.forgetOwner(of: session, later: markerLater)
    }

    /// Appends an entry's answer to `text`: FileMetadata as the union's `success` member (its
    /// fields beside the tag), or its failure.
    func appendOutcome(_ outcome: Result<Metadata, Error>, to text: inout String) {
        switch outcome {
        case .success(let metadata):
            let json = metadata.jsonText
            let fileTag = "{\".tag\":\"file\""
            text += json.hasPrefix(fileTag) ? "{\".tag\":\"success\"" + json.dropFirst(fileTag.count) : json
        case .failure(let error):
            Self.appendFailure(failure(of: error), to: &text)
        }
    }

    /// Commits a sequential session's file (every byte arrived) to `target`: `finish`, and each
    /// entry of `finish_batch_v2`. The caller holds the session's lease.
    func sequentialCommit(_ session: String, commit: CommitInfo, target: DropboxPath) async throws -> Metadata {
        let hash: String
        do { hash = try ContentHasher.hash(fileAt: session) } catch { throw APIError.endpoint([.lookupFailed, .notFound]) }
        let metadata: Metadata
        do {
            metadata = try await store.commit(temp: session, contentHash: hash, to: target, mode: commit.mode, autorename: commit.autorename,
                                              clientModified: commit.clientModified, discardOnFailure: false)
        } catch {
            throw Self.sessionError(error, route: .finish)
        }
        Self.forgetSession(session)
        return metadata
    }

    /// An entry's failure as `UploadSessionFinishError`: a 409's union as it is; a busy server
    /// (429) `too_many_write_operations`, worth trying again; anything else `other`.
    private func failure(of error: Error) -> ErrorUnion {
        if let api = error as? APIError {
            if api.status == .conflict, let wire = api.wire { return wire.error }
            if api.status == .tooManyRequests { return ErrorUnion.nested([.tooManyWriteOperations]) }
        }
        configuration.logger.error("finish_batch_v2: an entry failed: \(error)")
        return ErrorUnion(tag: "other")
    }

    private static func appendFailure(_ union: ErrorUnion, to text: inout String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let failure = (try? encoder.encode(union)).map { String(decoding: $0, as: UTF8.self) } ?? "{\".tag\":\"other\"}"
        text += "{\".tag\":\"failure\",\"failure\":" + failure + "}"
    }
}
