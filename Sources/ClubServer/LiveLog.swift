import DropboxWire
import Durable
import Foundation
import LiveText
#if canImport(Glibc)
import Glibc
#endif

/// One room's stored updates, `.byteclub/live/<id>`: records appended in arrival order, each a
/// 4-byte big-endian length and a `LiveFrame` (sender, update).
///
/// Each append is written and flushed (fdatasync) before it is relayed, as the change journal
/// flushes each record before it is answered: an update a member has seen relayed is on disk.
/// The updates that came while a flush ran go in the next append together, one flush for all
/// of them (``LiveRoom``). A
/// record cut short by a crash is dropped (the file truncated to the last whole record) when
/// the room is opened again: its sender never saw it relayed.
///
/// At each revision of the note a plain club's log is compacted (``compact(_:)``): its records
/// become one, a snapshot of the document they make. Each append and each compaction holds the
/// file's lock (`flock`), and an append finds the log again by its path when another server over
/// the folder compacted it meanwhile, so no update goes to a file that was replaced.
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
        let (records, length) = LiveRecords.split([UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()))
        return (records.map(Array.init), length)
    }

    /// The log's size on disk now (another server may have appended since).
    var currentSize: Int {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_size) : size
    }

    /// Locks the log at ``path`` for this process: the file open here, or again the one the path
    /// names now when another server over the folder compacted it (renamed a new file over it).
    private mutating func lock() throws {
        while true {
            if fd < 0 {
                fd = Glibc.open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw DurableFileError(path: path, step: "open", code: errno) }
            }
            guard flock(fd, LOCK_EX) == 0 else { throw DurableFileError(path: path, step: "lock", code: errno) }
            var open = stat(), named = stat()
            if fstat(fd, &open) == 0, lstat(path, &named) == 0, open.st_ino == named.st_ino, open.st_dev == named.st_dev { return }
            let next = Glibc.open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            let code = errno
            _ = Glibc.close(fd)
            guard next >= 0 else {
                fd = -1
                throw DurableFileError(path: path, step: "open", code: code)
            }
            fd = next
        }
    }

    private func unlock() { _ = flock(fd, LOCK_UN) }

    /// Appends one frame and flushes it to disk.
    mutating func append(_ frame: [UInt8]) throws {
        try append([frame])
    }

    /// Appends frames in order, in one write and one flush (a room's burst: ``LiveRoom``). On a
    /// failure none of them is left in the log.
    mutating func append(_ frames: [[UInt8]]) throws {
        try lock()
        defer { unlock() }
        size = currentSize
        let record = frames.flatMap(LiveRecords.framed)
        guard DurableFile.writeAll(fd, record), DurableFile.flush(fd, dataOnly: true) else {
            let code = errno
            // Leave no half record behind for the next reader.
            _ = ftruncate(fd, off_t(size))
            throw DurableFileError(path: path, step: "append to", code: code)
        }
        size += record.count
    }

    /// Replaces the log's records with those `snapshot` makes of them (frames; nil leaves the
    /// log as it is), written whole beside the log, flushed, and renamed over it. Returns the
    /// log's size before and after, or nil when it was left (a single record, no snapshot, or
    /// one no smaller).
    mutating func compact(_ snapshot: ([[UInt8]]) -> [[UInt8]]?) throws -> (before: Int, after: Int)? {
        try lock()
        defer { unlock() }
        let (frames, length) = Self.read(path: path)
        guard frames.count > 1, let compacted = snapshot(frames) else { return nil }
        let record = compacted.flatMap(LiveRecords.framed)
        guard record.count < length else { return nil }
        let next = path + ".compacted"
        let out = Glibc.open(next, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard out >= 0 else { throw DurableFileError(path: next, step: "open", code: errno) }
        guard DurableFile.writeAll(out, record), DurableFile.flush(out) else {
            let code = errno
            _ = Glibc.close(out)
            _ = unlink(next)
            throw DurableFileError(path: next, step: "write", code: code)
        }
        _ = Glibc.close(out)
        guard rename(next, path) == 0 else {
            let code = errno
            _ = unlink(next)
            throw DurableFileError(path: path, step: "rename over", code: code)
        }
        DurableFile.syncFolder(of: path)
        // The lock goes with the old file's descriptor; appends go to the new one from now on.
        let reopened = Glibc.open(path, O_RDWR | O_APPEND | O_CLOEXEC, 0o600)
        let code = errno
        _ = Glibc.close(fd)
        fd = reopened
        guard reopened >= 0 else { throw DurableFileError(path: path, step: "open", code: code) }
        size = record.count
        return (length, record.count)
    }

    func close() { _ = Glibc.close(fd) }
}
