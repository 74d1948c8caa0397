/// The editor's lines, in chunks of at most ``chunkSize`` lines each: an array of lines that is
/// cheap to share and then edit.
///
/// A big note's lines are shared with work off the UI queue (its draft, its Markdown parse) while
/// the user types on. One array of 20,000 lines, shared, was copied whole by the next key (1.5 ms
/// of each key after a draft's write in `app-bench markdown`, found with `perf`); shared in
/// chunks, a key copies the outer array of chunks and the one chunk it edits.
///
/// A `RandomAccessCollection` of lines with `Int` indices, mutable in place and
/// range-replaceable, so the editor reads and edits it as it did an array. Two stores are equal
/// when their lines are, however they are chunked.
public struct LineStore: RandomAccessCollection, MutableCollection, RangeReplaceableCollection, Equatable, Sendable {
    public typealias Element = [Character]
    public typealias Index = Int
    public typealias Indices = Range<Int>

    /// The most lines a chunk holds; an edit re-chunks only the chunks it touches.
    static let chunkSize = 512

    private var chunks: [[[Character]]]
    /// The index of each chunk's first line.
    private var starts: [Int]
    public private(set) var count: Int

    public init() {
        chunks = []
        starts = []
        count = 0
    }

    public init<S: Sequence>(_ lines: S) where S.Element == [Character] {
        self.init()
        var chunk: [[Character]] = []
        chunk.reserveCapacity(Self.chunkSize)
        for line in lines {
            chunk.append(line)
            if chunk.count == Self.chunkSize {
                chunks.append(chunk)
                chunk = []
                chunk.reserveCapacity(Self.chunkSize)
            }
        }
        if !chunk.isEmpty { chunks.append(chunk) }
        reindex(from: 0)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var indices: Range<Int> { 0..<count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// The chunk holding line `index`, and the line's place in it.
    private func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        precondition(index >= 0 && index < count, "line \(index) of \(count)")
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return (low, index - starts[low])
    }

    public subscript(index: Int) -> [Character] {
        get {
            let (chunk, offset) = locate(index)
            return chunks[chunk][offset]
        }
        _modify {
            let (chunk, offset) = locate(index)
            yield &chunks[chunk][offset]
        }
    }

    public subscript(bounds: Range<Int>) -> Slice<LineStore> {
        get { Slice(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: newValue) }
    }

    public mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with newLines: C) where C.Element == [Character] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "lines \(range) of \(count)")
        guard !chunks.isEmpty else {
            self = LineStore(newLines)
            return
        }
        // The chunks the range touches (at the very end: the last one), rebuilt as one run of
        // lines and chunked again; a run left small takes in the chunk after it.
        let first = range.lowerBound == count ? chunks.count - 1 : locate(range.lowerBound).chunk
        var last = range.isEmpty ? first : locate(range.upperBound - 1).chunk
        var run: [[Character]] = []
        run.reserveCapacity(Self.chunkSize + newLines.count)
        let head = range.lowerBound - starts[first]
        run += chunks[first][..<head]
        run += newLines
        let tail = range.upperBound - starts[last]
        run += chunks[last][tail...]
        if run.count < Self.chunkSize / 4, last + 1 < chunks.count {
            last += 1
            run += chunks[last]
        }
        var pieces: [[[Character]]] = []
        var at = 0
        while at < run.count {
            let end = Swift.min(run.count, at + Self.chunkSize)
            pieces.append(Array(run[at..<end]))
            at = end
        }
        chunks.replaceSubrange(first...last, with: pieces)
        reindex(from: first)
    }

    /// Recounts the chunks' first lines from chunk `first` on.
    private mutating func reindex(from first: Int) {
        starts.removeSubrange(Swift.min(first, starts.count)...)
        var start = first == 0 ? 0 : starts[first - 1] + chunks[first - 1].count
        for chunk in chunks[first...] {
            starts.append(start)
            start += chunk.count
        }
        count = start
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let chunks: [[[Character]]]
        fileprivate var chunk = 0
        fileprivate var offset = 0

        public mutating func next() -> [Character]? {
            while chunk < chunks.count {
                if offset < chunks[chunk].count {
                    defer { offset += 1 }
                    return chunks[chunk][offset]
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    /// Where each chunk's lines are in memory: a chunk two stores share is at one address
    /// (LineStoreTests).
    var chunkAddresses: [UnsafeRawPointer?] {
        chunks.map { chunk in chunk.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
    }

    public static func == (a: LineStore, b: LineStore) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }
}

extension LineStore: ExpressibleByArrayLiteral {
    public init(arrayLiteral lines: [Character]...) { self.init(lines) }
}
