import Foundation

/// A request body as curl pulls it through its read callback: bytes in memory, or a file or
/// a byte range of one (an upload-session chunk), streamed without loading it.
///
/// Every body goes this way, so curl never copies a large one up front. Owned by one
/// `EasyTransfer` and used only on its session queue.
struct UploadBody {
    private enum Storage {
        case none
        case memory(Data, position: Int)
        /// Bytes `start ..< start + length` of a file; `position` is relative to `start`.
        case file(fd: Int32, path: String, start: Int64, length: Int64, position: Int64)
        /// A range of an ``UploadSource``; `position` is relative to the range's start.
        case source(any UploadSourceReader, length: Int64, position: Int64)
    }

    private var storage: Storage
    /// The body's size; nil for a request without one.
    let length: Int64?

    /// No body.
    init() {
        storage = .none
        length = nil
    }

    init(data: Data) {
        storage = .memory(data, position: 0)
        length = Int64(data.count)
    }

    /// Opens `length` bytes of the file at `url` from `offset` (to its end when `length` is nil).
    /// Throws what the task should end with: a missing file, a directory, a range outside it.
    init(file url: URL, offset: Int64, length: Int64?) throws(TransferError) {
        let path = url.path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw code == ENOENT ? .fileNotFound(path: path) : .cannotReadFile(path: path, reason: String(cString: strerror(code)))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw .cannotReadFile(path: path, reason: "not a regular file")
        }
        let size = Int64(info.st_size)
        guard offset >= 0, offset <= size, (length ?? 0) >= 0, offset + (length ?? 0) <= size else {
            Glibc.close(fd)
            throw .cannotReadFile(path: path, reason: "the range \(offset)+\(length ?? 0) is outside the file (\(size) bytes)")
        }
        let count = length ?? (size - offset)
        guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else {
            Glibc.close(fd)
            throw .cannotReadFile(path: path, reason: String(cString: strerror(errno)))
        }
        storage = .file(fd: fd, path: path, start: offset, length: count, position: 0)
        self.length = count
    }

    /// `length` bytes of `source` from `offset`.
    init(source: any UploadSource, offset: Int64, length: Int64?) throws(TransferError) {
        let count = length ?? (source.length - offset)
        guard offset >= 0, count >= 0, offset + count <= source.length else {
            throw .cannotReadFile(path: "\(type(of: source))", reason: "the range \(offset)+\(count) is outside the body (\(source.length) bytes)")
        }
        do {
            storage = .source(try source.reader(offset: offset, length: count), length: count, position: 0)
        } catch {
            throw .cannotReadFile(path: "\(type(of: source))", reason: "\(error)")
        }
        self.length = count
    }

    /// Fills `buffer` with the next bytes; 0 at the end. Throws when the file cannot be read
    /// or shrank under us (a short body must not go out as if it were whole).
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        switch storage {
        case .none:
            return 0
        case .memory(let data, let position):
            let count = min(buffer.count, data.count - position)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + position, byteCount: count)
            }
            storage = .memory(data, position: position + count)
            return count
        case .file(let fd, let path, let start, let length, let position):
            let want = Int(min(Int64(buffer.count), length - position))
            guard want > 0 else { return 0 }
            while true {
                let count = Glibc.read(fd, buffer.baseAddress, want)
                if count > 0 {
                    storage = .file(fd: fd, path: path, start: start, length: length, position: position + Int64(count))
                    return count
                }
                if count == 0 {
                    throw .cannotReadFile(path: path, reason: "the file changed size during the upload")
                }
                if errno == EINTR { continue }
                throw .cannotReadFile(path: path, reason: String(cString: strerror(errno)))
            }
        case .source(let reader, let length, let position):
            let want = Int(min(Int64(buffer.count), length - position))
            guard want > 0 else { return 0 }
            let count: Int
            do {
                count = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
            } catch {
                throw .cannotReadFile(path: "\(type(of: reader))", reason: "\(error)")
            }
            // A short body must not go out as if it were whole.
            guard count > 0 else { throw .cannotReadFile(path: "\(type(of: reader))", reason: "the body ended early") }
            storage = .source(reader, length: length, position: position + Int64(count))
            return count
        }
    }

    /// Moves to `offset` within the body. curl rewinds when it must send the body again (a
    /// redirect, or a reused connection that the server had closed).
    mutating func seek(to offset: Int64) -> Bool {
        switch storage {
        case .none:
            return offset == 0
        case .memory(let data, _):
            guard offset >= 0, offset <= Int64(data.count) else { return false }
            storage = .memory(data, position: Int(offset))
            return true
        case .file(let fd, let path, let start, let length, _):
            guard offset >= 0, offset <= length, lseek(fd, off_t(start + offset), SEEK_SET) >= 0 else { return false }
            storage = .file(fd: fd, path: path, start: start, length: length, position: offset)
            return true
        case .source(let reader, let length, _):
            guard offset >= 0, offset <= length, reader.seek(to: offset) else { return false }
            storage = .source(reader, length: length, position: offset)
            return true
        }
    }

    /// Closes the file, if there is one, and lets go of the bytes.
    mutating func close() {
        if case .file(let fd, _, _, _, _) = storage { Glibc.close(fd) }
        storage = .none
    }
}
