import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a small file so that a crash or power loss leaves either the old content or the new,
/// never half of either: a temporary file in the same folder, flushed, renamed over the target,
/// and the folder flushed too (so the rename itself is on disk before the caller says "kept").
///
/// Drafts, the outbox and the offline cache all write through this one function.
enum DurableFile {
    /// Writes `data` to `url` atomically and durably; the folder is created (mode 0700) if missing.
    static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
            if rename(temporary.path, url.path) != 0 {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        syncDirectory(directory)
    }

    /// Removes `url` and flushes its folder, so a removal that was reported stays done after a
    /// crash. A missing file is not an error.
    static func remove(_ url: URL) throws {
        if unlink(url.path) != 0, errno != ENOENT {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        syncDirectory(url.deletingLastPathComponent())
    }

    /// Flushes a folder's entries (a rename or unlink in it) to disk; best effort.
    static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
