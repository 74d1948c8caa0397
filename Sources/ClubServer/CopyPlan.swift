import DropboxWire
import Durable
import Foundation

/// What a `copy_v2` copies, decided on the folder's actor (FolderStore+Copy), and the copy of
/// its bytes, made off the actor (and off the cooperative pool, ``FileCopier/offPool(_:)``): a
/// big copy must not keep every other commit waiting. The source file is open, so the bytes
/// copied are those its metadata describes, or the copy is refused.
struct CopyPlan: Sendable {
    /// The source file, opened, with the metadata of what was opened; nil for a folder.
    var file: OpenedFile?
    var sourceHost: String
    var target: DropboxPath
    var autorename: Bool
    /// Where the bytes go first: inside `.byteclub/tmp`, removed on any failure.
    var temp: String
    /// The depth of the target below the root (a folder copy stops at the walk limit).
    var depth: Int

    /// A folder copy holds at most this many entries (Dropbox answers `too_many_files` too).
    static let maxEntries = 10_000

    /// Fills `temp` with the source's bytes, off the actor. A file over `streamLimit` (the
    /// largest an upload session makes) that cannot be reflinked is refused.
    func copyBytes(streamLimit: Int64, cancel: CopyCancellation) -> Result<Void, APIError> {
        guard let opened = file else {
            var budget = Self.maxEntries
            do {
                guard try Self.copyTree(sourceHost, to: temp, depth: depth, budget: &budget, streamLimit: streamLimit,
                                   cancel: cancel) else {
                    try? FileManager.default.removeItem(atPath: temp)
                    return .failure(cancel.isCancelled ? .cancelled : .endpoint([.to, .insufficientSpace]))
                }
            } catch {
                try? FileManager.default.removeItem(atPath: temp)
                return .failure(error)
            }
            return .success(())
        }
        let output = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { return .failure(.endpoint([.to, .insufficientSpace])) }
        let outcome = FileCopier.copy(from: opened.handle.fd, to: output, size: opened.file.size, streamLimit: streamLimit, cancel: cancel)
        let synced = DurableFile.flush(output)
        close(output)
        // The bytes must be those the metadata (and its content hash) describe: a file edited
        // in place during the copy is refused, and the client may try again.
        var after = stat()
        let unchanged = fstat(opened.handle.fd, &after) == 0 && Int64(after.st_size) == opened.file.size
            && FileKey(after).rev == opened.file.rev
        switch outcome {
        case .cloned, .streamed:
            if synced && unchanged { return .success(()) }
            unlink(temp)
            return .failure(synced ? .endpoint([.to, .tooManyWriteOperations]) : .endpoint([.to, .insufficientSpace]))
        case .tooLarge:
            unlink(temp)
            return .failure(Self.tooLarge(opened.file.size, limit: streamLimit))
        case .failed:
            unlink(temp)
            return .failure(cancel.isCancelled ? .cancelled : .endpoint([.to, .insufficientSpace]))
        }
    }

    /// RelocationError's `insufficient_quota`, with a sentence saying what limit it is.
    static func tooLarge(_ size: Int64, limit: Int64) -> APIError {
        APIError.endpoint([.insufficientQuota])
            .saying("this disk cannot share a file's bytes between copies (no reflinks), and a copy written out in full is at most \(limit >> 20) MiB, the largest file an upload makes; this file has \(size >> 20) MiB")
    }

    /// Copies a folder's regular files and folders (never a symlink: it is left out) into
    /// `destination`, keeping modes and modification times; false when the disk refuses or the
    /// copy is cancelled. Throws `too_many_files` past the budget, and the upload limit for a
    /// file that must be streamed; it stops at the walk depth limit.
    private static func copyTree(_ source: String, to destination: String, depth: Int, budget: inout Int, streamLimit: Int64,
                                 cancel: CopyCancellation) throws(APIError) -> Bool {
        guard mkdir(destination, 0o777) == 0 else { return false }
        guard depth < TreeWalker.maxDepth else { return true }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: source) else { return true }
        for name in names where DropboxPath.isSafeComponent(name) {
            if cancel.isCancelled { return false }
            var info = stat()
            guard lstat(source + "/" + name, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { continue }
            budget -= 1
            guard budget >= 0 else { throw .endpoint([.tooManyFiles]) }
            if kind == S_IFDIR {
                guard try Self.copyTree(source + "/" + name, to: destination + "/" + name, depth: depth + 1, budget: &budget,
                                   streamLimit: streamLimit, cancel: cancel) else { return false }
                continue
            }
            let input = open(source + "/" + name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
            guard input >= 0 else { continue }
            defer { close(input) }
            let output = open(destination + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(info.st_mode & 0o777))
            guard output >= 0 else { return false }
            let outcome = FileCopier.copy(from: input, to: output, size: Int64(info.st_size), streamLimit: streamLimit, cancel: cancel)
            var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), info.st_mtim] // UTIME_OMIT for the access time
            futimens(output, &times)
            close(output)
            if outcome == .tooLarge { throw tooLarge(Int64(info.st_size), limit: streamLimit) }
            guard outcome != .failed else { return false }
        }
        return true
    }
}
