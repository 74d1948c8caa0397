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
    let blocks: [Block]
    private(set) var nextBlock = 0
    /// Bytes sent of each block, for progress.
    private var sent: [Int64]

    /// - Parameters:
    ///   - size: the file's length.
    ///   - streams: how many connections will share the blocks.
    ///   - largestBlock: the store's chunk size, the most one request carries.
    init(size: Int64, streams: Int, largestBlock: Int64) {
        self.size = size
        let block = Self.blockSize(size: size, streams: streams, largestBlock: largestBlock)
        var blocks: [Block] = []
        var offset: Int64 = 0
        repeat {
            let length = min(block, size - offset)
            blocks.append(Block(offset: offset, length: length, closing: offset + length >= size))
            offset += length
        } while offset < size
        self.blocks = blocks
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
        guard nextBlock < blocks.count else { return nil }
        defer { nextBlock += 1 }
        return nextBlock
    }

    /// Records that `block` has sent `bytes` of itself so far; returns the upload's total.
    mutating func progressed(_ block: Int, sent bytes: Int64) -> Int64 {
        sent[block] = min(max(0, bytes), blocks[block].length)
        return done
    }

    /// Bytes sent over all blocks.
    var done: Int64 { sent.reduce(0, +) }
}
