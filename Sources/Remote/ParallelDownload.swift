import Foundation
import Synchronization
import Transfer
import Durable

/// Which byte range of a parallel download goes next, and how much of the file is in: a value
/// the streams share behind a lock.
///
/// Ranges are handed out in order, so the part of the file complete from its start (what a
/// later single-stream resume can continue from) grows steadily while the streams run.
struct ParallelDownloadPlan: Sendable, Equatable {
    let size: Int64
    let blocks: [ClosedRange<Int64>]
    private(set) var nextBlock = 0
    private var complete: [Bool]
    /// Bytes written from each block's start: a stream writes its range in order, so these are
    /// on disk without a gap (a retry writes the same bytes again from the start).
    private var written: [Int64]

    /// Each stream writes its answer to the file as the bytes arrive, so memory does not grow
    /// with the block size; blocks are sized for the link instead. Up to 16 MiB: a block costs
    /// its stream one idle round trip between answers, and at 16 MiB that is about 4 % of a
    /// 200 ms, 100 Mbit/s link shared by 4 streams (with 2 MiB blocks the 200 ms link got 74 %).
    /// At least 1 MiB, and small enough that each stream gets about four blocks, so the streams
    /// finish together.
    static func blockSize(size: Int64, streams: Int) -> Int64 {
        min(16 << 20, max(1 << 20, size / Int64(max(1, streams) * 4)))
    }

    init(size: Int64, streams: Int) {
        self.size = size
        let block = Self.blockSize(size: size, streams: streams)
        var blocks: [ClosedRange<Int64>] = []
        var start: Int64 = 0
        while start < size {
            blocks.append(start...(min(start + block, size) - 1))
            start += block
        }
        self.blocks = blocks
        complete = Array(repeating: false, count: blocks.count)
        written = Array(repeating: 0, count: blocks.count)
    }

    mutating func take() -> Int? {
        guard nextBlock < blocks.count else { return nil }
        defer { nextBlock += 1 }
        return nextBlock
    }

    /// Notes that `block` holds `count` bytes from its start; returns the bytes in over all blocks.
    mutating func wrote(_ block: Int, upTo count: Int64) -> Int64 {
        written[block] = min(Int64(blocks[block].count), max(written[block], count))
        return done
    }

    /// Marks a block written; returns the bytes written over all blocks.
    mutating func finished(_ block: Int) -> Int64 {
        complete[block] = true
        written[block] = Int64(blocks[block].count)
        return done
    }

    /// Whether every byte of `block` has been written.
    func hasWritten(_ block: Int) -> Bool {
        written[block] == Int64(blocks[block].count)
    }

    var done: Int64 {
        written.reduce(0, +)
    }

    /// Bytes complete from the start of the file: every block before the first missing one,
    /// and what that one holds from its start.
    var completePrefix: Int64 {
        guard let missing = complete.firstIndex(of: false) else { return size }
        return blocks[missing].lowerBound + written[missing]
    }
}

/// A download over several connections, each asking for a range of the file with `Range` and
/// writing its answer with pwrite at that offset into one partial file.
///
/// The store supplies `fetch`, one range's request with its retries, which hands the answer's
/// bytes to its `write` as they arrive (offsets within the range, in order) and returns once
/// the whole range is in, or throws. Nothing holds a whole block in memory. When the download fails or is cancelled, the partial file
/// is kept for a single-stream resume from its complete prefix (`resume` turns that prefix
/// into the store's resume data), or removed when nothing useful arrived.
enum ParallelDownload {
    /// Writes bytes of a range's answer at `offset` from the range's start.
    typealias RangeWriter = @Sendable (_ bytes: Data, _ offset: Int64) throws -> Void

    /// Thrown by `fetch` when the server sent the whole file (200) or another range: it does
    /// not serve ranges after all, and the caller falls back to one stream.
    struct RangesRefused: Error {}

    static func run(size: Int64, streams: Int, directory: URL, progress: ProgressHandler?,
                    fetch: @escaping @Sendable (ClosedRange<Int64>, _ write: @escaping RangeWriter) async throws -> Void,
                    resume: (_ partialFile: String, _ completePrefix: Int64) -> Void,
                    checkpoint: (@Sendable (_ partialFile: String, _ completePrefix: Int64) -> Void)? = nil) async throws -> URL {
        let path = directory.appendingPathComponent("byteclub-\(UUID().uuidString).download").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RemoteError.local("Cannot write \(path): \(String(cString: strerror(errno)))") }
        let file = FileHandleOwner(fd: fd)
        let plan = SharedPlan(ParallelDownloadPlan(size: size, streams: streams))
        // The complete prefix last handed to `checkpoint`, which hears of it each 4 MiB it grows.
        let checkpointed = CheckpointMark()
        progress?(0, size)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<min(streams, plan.withLock { $0.blocks.count }) {
                    group.addTask {
                        while let index = plan.withLock({ $0.take() }) {
                            try Task.checkCancellation()
                            let range = plan.withLock { $0.blocks[index] }
                            try await fetch(range) { bytes, offset in
                                guard offset + Int64(bytes.count) <= Int64(range.count) else { throw RangesRefused() }
                                try file.write(bytes, at: range.lowerBound + offset, path: path)
                                let done = plan.withLock { $0.wrote(index, upTo: offset + Int64(bytes.count)) }
                                progress?(done, size)
                            }
                            guard plan.withLock({ $0.hasWritten(index) }) else { throw RangesRefused() }
                            let done = plan.withLock { $0.finished(index) }
                            progress?(done, size)
                            if let checkpoint, let prefix = checkpointed.due(plan.withLock { $0.completePrefix }) { checkpoint(path, prefix) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            guard DurableFile.flush(fd) else { throw RemoteError.local("Cannot write \(path): \(String(cString: strerror(errno)))") }
        } catch {
            let prefix = plan.withLock { $0.completePrefix }
            if prefix > 0, !(error is RangesRefused) {
                // Only the complete prefix counts; a resume truncates the rest away.
                resume(path, prefix)
            } else {
                unlink(path)
            }
            throw error
        }
        return URL(fileURLWithPath: path)
    }
}

/// The partial file's descriptor, closed when the download is over.
private final class FileHandleOwner: Sendable {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    /// pwrite of all of `data` at `offset` (blocks are disjoint, so streams never overlap).
    func write(_ data: Data, at offset: Int64, path: String) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var written = 0
            while written < bytes.count {
                let count = pwrite(fd, bytes.baseAddress! + written, bytes.count - written, off_t(offset + Int64(written)))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw RemoteError.local("Cannot write \(path): \(String(cString: strerror(errno)))")
                }
                written += count
            }
        }
    }
}

/// The complete prefix a parallel download last reported to its checkpoint.
private final class CheckpointMark: Sendable {
    private let last = Mutex<Int64>(0)

    /// `prefix` when it is ``TransferTask/Checkpoint/interval`` past the last one reported.
    func due(_ prefix: Int64) -> Int64? {
        last.withLock { last in
            guard prefix >= last + TransferTask.Checkpoint.interval else { return nil }
            last = prefix
            return prefix
        }
    }
}
