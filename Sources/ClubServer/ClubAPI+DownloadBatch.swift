import DropboxWire
import Foundation
import Hummingbird
import NIOCore

/// `/2/byteclub/files/download_batch` (``BatchDownload``): up to 1,000 files in one answer, each
/// part written as its file is opened and read, so the answer streams from the first file on
/// and holds at most one file and one buffer in memory. A path that cannot be read gets a
/// failure part, as `files/download` would have answered it, and the rest go on.
extension ClubAPI {
    /// Bytes gathered before a write to the connection: many 1 KiB notes per write.
    private static let batchWriteSize = 256 << 10

    private struct BatchArguments: Decodable {
        struct Entry: Decodable { var path: String }
        var entries: [Entry]
    }

    func downloadBatch(_ request: Request) async throws -> Response {
        let what = "files/download_batch"
        let body = try await jsonBody(request)
        guard let arguments = try? JSONDecoder().decode(BatchArguments.self, from: Data(buffer: body)) else {
            throw APIError.badRequest("\(what): expected {\"entries\": [{\"path\": …}, …]}")
        }
        guard arguments.entries.count <= BatchDownload.maxEntries else {
            throw APIError.badRequest("\(what): at most \(BatchDownload.maxEntries) entries at a time, not \(arguments.entries.count)")
        }
        let paths = arguments.entries.map(\.path)
        // The parts are written after this returns: the caller goes with them, so a reader's
        // metadata says read-only as a single download's does (as finish_batch_v2 does it).
        let (member, role) = (Caller.member, CallerRole.role)
        let api = self
        return Response(status: .ok, headers: [.contentType: BatchDownload.contentType], body: ResponseBody { writer in
            try await Caller.$member.withValue(member) {
                try await CallerRole.$role.withValue(role) { try await api.writeParts(paths, to: writer) }
            }
        })
    }

    /// Each path's part, gathered into writes of about `batchWriteSize`.
    private func writeParts(_ paths: [String], to writer: consuming some ResponseBodyWriter) async throws {
        var buffer = ByteBufferAllocator().buffer(capacity: Self.batchWriteSize)
        for path in paths {
            try Task.checkCancellation()
            let opened: OpenedFile
            do {
                let target = try DropboxPath.checked(path)
                guard !target.isRoot else { throw APIError.notFile }
                opened = try await store.openForReading(target)
            } catch let error as APIError {
                let summary = error.wire?.errorSummary ?? "path/not_found/"
                buffer.writeString(BatchDownload.failureLine(path: path, errorSummary: summary))
                continue
            }
            buffer.writeString(JSON.resultHeader(.file(opened.file)))
            buffer.writeInteger(UInt8(ascii: "\n"))
            // Past its line, a file's failure can only end the answer (ShortRead).
            try Self.append(opened, to: &buffer)
            if buffer.readableBytes >= Self.batchWriteSize {
                try await writer.write(buffer)
                buffer.clear()
            }
        }
        if buffer.readableBytes > 0 { try await writer.write(buffer) }
        try await writer.finish(nil)
    }

    /// A file that shrank while it was read: not an APIError, so that it ends the answer rather
    /// than becoming a failure part after bytes of the file were written.
    struct ShortRead: Error {}

    /// Exactly the file's `size` bytes as its metadata gave them. A file that shrank while it
    /// was read ends the answer (the client sees it cut short and asks again): the part's length
    /// was promised in its line.
    private static func append(_ opened: OpenedFile, to buffer: inout ByteBuffer) throws {
        var remaining = Int(opened.file.size)
        var offset: off_t = 0
        while remaining > 0 {
            let want = min(remaining, 1 << 20)
            let got = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { pointer in
                let count = pread(opened.handle.fd, pointer.baseAddress, want, offset)
                guard count > 0 else { throw ShortRead() }
                return count
            }
            offset += off_t(got)
            remaining -= got
        }
    }
}
