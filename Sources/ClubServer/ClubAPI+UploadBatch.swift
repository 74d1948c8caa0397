import Durable
import DropboxWire
import Foundation
import Hummingbird
import NIOCore

/// `/2/byteclub/files/upload_batch` (``UploadBatch``): many small files in one request, their
/// bytes written to temporary files as they arrive, flushed together, then committed as
/// `finish_batch_v2` commits its entries (``FolderStore/commitGroup(_:)``, groups of
/// ``commitGroupSize``), the answer written group by group.
///
/// The flush is what a batch saves: the temporary files are flushed together
/// (``DurableFile/flushTogether(files:folders:holding:)``), where a session a file flushed each
/// on its own. The bytes are on
/// disk before any file is renamed into place, so a crash leaves a committed file whole or
/// not there at all, never a short one, and an import run again finds each file the same or
/// missing. Temporary files a dropped request leaves are removed at once; one a crash leaves
/// is swept with the expired sessions (``TemporaryFolderClaim``).
extension ClubAPI {
    /// A part received: its bytes in `temp` (nil for a part whose path cannot be a file's),
    /// hashed.
    private struct ReceivedPart {
        var temp: String?
        var hash: String
        var commit: CommitInfo
        var target: Result<DropboxPath, APIError>
    }

    func uploadBatch(_ request: Request) async throws -> Response {
        let what = "files/upload_batch"
        store.batchCommits.sessionStarted()
        let parts = try await receiveParts(request.body, what: what)
        // The bytes on disk before anything is renamed into place (see above).
        let temps = parts.compactMap(\.temp)
        guard DurableFile.flushTogether(files: temps, holding: store.tempDirectory) else {
            for temp in temps { unlink(temp) }
            throw APIError.uploadPath([.insufficientSpace])
        }
        let (member, role) = (Caller.member, CallerRole.role)
        let api = self
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
            try await Caller.$member.withValue(member) {
                try await CallerRole.$role.withValue(role) {
                    await api.store.holdIdentifierWrites()
                    api.store.batchCommits.began()
                    defer { api.store.batchCommits.ended() }
                    var committed = 0
                    do {
                        try await writer.write(ByteBuffer(string: "{\"entries\":["))
                        for start in stride(from: 0, to: parts.count, by: Self.commitGroupSize) {
                            let group = parts[start..<min(parts.count, start + Self.commitGroupSize)]
                            var text = start == 0 ? "" : ","
                            for (index, outcome) in await api.commitParts(group).enumerated() {
                                if index > 0 { text += "," }
                                api.appendOutcome(outcome, to: &text)
                            }
                            committed = start + group.count
                            try await writer.write(ByteBuffer(string: text))
                        }
                        await api.store.releaseIdentifierWrites()
                    } catch {
                        // The client went away: what was not committed goes.
                        for part in parts[committed...] { if let temp = part.temp { unlink(temp) } }
                        await api.store.releaseIdentifierWrites()
                        throw error
                    }
                    try await writer.write(ByteBuffer(string: "]}"))
                }
            }
            try await writer.finish(nil)
        })
    }

    /// Commits a group of received parts; each answer at its position, and the temporary files
    /// of those that failed removed.
    private func commitParts(_ parts: ArraySlice<ReceivedPart>) async -> [Result<Metadata, Error>] {
        var outcomes: [Result<Metadata, Error>] = []
        var group: [(position: Int, commit: FolderStore.GroupCommit)] = []
        for part in parts {
            switch (part.target, part.temp) {
            case (.success(let target), let temp?):
                group.append((outcomes.count, FolderStore.GroupCommit(temp: temp, contentHash: part.hash, target: target, mode: part.commit.mode,
                                                                      autorename: part.commit.autorename, clientModified: part.commit.clientModified)))
                outcomes.append(.failure(APIError.endpoint([.tooManyWriteOperations])))
            case (.failure(let error), _):
                outcomes.append(.failure(error))
            case (.success, nil):
                outcomes.append(.failure(APIError.endpoint([.tooManyWriteOperations])))
            }
        }
        guard !group.isEmpty else { return outcomes }
        let results = await store.commitGroup(group.map(\.commit))
        for (item, result) in zip(group, results) {
            switch result {
            case .success(let metadata):
                outcomes[item.position] = .success(metadata)
            case .failure(let error):
                unlink(item.commit.temp)
                outcomes[item.position] = .failure(Self.sessionError(error, route: .finish))
            }
        }
        return outcomes
    }

    /// Reads the body's parts into temporary files (``UploadBatch``'s format), hashing each as it
    /// comes. A body that breaks the format, or a request that fails, removes every file written.
    private func receiveParts(_ body: RequestBody, what: String) async throws -> [ReceivedPart] {
        var parts: [ReceivedPart] = []
        var line: [UInt8] = []
        // The part being read: its file (nil: its bytes are read and dropped), what is left of it.
        var current: (part: ReceivedPart, fd: Int32, remaining: Int64, hasher: ContentHasher)?
        var total: Int64 = 0
        func discardAll() {
            if let current, current.fd >= 0 { close(current.fd) }
            for temp in parts.compactMap(\.temp) + [current?.part.temp].compactMap({ $0 }) { unlink(temp) }
        }
        func startPart() throws {
            defer { line.removeAll(keepingCapacity: true) }
            guard parts.count < UploadBatch.maxEntries else {
                throw APIError.badRequest("\(what): at most \(UploadBatch.maxEntries) parts at a time")
            }
            let arguments = Arguments(object: try JSON.object(Data(line), what: "\(what): part \(parts.count + 1)"), what: "\(what): part \(parts.count + 1)")
            let commit = try arguments.decode(CommitInfo.self)
            guard let size = try arguments.int("size", default: nil, range: 0...Int(UploadBatch.maxFileSize)) else {
                throw APIError.badRequest("\(arguments.what): missing required field 'size'")
            }
            let target = Result { () throws(APIError) -> DropboxPath in try DropboxPath.checked(commit.path) }
            var fd: Int32 = -1
            var temp: String?
            if case .success = target {
                let path = store.tempDirectory + "/batch-\(UUID().uuidString)"
                fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard fd >= 0 else {
                    throw errno == ENOSPC ? APIError.uploadPath([.insufficientSpace]) : APIError.uploadPath([.noWritePermission])
                }
                temp = path
            }
            current = (ReceivedPart(temp: temp, hash: "", commit: commit, target: target), fd, Int64(size), ContentHasher())
            if size == 0 { try finishPart() }
        }

        func finishPart() throws {
            guard var reading = current else { return }
            if reading.fd >= 0 { close(reading.fd) }
            reading.part.hash = reading.hasher.finalize()
            parts.append(reading.part)
            current = nil
        }

        do {
            for try await buffer in body {
                total += Int64(buffer.readableBytes)
                guard total <= configuration.maxRequestBodyBytes else { throw ConnectionAnswer.payloadTooLarge.apiError }
                try buffer.withUnsafeReadableBytes { (bytes: UnsafeRawBufferPointer) throws in
                    var offset = 0
                    while offset < bytes.count {
                        if var reading = current {
                            let take = Int(min(Int64(bytes.count - offset), reading.remaining))
                            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take])
                            if reading.fd >= 0 {
                                guard Self.writeAll(reading.fd, slice) else {
                                    throw errno == ENOSPC ? APIError.uploadPath([.insufficientSpace]) : APIError.uploadPath([.noWritePermission])
                                }
                            }
                            reading.hasher.update(slice)
                            reading.remaining -= Int64(take)
                            offset += take
                            current = reading
                            if reading.remaining == 0 { try finishPart() }
                            continue
                        }
                        guard let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else {
                            line += bytes[offset...]
                            guard line.count <= UploadBatch.maxLineLength else { throw APIError.badRequest("\(what): part \(parts.count + 1): its line is too long") }
                            offset = bytes.count
                            continue
                        }
                        line += bytes[offset..<newline]
                        offset = newline + 1
                        try startPart()
                    }
                }
            }
            guard current == nil, line.isEmpty else { throw APIError.badRequest("\(what): the body ends inside part \(parts.count + 1)") }
        } catch {
            discardAll()
            throw error
        }
        return parts
    }

    /// Writes all of `bytes`; false on a failure (errno says which).
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let wrote = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if wrote < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += wrote
        }
        return true
    }
}
