import CDurableShim
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Why a durable write or removal failed: the path, the step and the system's reason.
public struct DurableFileError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let step: String
    public let code: Int32

    public init(path: String, step: String, code: Int32) {
        self.path = path
        self.step = step
        self.code = code
    }

    public var description: String { "Cannot \(step) \(path): \(String(cString: strerror(code)))" }
}

/// The one way byteclub replaces a file so that a crash or power loss leaves the old content or
/// the new, never half of either, and never loses a write it has reported.
///
/// A temporary file is created with its final permissions (so a secret is never readable by
/// others, even briefly), written in full, fsynced, renamed over the target, and the target's
/// folder is fsynced so the rename itself is on disk before the caller says "kept". Drafts, the
/// outbox, the server's state files and journal, the agent's journal and the OAuth tokens all
/// write through ``write(_:to:permissions:temporaryDirectory:)``.
public enum DurableFile {
    /// Writes `data` to `path` atomically and durably.
    ///
    /// - Parameters:
    ///   - permissions: the file's mode from its first byte.
    ///   - temporaryDirectory: where the temporary file lives until the rename; it must be on the
    ///     same file system as `path`. `nil` means `path`'s own folder (created 0700 if missing,
    ///     with every folder above it that is missing: ``PrivateFiles/folder(_:)-(String)``),
    ///     with a hidden name. The club server passes its state folder so a half-written file is
    ///     never listed as club content.
    ///   - flush: `false` for a cache, which a crash may roll back (losing it costs work, not
    ///     data): still whole or old, never half, but no fsync on a hot path.
    public static func write(_ data: some DataProtocol, to path: String, permissions: mode_t = 0o600,
                             temporaryDirectory: String? = nil, flush: Bool = true) throws(DurableFileError) {
        let bytes = Array(data)
        try write(to: path, permissions: permissions, temporaryDirectory: temporaryDirectory, flush: flush) { fd in
            writeAll(fd, bytes)
        }
    }

    /// Replaces `path` with what `fill` writes to the temporary file's descriptor (a copy made in
    /// the kernel, say), as ``write(_:to:permissions:temporaryDirectory:flush:)`` does with bytes:
    /// `fill` answers false on a failure, with `errno` saying why.
    public static func write(to path: String, permissions: mode_t = 0o600, temporaryDirectory: String? = nil,
                             flush: Bool = true, fill: (Int32) -> Bool) throws(DurableFileError) {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        if temporaryDirectory == nil, !FileManager.default.fileExists(atPath: folder) {
            // Private, every folder made on the way (``PrivateFiles``).
            try PrivateFiles.folder(folder)
        }
        let temporary = (temporaryDirectory ?? folder) + "/.\(name).\(UUID().uuidString).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw DurableFileError(path: path, step: "write", code: errno) }
        var failure: DurableFileError?
        errno = 0
        if !fill(fd) { failure = DurableFileError(path: path, step: "write", code: errno == 0 ? EIO : errno) }
        if failure == nil, flush, !Self.flush(fd) { failure = DurableFileError(path: path, step: "flush", code: errno) }
        if close(fd) != 0, failure == nil { failure = DurableFileError(path: path, step: "close", code: errno) }
        if failure == nil, rename(temporary, path) != 0 { failure = DurableFileError(path: path, step: "replace", code: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        if flush { syncFolder(of: path) }
    }

    /// Puts a temporary file that was written and flushed in place (``flush(_:dataOnly:)``) at
    /// `path`, then flushes the folder: the second half of a write whose bytes streamed in over
    /// time (an upload, a copy), which the caller checks before it commits them.
    public static func place(_ temporary: String, at path: String) throws(DurableFileError) {
        guard rename(temporary, path) == 0 else { throw DurableFileError(path: path, step: "replace", code: errno) }
        syncFolder(of: path)
    }

    /// Writes all of `bytes` to `fd`, through interruptions; false on a failure (`errno` says why).
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let wrote = bytes.withUnsafeBytes { buffer in
                systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if wrote < 0 {
                if errno == EINTR { continue }
                return false
            }
            // Nothing written for a non-empty request: stop rather than ask forever.
            if wrote == 0 {
                errno = EIO
                return false
            }
            offset += wrote
        }
        return true
    }

    /// Flushes a file written in place to disk (a journal's append, an upload's block, a download's
    /// bytes before its hand-over): false on a failure, with `errno` saying why. `dataOnly` skips
    /// the metadata a reader does not need (fdatasync), for an append whose size is its own record.
    public static func flush(_ fd: Int32, dataOnly: Bool = false) -> Bool {
        (dataOnly ? fdatasync(fd) : fsync(fd)) == 0
    }

    /// Writes `data` to the file at `url`; see ``write(_:to:permissions:temporaryDirectory:flush:)``.
    public static func write(_ data: some DataProtocol, to url: URL, permissions: mode_t = 0o600,
                             temporaryDirectory: String? = nil, flush: Bool = true) throws(DurableFileError) {
        try write(data, to: url.path, permissions: permissions, temporaryDirectory: temporaryDirectory, flush: flush)
    }

    /// Removes the file at `path` and flushes its folder, so a removal that was reported stays
    /// done after a crash. A missing file is not an error.
    public static func remove(_ path: String) throws(DurableFileError) {
        if unlink(path) != 0, errno != ENOENT { throw DurableFileError(path: path, step: "remove", code: errno) }
        syncFolder(of: path)
    }

    /// Removes the file at `url`; see ``remove(_:)-(String)``.
    public static func remove(_ url: URL) throws(DurableFileError) { try remove(url.path) }

    /// Flushes many files written at once (a batch's hundreds of new files), then `folders`
    /// (the entries renamed into them), in the way that costs least now: the whole file system
    /// that holds `path` in one flush of the disk's cache (syncfs) while little else waits to be
    /// written (``syncFileSystemAtMost``), else only these, side by side
    /// (``flushSideBySide(files:folders:)``). `syncfs` writes whatever every other program has
    /// waiting on the file system too: on a busy machine (a build's objects beside a test suite,
    /// gigabytes the kernel lets wait) a batch of four notes waited past a client's 10 s. On a
    /// quiet one it is the quickest: an import of 6,800 files took 7.4–11.2 s with it and
    /// 9.1–16.3 s side by side (2026-11-29). False when a file could not be flushed.
    public static func flushTogether(files: [String], folders: [String] = [], holding path: String) -> Bool {
        if files.count + folders.count > oneByOneAtMost, let waiting = waitingToBeWritten(), waiting <= syncFileSystemAtMost,
           flushFileSystem(holding: path) { return true }
        return flushSideBySide(files: files, folders: folders)
    }

    /// A few files and folders are flushed each on its own, whatever waits: cheaper than the
    /// whole file system.
    public static let oneByOneAtMost = 4

    /// What may wait to be written, machine-wide, for a batch to flush its file system whole: a
    /// quarter of a second of this disk's writes on a quiet machine (1 GB/s), and above what an
    /// import keeps waiting of its own (at 64 MiB, 8,000 of an import's 16,000 flushes went
    /// side by side, and it took 1.4× the time).
    public static let syncFileSystemAtMost = 256 << 20

    /// The bytes the kernel holds to be written (`Dirty` and `Writeback` of /proc/meminfo), or
    /// nil where that cannot be read.
    static func waitingToBeWritten() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        var total = 0
        var found = 0
        for line in text.split(separator: "\n") where line.hasPrefix("Dirty:") || line.hasPrefix("Writeback:") {
            guard let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
            total += kilobytes << 10
            found += 1
        }
        return found == 2 ? total : nil
    }

    /// Flushes every file and folder of the file system that holds `path` with one flush of the
    /// disk's cache (syncfs). It writes what else waits on that file system too: see
    /// ``flushTogether(files:folders:holding:)``. False on a failure, with `errno` saying why.
    public static func flushFileSystem(holding path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return bc_durable_syncfs(fd) == 0
    }

    /// Flushes the data of the file at `path` (`fdatasync`); false when it cannot be opened or flushed.
    public static func flushData(atPath path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flush(fd, dataOnly: true)
    }

    /// Flushes `files`, then `folders`, each with its own fsync but ``flushers`` side by side:
    /// the flushes of the disk's cache asked for while one runs are done as one, so 256 small
    /// files took 15 ms where one by one took 45 ms here (ext4, 2026-11-29). Only these are
    /// written, whatever else waits. A folder that refuses `fsync` is the best effort
    /// ``syncFolder(of:)`` makes. False when a file could not be opened or flushed.
    public static func flushSideBySide(files: [String], folders: [String] = []) -> Bool {
        let filesFlushed = sideBySide(files, flushData(atPath:))
        _ = sideBySide(folders) { folder in
            let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { return true }
            _ = fsync(fd)
            close(fd)
            return true
        }
        return filesFlushed
    }

    /// Flushes at most this many at once (256 files: 8 side by side took 15 ms, 32 took 20).
    static let flushers = 8

    /// Runs `step` for each path on up to ``flushers`` threads of their own (a flush blocks its
    /// thread, so not Dispatch's pool, which runs a core's worth); false when any step was.
    private static func sideBySide(_ paths: [String], _ step: @escaping @Sendable (String) -> Bool) -> Bool {
        guard paths.count > 1 else { return paths.allSatisfy(step) }
        final class Turns: Sendable {
            let next = Atomic<Int>(0)
            let failed = Atomic<Bool>(false)
        }
        let turns = Turns()
        let group = DispatchGroup()
        for _ in 0..<min(paths.count, flushers) {
            group.enter()
            Thread.detachNewThread {
                while true {
                    let index = turns.next.add(1, ordering: .relaxed).oldValue
                    guard index < paths.count else { break }
                    if !step(paths[index]) { turns.failed.store(true, ordering: .relaxed) }
                }
                group.leave()
            }
        }
        group.wait()
        return !turns.failed.load(ordering: .relaxed)
    }

    /// Flushes the entries of `path`'s folder (a rename or unlink in it) to disk; best effort,
    /// since some file systems refuse fsync on a folder and the data itself is already flushed.
    public static func syncFolder(of path: String) {
        let fd = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
