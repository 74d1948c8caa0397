import DropboxWire
import Durable
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One room's stored updates, `.byteclub/live/<id>`: records appended in arrival order, each a
/// 4-byte big-endian length and a `LiveFrame` (sender, update).
///
/// Each append is written and flushed (fdatasync) before it is relayed, as the change journal
/// flushes each record before it is answered: an update a member has seen relayed is on disk. A
/// record cut short by a crash is dropped (the file truncated to the last whole record) when
/// the room is opened again: its sender never saw it relayed.
struct LiveLog {
    let path: String
    private(set) var size: Int
    private var fd: Int32

    /// Opens (or makes) the log, dropping a torn last record. Returns the log and its frames.
    static func open(directory: String, room: String) throws -> (LiveLog, [[UInt8]]) {
        try PrivateFiles.folder(directory)
        let path = directory + "/" + room
        let existed = FileManager.default.fileExists(atPath: path)
        // O_APPEND: each record is one write at the end, even with a second server over the
        // folder appending to the same note (the agent's beside the app's).
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DurableFileError(path: path, step: "open", code: errno) }
        if !existed { DurableFile.syncFolder(of: path) }
        let (frames, offset) = read(path: path)
        if let end = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, offset < end {
            guard ftruncate(fd, off_t(offset)) == 0, DurableFile.flush(fd) else {
                let code = errno
                _ = Glibc.close(fd)
                throw DurableFileError(path: path, step: "truncate", code: code)
            }
        }
        return (LiveLog(path: path, size: offset, fd: fd), frames)
    }

    /// The whole records of the log at `path` and the length they take (a torn last record left out).
    static func read(path: String) -> (frames: [[UInt8]], length: Int) {
        let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data())
        var frames: [[UInt8]] = []
        var offset = 0
        while offset + 4 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard offset + 4 + length <= bytes.count else { break }
            frames.append(Array(bytes[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
        return (frames, offset)
    }

    /// The log's size on disk now (another server may have appended since).
    var currentSize: Int {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_size) : size
    }

    /// Appends one frame and flushes it to disk.
    mutating func append(_ frame: [UInt8]) throws {
        size = currentSize
        let length = frame.count
        let record = [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + frame
        guard DurableFile.writeAll(fd, record), DurableFile.flush(fd, dataOnly: true) else {
            let code = errno
            // Leave no half record behind for the next reader.
            _ = ftruncate(fd, off_t(size))
            throw DurableFileError(path: path, step: "append to", code: code)
        }
        size += record.count
    }

    func close() { _ = Glibc.close(fd) }
}
