import DropboxWire
import Foundation
import HTTPTypes
import Hummingbird
import Imaging
import NIOCore
import Synchronization
import Durable

/// Content endpoints: the argument comes in `Dropbox-API-Arg`, the bytes in the body.
extension ClubAPI {
    static let resultHeader = HTTPField.Name("Dropbox-API-Result")!
    private static let chunkSize = 1 << 20

    // MARK: Download

    func download(_ request: Request) async throws -> Response {
        let arguments = try argument(request, what: "download")
        // A path, or a revision: `rev:<rev>` (ClubAPI+Revisions).
        let opened = try await openForDownload(arguments)
        let file = opened.file
        let size = file.size
        let etag = "\"\(file.rev)\""
        let headers: HTTPFields = [
            .contentType: "application/octet-stream",
            Self.resultHeader: JSON.resultHeader(.file(file)),
            .eTag: etag,
            .acceptRanges: "bytes",
        ]
        return Self.fileResponse(request, headers: headers, etag: etag, size: size, handle: opened.handle)
    }

    /// A file's bytes as the answer to a GET: all of them, or the one range asked for (206), or
    /// 416 with the size; `If-Range` with another ETag asks for the whole file. A download and a
    /// share link's file answer the same way.
    static func fileResponse(_ request: Request, headers: HTTPFields, etag: String, size: Int64, handle: FileHandleBox) -> Response {
        var headers = headers
        var status = HTTPResponse.Status.ok
        var range: ClosedRange<Int64>? = size > 0 ? 0...(size - 1) : nil
        if let rangeHeader = request.headers[.range], request.headers[.ifRange].map({ $0 == etag }) ?? true {
            switch Self.parseRange(rangeHeader, size: size) {
            case .some(.some(let requested)):
                range = requested
                status = .partialContent
                headers[.contentRange] = "bytes \(requested.lowerBound)-\(requested.upperBound)/\(size)"
            case .some(.none):
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
            case .none:
                break
            }
        }
        guard let range else { return Response(status: status, headers: headers, body: .init()) }
        return Response(status: status, headers: headers, body: Self.fileBody(handle, range: range))
    }

    /// Streams `range` of an open file in 1 MiB reads (a download, or a share link's file).
    static func fileBody(_ handle: FileHandleBox, range: ClosedRange<Int64>) -> ResponseBody {
        let length = Int(range.upperBound - range.lowerBound + 1)
        return ResponseBody(contentLength: length) { writer in
            var offset = range.lowerBound
            var remaining = length
            var buffer = ByteBufferAllocator().buffer(capacity: Self.chunkSize)
            while remaining > 0 {
                buffer.clear()
                let want = min(remaining, Self.chunkSize)
                let got = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { pointer in
                    let count = pread(handle.fd, pointer.baseAddress, want, off_t(offset))
                    guard count > 0 else { throw APIError.badRequest("download: the file changed while it was being read") }
                    return count
                }
                offset += Int64(got)
                remaining -= got
                try await writer.write(buffer)
            }
            try await writer.finish(nil)
        }
    }

    /// nil: no usable Range (send everything); .some(nil): unsatisfiable; else the byte range.
    ///
    /// As RFC 9110 §14.1 has it: a suffix of zero (`bytes=-0`) is unsatisfiable (416), and a
    /// last position (or suffix) past the end, however many digits, is clamped to the end.
    package static func parseRange(_ header: String, size: Int64) -> ClosedRange<Int64>?? {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes="), !trimmed.contains(",") else { return nil }
        let spec = trimmed.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = position(last) else { return nil }
            guard suffix > 0, size > 0 else { return .some(nil) }
            return .some(max(0, size - suffix)...(size - 1))
        }
        guard let start = position(first) else { return nil }
        guard start < size else { return .some(nil) }
        var end = size - 1
        if !last.isEmpty {
            guard let value = position(last), value >= start else { return nil }
            end = min(value, size - 1)
        }
        return .some(start...end)
    }

    /// A Range position: digits only; one too large for an Int64 is Int64.max (past any end).
    private static func position(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text) ?? Int64.max
    }

    // MARK: Upload

    func upload(_ request: Request, fault: Fault) async throws -> Response {
        let arguments = try argument(request, what: "upload")
        let target = try DropboxPath.checked(try arguments.string("path"))
        let commit = try arguments.decode(CommitInfo.self)
        let temp = store.tempDirectory + "/upload-\(UUID().uuidString)"
        let hash = try await receive(request.body, into: temp, append: false, fault: fault)
        // Dropbox's `content_hash` is the hash of this call's bytes (here the whole file); the
        // official SDKs send it with every upload.
        if let declared = try arguments.optionalString("content_hash"), declared != hash {
            unlink(temp)
            throw APIError.endpoint([.contentHashMismatch])
        }
        let metadata = try await store.commit(temp: temp, contentHash: hash, to: target, mode: commit.mode, autorename: commit.autorename,
                                              clientModified: commit.clientModified, discardOnFailure: true)
        return jsonBody(metadata)
    }

    /// Streams a request body into a file, hashing as it goes, within the per-request cap.
    /// Any failure (a dropped connection included) removes what was written, unless appending
    /// to a session, where the bytes that did arrive stay and set the next correct offset.
    func receive(_ body: RequestBody, into path: String, append: Bool, fault: Fault) async throws -> String {
        try await receiveCounted(body, into: path, append: append, fault: fault).hash
    }

    /// ``receive(_:into:append:fault:)``, also saying how many bytes arrived. With `offset`
    /// (a concurrent session's block), the bytes are written there with pwrite, at most
    /// `limit` of them, into the existing session file, which keeps what arrived on failure.
    func receiveCounted(_ body: RequestBody, into path: String, append: Bool, at offset: Int64? = nil, limit: Int64? = nil,
                        fault: Fault) async throws -> (hash: String, count: Int64) {
        let flags = offset != nil ? (O_WRONLY | O_CLOEXEC) : append ? (O_WRONLY | O_APPEND | O_CLOEXEC) : (O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC)
        let fd = open(path, flags, 0o600)
        guard fd >= 0 else {
            throw errno == ENOSPC ? APIError.uploadPath([.insufficientSpace]) : APIError.uploadPath([.noWritePermission])
        }
        var closed = false
        defer { if !closed { close(fd) } }
        var hasher = ContentHasher()
        counters.uploadRequests.wrappingAdd(1, ordering: .relaxed)
        let cap = min(configuration.maxRequestBodyBytes, limit ?? Int64.max)
        // Where a concurrent session's block goes (the name `offset` is taken inside the loop).
        let blockStart = offset
        // Chaos `drop` on an upload: cut the connection once this many bytes arrived.
        var dropAfter: Int64? = nil
        if case .drop(let fraction) = fault { dropAfter = Int64(fraction * 4 * 1024 * 1024) }
        do {
            for try await buffer in body {
                if hasher.byteCount + Int64(buffer.readableBytes) > cap {
                    // The same 413 as a declared length over the cap; it closes the connection
                    // rather than drain the rest of the body.
                    throw ConnectionAnswer.payloadTooLarge.apiError
                }
                try buffer.withUnsafeReadableBytes { bytes throws(APIError) in
                    var offset = 0
                    while offset < bytes.count {
                        let written = if let blockStart {
                            pwrite(fd, bytes.baseAddress! + offset, bytes.count - offset, off_t(blockStart + hasher.byteCount + Int64(offset)))
                        } else {
                            Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                        }
                        if written < 0 {
                            if errno == EINTR { continue }
                            throw errno == ENOSPC ? APIError.uploadPath([.insufficientSpace]) : APIError.uploadPath([.noWritePermission])
                        }
                        offset += written
                    }
                    hasher.update(bytes)
                }
                counters.bodyBytesReceived.wrappingAdd(Int64(buffer.readableBytes), ordering: .relaxed)
                if let limit = dropAfter, hasher.byteCount >= limit { throw ChaosDrop() }
            }
            guard DurableFile.flush(fd) else { throw APIError.uploadPath([.insufficientSpace]) }
            closed = true
            close(fd)
        } catch {
            if !append && offset == nil { unlink(path) }
            throw error
        }
        return (hasher.finalize(), hasher.byteCount)
    }

    func jsonBody(_ metadata: Metadata) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: metadata.jsonText)))
    }

    // MARK: Upload sessions

    func sessionStart(_ request: Request, fault: Fault) async throws -> Response {
        let arguments = try argument(request, what: "upload_session/start")
        let close = try arguments.bool("close", default: false)
        if try sessionType(arguments) == .concurrent { return try await concurrentStart(request, close: close) }
        store.batchCommits.sessionStarted()
        let id = FolderFiles.randomToken(bytes: 18)
        let path = store.sessionDirectory + "/" + id
        try await openSession(path) { FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) }
        do {
            try await growing(path, from: 0, by: try Self.declaredLength(request), route: .start) { limit in
                _ = try await receiveCounted(request.body, into: path, append: true, limit: limit, fault: fault)
            }
        } catch {
            // A start whose body failed leaves no session behind.
            unlink(path)
            UploadSessionFiles.forgetOwner(of: path)
            throw error
        }
        if close { UploadSessionFiles.markClosed(path) }
        var text = "{\"session_id\":"
        DropboxJSON.appendQuoted(id, to: &text)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text + "}")))
    }

    func sessionAppend(_ request: Request, fault: Fault) async throws -> Response {
        let arguments = try argument(request, what: "upload_session/append_v2")
        guard let cursor = try arguments.object("cursor") else { throw APIError.badRequest("append_v2: missing required field 'cursor'") }
        let close = try arguments.bool("close", default: false)
        if let concurrent = try concurrentSession(cursor) {
            return try await concurrentAppend(request, session: concurrent, close: close, fault: fault)
        }
        let session = try await lookupSession(cursor, nested: false)
        try await appendToSession(session, request: request, route: .append, fault: fault)
        if close { UploadSessionFiles.markClosed(session) }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "null")))
    }

    func sessionFinish(_ request: Request, fault: Fault) async throws -> Response {
        let arguments = try argument(request, what: "upload_session/finish")
        guard let cursor = try arguments.object("cursor") else { throw APIError.badRequest("finish: missing required field 'cursor'") }
        guard let commitArguments = try arguments.object("commit") else { throw APIError.badRequest("finish: missing required field 'commit'") }
        let target = try DropboxPath.checked(try commitArguments.string("path"))
        let commit = try commitArguments.decode(CommitInfo.self)
        // Optional: the Dropbox content hash of the bytes sent in this call (not of the whole
        // file: the spec's UploadSessionFinishArg, and what the official SDKs send), checked
        // before anything is committed.
        let contentHash = try arguments.optionalString("content_hash")
        if let concurrent = try concurrentSession(cursor) {
            return try await concurrentFinish(request, session: concurrent, commit: commit, target: target, contentHash: contentHash)
        }
        let session = try await lookupSession(cursor, nested: true, allowClosed: true)
        let callHash = try await appendToSession(session, request: request, route: .finish, fault: fault)
        if let contentHash, contentHash != callHash { throw APIError.endpoint([.contentHashMismatch]) }
        return jsonBody(try await sequentialCommit(session, commit: commit, target: target))
    }

    /// Finds a session's file and checks the client's offset against what actually arrived.
    func lookupSession(_ cursor: Arguments, nested: Bool, allowClosed: Bool = false) async throws -> String {
        func failure(_ tags: [ErrorTag], numbers: [String: Int64] = [:]) -> APIError {
            nested ? .endpoint([.lookupFailed] + tags, numbers: numbers) : .endpoint(tags, numbers: numbers)
        }
        let id = try cursor.string("session_id")
        // The id becomes a file name: accept only what we hand out.
        guard !id.isEmpty, id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw failure([.notFound])
        }
        guard let offset = try cursor.int("offset", default: nil, range: 0...Int.max) else {
            throw APIError.badRequest("cursor: missing required field 'offset'")
        }
        let path = store.sessionDirectory + "/" + id
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure([.notFound]) }
        if !allowClosed, UploadSessionFiles.isClosed(path, info: info) { throw failure([.closed]) }
        guard Int64(info.st_size) == Int64(offset) else {
            throw failure([.incorrectOffset], numbers: ["correct_offset": Int64(info.st_size)])
        }
        return path
    }

    /// Appends a request's body to a sequential session; returns the content hash of the bytes
    /// this call sent.
    @discardableResult
    private func appendToSession(_ path: String, request: Request, route: SessionRoute, fault: Fault) async throws -> String {
        guard await store.uploads.lease(path) else { throw APIError.rateLimited(retryAfter: 1) }
        defer { Task { await store.uploads.release(path) } }
        var info = stat()
        let size = stat(path, &info) == 0 ? Int64(info.st_size) : 0
        return try await growing(path, from: size, by: try Self.declaredLength(request), route: route) { limit in
            try await receiveCounted(request.body, into: path, append: true, limit: limit, fault: fault).hash
        }
    }
}

/// An open file descriptor that closes itself, so a response body can own it.
final class FileHandleBox: Sendable {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }
}

/// A file opened for reading, with the metadata of exactly what was opened.
struct OpenedFile: Sendable {
    var file: FileMetadata
    var handle: FileHandleBox

    /// Opens the regular file at `host`, with its `stat`: `not_found` if it cannot be opened,
    /// `not_file` if it is no regular file. O_NONBLOCK: opening a FIFO someone left in the folder
    /// must not wait for a writer (it changes nothing for the regular files that are all we read).
    static func open(_ host: String) throws(APIError) -> (FileHandleBox, stat) {
        let fd = Glibc.open(host, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .notFound }
        let handle = FileHandleBox(fd: fd)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw .notFile }
        return (handle, info)
    }
}
