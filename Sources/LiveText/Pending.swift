/// One client's structs that came before what they build on: a binary heap, lowest clock first
/// (the longer of two at one clock first), so a struct waits at O(log n) however many wait with it.
struct PendingBlocks: Sendable {
    private var heap: [DecodedBlock] = []

    var isEmpty: Bool { heap.isEmpty }
    var first: DecodedBlock? { heap.first }

    mutating func insert(_ block: DecodedBlock) {
        heap.append(block)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func removeFirst() -> DecodedBlock {
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count && Self.before(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count && Self.before(heap[right], heap[smallest]) { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }

    private static func before(_ a: DecodedBlock, _ b: DecodedBlock) -> Bool {
        a.id.clock < b.id.clock || a.id.clock == b.id.clock && a.length > b.length
    }
}

/// Deletes of units not here yet, per client by clock; each is tried again only once its
/// client's clock has passed its start.
struct PendingDeletes: Sendable {
    private(set) var ranges: [UInt64: [DeleteRange]] = [:]

    var isEmpty: Bool { ranges.isEmpty }

    /// Keeps `range`, unless the same range waits already (an update delivered twice).
    mutating func insert(_ range: DeleteRange) {
        var list = ranges[range.client, default: []]
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].clock < range.clock || list[middle].clock == range.clock && list[middle].length < range.length {
                low = middle + 1
            } else {
                high = middle
            }
        }
        if low < list.count && list[low] == range { return }
        list.insert(range, at: low)
        ranges[range.client] = list
    }

    /// Takes out the ranges of `client` that start before `clock`.
    mutating func removeStarting(before clock: UInt64, client: UInt64) -> [DeleteRange] {
        guard let list = ranges[client], let first = list.first, first.clock < clock else { return [] }
        let split = list.firstIndex { $0.clock >= clock } ?? list.count
        let due = Array(list[..<split])
        ranges[client] = split == list.count ? nil : Array(list[split...])
        return due
    }
}
