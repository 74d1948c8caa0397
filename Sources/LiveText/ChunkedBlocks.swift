/// The store's blocks in fixed chunks rather than one array: an array doubles as it grows, and
/// while it copies it holds both, so one of 182,000 blocks (the LaTeX-paper trace) peaked at
/// twice its size. Chunks never move; a handle is a chunk and a place in it.
struct ChunkedBlocks {
    private static let shift = 12
    private static let chunkSize = 1 << shift
    private var chunks: [[Block]] = []
    private(set) var count = 0

    subscript(index: Int) -> Block {
        get { chunks[index >> Self.shift][index & (Self.chunkSize - 1)] }
        set { chunks[index >> Self.shift][index & (Self.chunkSize - 1)] = newValue }
    }

    mutating func append(_ block: Block) {
        if count & (Self.chunkSize - 1) == 0 {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
        }
        chunks[chunks.count - 1].append(block)
        count += 1
    }
}
