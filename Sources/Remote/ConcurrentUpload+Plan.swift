import DropboxWire
import Foundation

/// Which block of a concurrent upload session goes next, and how far the whole upload is: a
/// value the streams share (behind a lock) with no side effects of its own.
///
/// The file is cut into blocks, each a multiple of 4 MiB but the last (the one that closes
/// the session). Each stream takes the next block not yet taken; a block whose request fails
/// is retried by the stream that holds it, so no block is ever sent by two streams at once.
/// Progress is the sum over blocks of what each has sent; a retried block starts its count
/// again from zero.
struct ConcurrentUploadPlan: Sendable, Equatable {
    struct Block: Sendable, Equatable {
        var offset: Int64
        var length: Int64
        /// The last block: its append closes the session.
        var closing: Bool
    }

    let size: Int64
    /// The length of every block but the last.
    let blockSize: Int64
    let blocks: [Block]
    /// The blocks not yet taken by a stream, in order.
    private var pending: [Int]
    private(set) var nextBlock = 0
    /// Bytes sent of each block, for progress.
    private var sent: [Int64]
    /// The blocks the server acknowledged.
    private var acknowledged: Set<Int> = []

    /// - Parameters:
    ///   - size: the file's length.
    ///   - streams: how many connections will share the blocks.
    ///   - largestBlock: the store's chunk size, the most one request carries.
    init(size: Int64, streams: Int, largestBlock: Int64) {
        self.init(cutting: size, into: Self.blockSize(size: size, streams: streams, largestBlock: largestBlock))
    }

    /// The plan of a session another process began, cut into `block`-sized blocks as it was,
    /// with the blocks at the `acknowledged` offsets already done; nil when the mark cannot
    /// describe such a plan (a block size off the 4 MiB grid, an offset off the blocks).
    init?(size: Int64, block: Int64, acknowledged offsets: [Int64]) {
        guard block > 0, block % UploadSessionType.concurrentBlock == 0, size > 0 else { return nil }
        self.init(cutting: size, into: block)
        for offset in offsets {
            guard offset >= 0, offset % block == 0, offset < size else { return nil }
            let index = Int(offset / block)
            acknowledged.insert(index)
            sent[index] = blocks[index].length
        }
        pending = blocks.indices.filter { !acknowledged.contains($0) }
    }

    private init(cutting size: Int64, into block: Int64) {
        self.size = size
        blockSize = block
        var blocks: [Block] = []
        var offset: Int64 = 0
        repeat {
            let length = min(block, size - offset)
            blocks.append(Block(offset: offset, length: length, closing: offset + length >= size))
            offset += length
        } while offset < size
        self.blocks = blocks
        pending = Array(blocks.indices)
        sent = Array(repeating: 0, count: blocks.count)
    }

    /// About four blocks per stream, so a slow or retried block holds back the end by little,
    /// in whole 4 MiB units and no larger than one request may be.
    static func blockSize(size: Int64, streams: Int, largestBlock: Int64) -> Int64 {
        let unit = UploadSessionType.concurrentBlock
        let wanted = size / Int64(max(1, streams) * 4)
        let rounded = max(unit, (wanted + unit - 1) / unit * unit)
        return min(rounded, max(unit, largestBlock / unit * unit))
    }

    /// The next block for a stream, or nil when every block is taken.
    mutating func take() -> Int? {
        guard nextBlock < pending.count else { return nil }
        defer { nextBlock += 1 }
        return pending[nextBlock]
    }

    /// The server took `block` whole; returns the session's mark, for another process.
    mutating func acknowledge(_ block: Int, session: String) -> UploadSessionMark {
        acknowledged.insert(block)
        sent[block] = blocks[block].length
        return mark(session)
    }

    /// Where session `session` stands: the acknowledged blocks.
    func mark(_ session: String) -> UploadSessionMark {
        let offsets = acknowledged.sorted().map { blocks[$0].offset }
        return UploadSessionMark(sessionID: session, offset: acknowledged.reduce(0) { $0 + blocks[$1].length }, blockSize: blockSize,
                                 blocksDone: offsets)
    }

    /// Records that `block` has sent `bytes` of itself so far; returns the upload's total.
    mutating func progressed(_ block: Int, sent bytes: Int64) -> Int64 {
        sent[block] = min(max(0, bytes), blocks[block].length)
        return done
    }

    /// Bytes sent over all blocks.
    var done: Int64 { sent.reduce(0, +) }
}
