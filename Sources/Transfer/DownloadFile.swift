import Foundation

/// Where a download's body goes: a new temp file, or the partial file of resume data, which
/// continues with a `Range` request (and `If-Range`, so a changed file starts over).
///
/// curl hands over at most 16 KiB per write; they are gathered so the disk sees 1 MiB writes.
/// Owned by one `EasyTransfer` and used only on its session queue.
struct DownloadFile {
    static let bufferSize = 1 << 20

    let fd: Int32
    let path: String
    /// The download this one continues, if it does.
    let resumedFrom: ResumeData?
    /// Whether the request asks for the bytes after `resumeOffset` only.
    let requestedRange: Bool
    /// Bytes in the file before this response's body; 0 once the server sent the whole file again.
    private(set) var resumeOffset: Int64
    /// Bytes of this response's body taken so far, gathered ones included.
    private(set) var bytesWritten: Int64 = 0
    private var buffer: [UInt8] = []

    /// Opens the file. Throws what the task should end with: a partial file that is gone or
    /// shorter than the resume data says, an unwritable temp directory.
    init(resume: ResumeData?, directory: URL) throws(TransferError) {
        resumedFrom = resume
        if let resume {
            path = resume.temporaryPath
            fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw .invalidResumeData(reason: "the partial file \(path) is gone")
            }
            var info = stat()
            guard fstat(fd, &info) == 0, Int64(info.st_size) >= resume.offset else {
                Glibc.close(fd)
                throw .invalidResumeData(reason: "the partial file \(path) is shorter than the resume data says")
            }
            // Drop anything past the offset we know was complete, then append from there.
            guard ftruncate(fd, off_t(resume.offset)) == 0, lseek(fd, off_t(resume.offset), SEEK_SET) >= 0 else {
                let reason = String(cString: strerror(errno))
                Glibc.close(fd)
                throw .cannotWriteFile(path: path, reason: reason)
            }
            resumeOffset = resume.offset
            requestedRange = resume.offset > 0
        } else {
            path = directory.appendingPathComponent("byteclub-\(UUID().uuidString).download").path
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw .cannotWriteFile(path: path, reason: String(cString: strerror(errno)))
            }
            resumeOffset = 0
            requestedRange = false
        }
    }

    /// The headers that ask for the rest of the file; empty for a fresh download.
    var rangeHeaders: [String: String] {
        guard requestedRange, let resumedFrom else { return [:] }
        var headers = ["Range": "bytes=\(resumedFrom.offset)-"]
        if let validator = resumedFrom.ifRange { headers["If-Range"] = validator }
        return headers
    }

    /// Bytes of the whole file taken so far.
    var total: Int64 { resumeOffset + bytesWritten }

    /// The head of a successful final response arrived. A 200 to a Range request means the
    /// server sent the whole file again (it changed, or the server ignores ranges): start over.
    /// A 206 must start where we asked; returns the error the task must end with if not.
    mutating func responseBegan(_ response: HTTPResponse) -> TransferError? {
        guard requestedRange else { return nil }
        if response.statusCode == 200 {
            buffer.removeAll(keepingCapacity: true)
            _ = ftruncate(fd, 0)
            _ = lseek(fd, 0, SEEK_SET)
            resumeOffset = 0
        }
        if response.statusCode == 206, response.value(forHeader: "Content-Range").flatMap(ContentRange.start) != resumeOffset {
            return .invalidResumeData(reason: "the server resumed at a different offset")
        }
        return nil
    }

    /// Takes one chunk of the body, writing out what was gathered when the buffer is full.
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        if buffer.count + bytes.count > Self.bufferSize { try flush() }
        if bytes.count >= Self.bufferSize {
            if let error = Self.writeAll(bytes, fd: fd, path: path) { throw error }
        } else {
            buffer.append(contentsOf: bytes)
        }
        bytesWritten += Int64(bytes.count)
    }

    /// Writes what `append` gathered. The gathered bytes are dropped even when the disk refuses.
    mutating func flush() throws(TransferError) {
        guard !buffer.isEmpty else { return }
        let error = buffer.withUnsafeBytes { Self.writeAll($0, fd: fd, path: path) }
        buffer.removeAll(keepingCapacity: true)
        if let error { throw error }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, fd: Int32, path: String) -> TransferError? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return .cannotWriteFile(path: path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
        return nil
    }

    /// Resume data for the bytes in the file, if the server gave a validator to resume
    /// against. Call after `flush()`: resume data promises every byte up to its offset is on disk.
    func resumeData(after response: HTTPResponse, original request: Request) -> ResumeData? {
        let offset = total
        let etag = response.value(forHeader: "ETag") ?? resumedFrom?.etag
        let lastModified = response.value(forHeader: "Last-Modified") ?? resumedFrom?.lastModified
        guard offset > 0, etag != nil || lastModified != nil else { return nil }
        let expected: Int64? = {
            if response.statusCode == 206, let value = response.value(forHeader: "Content-Range").flatMap(ContentRange.total) {
                return value
            }
            let length = response.expectedContentLength
            return length >= 0 ? resumeOffset + length : nil
        }()
        var headers = resumedFrom?.headers ?? request.headers
        for name in headers.keys where ["authorization", "range", "if-range"].contains(name.lowercased()) {
            headers[name] = nil
        }
        return ResumeData(
            version: ResumeData.currentVersion, url: resumedFrom?.url ?? request.url,
            method: resumedFrom?.method ?? request.method, headers: headers,
            offset: offset, expectedLength: expected, etag: etag, lastModified: lastModified,
            temporaryPath: path)
    }

    func close() {
        Glibc.close(fd)
    }
}
