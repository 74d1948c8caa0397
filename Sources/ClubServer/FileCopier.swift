import Durable
import Foundation
import Synchronization

/// Copies bytes between files outside the folder's actor, for `copy_v2`: a reflink (`FICLONE`)
/// where the file system shares extents (btrfs, XFS, bcachefs: instant, and no space used until
/// either copy changes), else a stream in the kernel (`sendfile`), which needs a size limit as
/// an upload does.
enum FileCopier {
    /// `FICLONE` from linux/fs.h: `_IOW(0x94, 9, int)`.
    private static let ficlone: UInt = 0x4004_9409

    enum Outcome: Equatable {
        case cloned
        case streamed
        /// A stream would exceed `streamLimit`; nothing was written.
        case tooLarge
        /// The disk refused (no space, an I/O error) or the copy was cancelled.
        case failed
    }

    /// Fills the empty file `output` with `input`'s `size` bytes: a reflink if the file system
    /// can, else a stream of at most `streamLimit` bytes. Reads by offset, so `input`'s file
    /// position does not matter (the same descriptor may serve a download meanwhile).
    static func copy(from input: Int32, to output: Int32, size: Int64, streamLimit: Int64, cancel: CopyCancellation) -> Outcome {
        if ioctl(output, ficlone, input) == 0 { return .cloned }
        guard size <= streamLimit else { return .tooLarge }
        var offset: off_t = 0
        while offset < size {
            // Chunks of 8 MiB: a cancelled request stops within one.
            if cancel.isCancelled { return .failed }
            let copied = sendfile(output, input, &offset, Int(min(size - Int64(offset), 8 << 20)))
            if copied < 0 && errno == EINTR { continue }
            guard copied > 0 else { return .failed }
        }
        return .streamed
    }

    /// Copies a whole file's bytes into `destination` (``DurableFile``: a temp file, then a
    /// rename), in the kernel (`sendfile`), so no buffer passes through the server. Without
    /// `flush` the caller flushes the copy (``PendingSync``).
    @discardableResult
    static func copyFile(from source: String, to destination: String, temporaryDirectory: String, flush: Bool = true) -> Bool {
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard input >= 0 else { return false }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        do {
            try DurableFile.write(to: destination, temporaryDirectory: temporaryDirectory, flush: flush) { output in
                var remaining = Int64(info.st_size)
                while remaining > 0 {
                    let copied = sendfile(output, input, nil, Int(min(remaining, 1 << 30)))
                    if copied < 0 && errno == EINTR { continue }
                    guard copied > 0 else { return false }
                    remaining -= Int64(copied)
                }
                return true
            }
            return true
        } catch {
            return false
        }
    }

    /// Runs `work` on a Dispatch worker thread: a copy is long blocking I/O, kept off the
    /// cooperative pool the request handlers share (two threads on a two-core machine). The
    /// task's cancellation (its client gone, the server stopping) reaches `work` through the
    /// flag it is given.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable (CopyCancellation) -> T) async -> T {
        let cancel = CopyCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                DispatchQueue.global(qos: .utility).async { continuation.resume(returning: work(cancel)) }
            }
        } onCancel: {
            cancel.set()
        }
    }
}

/// A cancellation flag a Dispatch thread can read (it has no task to ask).
final class CopyCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    var isCancelled: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
