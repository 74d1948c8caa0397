import Foundation
import Synchronization
import Transfer

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

    /// Blocks small enough that the streams' answers in memory stay well inside the 64 MiB a
    /// transfer may use: 8 MiB over all streams (an answer gathered into memory may briefly
    /// take twice its size, and the allocator keeps some of what was freed), at most 8 MiB and
    /// at least 1 MiB each. With 16 MiB over 4 streams, `get` peaked at 70-73 MiB RSS over the
    /// emulated WAN (release); a block's extra round trip is shared by the other streams.
    static func blockSize(streams: Int) -> Int64 {
        min(8 << 20, max(1 << 20, (8 << 20) / Int64(max(1, streams))))
    }

    init(size: Int64, streams: Int) {
        self.size = size
        let block = Self.blockSize(streams: streams)
        var blocks: [ClosedRange<Int64>] = []
        var start: Int64 = 0
        while start < size {
            blocks.append(start...(min(start + block, size) - 1))
            start += block
        }
        self.blocks = blocks
        complete = Array(repeating: false, count: blocks.count)
    }

    mutating func take() -> Int? {
        guard nextBlock < blocks.count else { return nil }
        defer { nextBlock += 1 }
        return nextBlock
    }

    /// Marks a block written; returns the bytes written over all blocks.
    mutating func finished(_ block: Int) -> Int64 {
        complete[block] = true
        return done
    }

    var done: Int64 {
        zip(blocks, complete).reduce(0) { $0 + ($1.1 ? Int64($1.0.count) : 0) }
    }

    /// Bytes complete from the start of the file, before the first missing block.
    var completePrefix: Int64 {
        guard let missing = complete.firstIndex(of: false) else { return size }
        return blocks[missing].lowerBound
    }
}

/// A download over several connections, each asking for a range of the file with `Range` and
/// writing its answer with pwrite at that offset into one partial file.
///
/// The store supplies `fetch`, one range's request with its retries, which answers the bytes
/// of exactly that range or throws. When the download fails or is cancelled, the partial file
/// is kept for a single-stream resume from its complete prefix (`resume` turns that prefix
/// into the store's resume data), or removed when nothing useful arrived.
enum ParallelDownload {
    /// Thrown by `fetch` when the server sent the whole file (200) or another range: it does
    /// not serve ranges after all, and the caller falls back to one stream.
    struct RangesRefused: Error {}

    static func run(size: Int64, streams: Int, directory: URL, progress: ProgressHandler?,
                    fetch: @escaping @Sendable (ClosedRange<Int64>) async throws -> Data,
                    resume: (_ partialFile: String, _ completePrefix: Int64) -> Void) async throws -> URL {
        let path = directory.appendingPathComponent("byteclub-\(UUID().uuidString).download").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RemoteError.local("Cannot write \(path): \(String(cString: strerror(errno)))") }
        let file = FileHandleOwner(fd: fd)
        let plan = SharedPlan(ParallelDownloadPlan(size: size, streams: streams))
        progress?(0, size)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<min(streams, plan.withLock { $0.blocks.count }) {
                    group.addTask {
                        while let index = plan.withLock({ $0.take() }) {
                            try Task.checkCancellation()
                            let range = plan.withLock { $0.blocks[index] }
                            let bytes = try await fetch(range)
                            guard Int64(bytes.count) == Int64(range.count) else { throw RangesRefused() }
                            try file.write(bytes, at: range.lowerBound, path: path)
                            let done = plan.withLock { $0.finished(index) }
                            progress?(done, size)
                        }
                    }
                }
                try await group.waitForAll()
            }
            guard fsync(fd) == 0 else { throw RemoteError.local("Cannot write \(path): \(String(cString: strerror(errno)))") }
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
