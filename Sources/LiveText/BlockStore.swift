/// A handle to a block: its index in ``BlockStore/blocks``. `-1` is no block.
typealias Handle = Int32

let noBlock: Handle = -1

/// A run of units one client wrote together: Yjs's `Item` (text, or deleted text) or `GC`.
///
/// Items are linked in document order (`left`, `right`), tombstones included; a GC struct holds
/// only its clocks and is in no list. A block's text lives in the store's arena.
struct Block {
    var id: ItemID
    var length: UInt64
    /// The unit this was inserted after when it was written, and the one it was inserted before:
    /// what YATA orders concurrent inserts by. Held without Optional's tag byte, which would
    /// cost 16 bytes a block with padding: a clock no update can name stands for none.
    private var originID: ItemID
    private var rightOriginID: ItemID
    var left: Handle = noBlock
    var right: Handle = noBlock
    /// Where its UTF-16 units start in the arena; -1 when there are none (ContentDeleted, GC).
    var text: Int
    var isGC: Bool
    var deleted: Bool

    init(id: ItemID, length: UInt64, origin: ItemID? = nil, rightOrigin: ItemID? = nil, left: Handle = noBlock, right: Handle = noBlock,
         text: Int, isGC: Bool, deleted: Bool) {
        self.id = id
        self.length = length
        self.originID = origin ?? Self.none
        self.rightOriginID = rightOrigin ?? Self.none
        self.left = left
        self.right = right
        self.text = text
        self.isGC = isGC
        self.deleted = deleted
    }

    private static let none = ItemID(client: 0, clock: .max)

    var origin: ItemID? { originID.clock == .max ? nil : originID }
    var rightOrigin: ItemID? { rightOriginID.clock == .max ? nil : rightOriginID }

    var end: UInt64 { id.clock + length }
    var lastID: ItemID { ItemID(client: id.client, clock: id.clock + length - 1) }
    /// The UTF-16 units it adds to the text.
    var visibleLength: Int { deleted ? 0 : Int(length) }
}

/// Every block of a document, in two orders: each client's blocks by clock (to find an ID), and
/// the text's order as a linked list (to read and edit it).
///
/// Blocks are never merged here: local typing appends one block a key, and the encoder joins
/// runs that Yjs would have merged (``BlockStore/writeStructs(of:from:root:into:)``). So a split
/// is rare (an insert inside a run that came from a peer), and handles never move.
struct BlockStore {
    private(set) var blocks = ChunkedBlocks()
    /// Every block's text, appended and never rewritten.
    private(set) var arena: [UInt16] = []
    /// Each client's handles, by clock, covering its clocks from 0 without a gap.
    private(set) var clients: [UInt64: [Handle]] = [:]
    private(set) var head: Handle = noBlock
    private(set) var tail: Handle = noBlock
    /// The text's length in UTF-16 units.
    private(set) var count = 0
    var positions = PositionCache()
    /// What the text gained and lost since ``startJournal()``: nil when nobody asked.
    var journal: Journal?

    subscript(handle: Handle) -> Block { blocks[Int(handle)] }

    /// The next clock of `client`: how many of its units this store holds.
    func state(of client: UInt64) -> UInt64 {
        guard let last = clients[client]?.last else { return 0 }
        return blocks[Int(last)].end
    }

    var stateVector: StateVector {
        StateVector(clients.mapValues { blocks[Int($0[$0.count - 1])].end })
    }

    /// Whether the store holds the unit `id`.
    func contains(_ id: ItemID) -> Bool { id.clock < state(of: id.client) }

    func units(of block: Block) -> ArraySlice<UInt16> {
        arena[block.text..<block.text + Int(block.length)]
    }

    // MARK: Finding by ID

    /// The position in `client`'s handles of the block holding `clock`.
    func index(of clock: UInt64, client: UInt64) -> Int? {
        guard let handles = clients[client], !handles.isEmpty else { return nil }
        var low = 0
        var high = handles.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let block = blocks[Int(handles[middle])]
            if block.id.clock > clock {
                high = middle - 1
            } else if block.end <= clock {
                low = middle + 1
            } else {
                return middle
            }
        }
        return nil
    }

    /// The block holding `id`, not split (Yjs's `getItem`).
    func handle(containing id: ItemID) -> Handle? {
        guard let index = index(of: id.clock, client: id.client) else { return nil }
        return clients[id.client]![index]
    }

    /// The block that ends with `id`, split after it if need be (Yjs's `getItemCleanEnd`). A GC
    /// struct is never split.
    mutating func cleanEnd(_ id: ItemID) -> Handle? {
        guard let index = index(of: id.clock, client: id.client) else { return nil }
        let handle = clients[id.client]![index]
        let block = self[handle]
        if !block.isGC && id.clock != block.end - 1 {
            split(handle, at: id.clock - block.id.clock + 1, index: index)
        }
        return handle
    }

    /// The block that starts with `id`, split before it if need be (Yjs's `getItemCleanStart`).
    mutating func cleanStart(_ id: ItemID) -> Handle? {
        guard let index = index(of: id.clock, client: id.client) else { return nil }
        let handle = clients[id.client]![index]
        let block = self[handle]
        if !block.isGC && id.clock != block.id.clock {
            return split(handle, at: id.clock - block.id.clock, index: index)
        }
        return handle
    }

    /// Cuts a block in two after `offset` units; returns the right part. The left part keeps its
    /// handle, so a handle (and a cached position) stays good across a split.
    @discardableResult
    mutating func split(_ handle: Handle, at offset: UInt64, index: Int? = nil) -> Handle {
        var left = self[handle]
        precondition(!left.isGC && offset > 0 && offset < left.length, "split out of range")
        var rightText = -1
        if left.text >= 0 {
            let cut = left.text + Int(offset)
            if UTF16Transcoding.isHighSurrogate(arena[cut - 1]) {
                // Inside a surrogate pair: both halves become U+FFFD, as Yjs cuts them.
                let units = units(of: left)
                let leftUnits = TextSplit.left(of: units, at: Int(offset))
                let rightUnits = TextSplit.right(of: units, at: Int(offset))
                left.text = arena.count
                arena.append(contentsOf: leftUnits)
                rightText = arena.count
                arena.append(contentsOf: rightUnits)
            } else {
                rightText = cut
            }
        }
        let right = Block(
            id: ItemID(client: left.id.client, clock: left.id.clock + offset),
            length: left.length - offset,
            origin: ItemID(client: left.id.client, clock: left.id.clock + offset - 1),
            rightOrigin: left.rightOrigin,
            left: handle,
            right: left.right,
            text: rightText,
            isGC: false,
            deleted: left.deleted
        )
        let rightHandle = Handle(blocks.count)
        blocks.append(right)
        if left.right != noBlock {
            blocks[Int(left.right)].left = rightHandle
        } else {
            tail = rightHandle
        }
        left.right = rightHandle
        left.length = offset
        blocks[Int(handle)] = left
        let at = index ?? self.index(of: left.id.clock, client: left.id.client)!
        clients[left.id.client]!.insert(rightHandle, at: at + 1)
        journal?.split(handle, into: rightHandle)
        return rightHandle
    }

    // MARK: Integration

    /// Whether everything `block` (from `offset` on) points at is here: its own client's earlier
    /// units and both origins (Yjs's `getMissing`, which names the client to wait for).
    func missingDependency(of block: DecodedBlock, offset: UInt64) -> UInt64? {
        if case .gc = block.content { return nil }
        if offset == 0, let origin = block.origin, !contains(origin) { return origin.client }
        if let rightOrigin = block.rightOrigin, !contains(rightOrigin) { return rightOrigin.client }
        return nil
    }

    /// Adds a struct whose clock is this store's next for its client and whose origins are here.
    mutating func integrate(_ decoded: DecodedBlock) {
        precondition(decoded.id.clock == state(of: decoded.id.client), "integrated out of order")
        var left = noBlock
        var right = noBlock
        var collected = false
        if case .gc = decoded.content { collected = true }
        if !collected, let origin = decoded.origin {
            left = cleanEnd(origin) ?? noBlock
            collected = left == noBlock || self[left].isGC
        }
        if !collected, let rightOrigin = decoded.rightOrigin {
            right = cleanStart(rightOrigin) ?? noBlock
            collected = right == noBlock || self[right].isGC
        }
        if collected {
            // Next to a GC struct an item has no parent left, and Yjs keeps it as GC too.
            append(Block(id: decoded.id, length: decoded.length, text: -1, isGC: true, deleted: true))
            return
        }
        var text = -1
        if case .text(let units) = decoded.content {
            text = arena.count
            arena.append(contentsOf: units)
        }
        let block = Block(id: decoded.id, length: decoded.length, origin: decoded.origin, rightOrigin: decoded.rightOrigin,
                          text: text, isGC: false, deleted: text < 0)
        insert(block, after: left, before: right)
    }

    /// Links a new item between `left` and `right` (its origins' blocks), first moving past the
    /// items concurrent inserts put there, exactly as Yjs's `Item.integrate` orders them (YATA).
    @discardableResult
    mutating func insert(_ new: Block, after origin: Handle, before right: Handle) -> Handle {
        var left = origin
        let conflict = left == noBlock ? (right == noBlock || self[right].left != noBlock) : self[left].right != right
        if conflict {
            var candidate = left == noBlock ? head : self[left].right
            var conflicting = Set<Handle>()
            var beforeOrigin = Set<Handle>()
            while candidate != noBlock && candidate != right {
                beforeOrigin.insert(candidate)
                conflicting.insert(candidate)
                let other = self[candidate]
                if other.origin == new.origin {
                    // Both were inserted after the same unit: the lower client goes first.
                    if other.id.client < new.id.client {
                        left = candidate
                        conflicting.removeAll()
                    } else if other.rightOrigin == new.rightOrigin {
                        break
                    }
                } else if let otherOrigin = other.origin, let originBlock = handle(containing: otherOrigin), beforeOrigin.contains(originBlock) {
                    if !conflicting.contains(originBlock) {
                        left = candidate
                        conflicting.removeAll()
                    }
                } else {
                    break
                }
                candidate = other.right
            }
        }
        var block = new
        let handle = Handle(blocks.count)
        block.left = left
        if left != noBlock {
            block.right = self[left].right
            blocks[Int(left)].right = handle
        } else {
            block.right = head
            head = handle
        }
        if block.right != noBlock {
            blocks[Int(block.right)].left = handle
        } else {
            tail = handle
        }
        count += block.visibleLength
        append(block)
        if !block.deleted { journal?.inserted.insert(handle) }
        return handle
    }

    mutating func appendText(_ units: [UInt16]) {
        arena.append(contentsOf: units)
    }

    private mutating func append(_ block: Block) {
        let handle = Handle(blocks.count)
        blocks.append(block)
        clients[block.id.client, default: []].append(handle)
    }

    // MARK: Deleting

    /// Marks the units of `range` this store holds deleted; returns the part it does not hold
    /// yet (to keep until it does), if any. The blocks it deleted (text that was visible) are
    /// added to `deleted`, in clock order.
    mutating func delete(_ range: DeleteRange, deleted: inout [Handle]) -> DeleteRange? {
        let state = state(of: range.client)
        guard range.clock < state else { return range }
        let end = min(range.clock + range.length, state)
        var index = index(of: range.clock, client: range.client)!
        let first = clients[range.client]![index]
        if !self[first].isGC && !self[first].deleted && self[first].id.clock < range.clock {
            split(first, at: range.clock - self[first].id.clock, index: index)
            index += 1
        }
        while index < clients[range.client]!.count {
            let handle = clients[range.client]![index]
            let block = self[handle]
            guard block.id.clock < end else { break }
            if !block.isGC && !block.deleted {
                if block.end > end { split(handle, at: end - block.id.clock, index: index) }
                markDeleted(handle)
                deleted.append(handle)
            }
            index += 1
        }
        let rangeEnd = range.clock + range.length
        return rangeEnd > state ? DeleteRange(client: range.client, clock: state, length: rangeEnd - state) : nil
    }

    mutating func markDeleted(_ handle: Handle) {
        if !self[handle].deleted { journal?.deleted(handle) }
        count -= self[handle].visibleLength
        blocks[Int(handle)].deleted = true
    }

    /// The deleted ranges of every client (GC structs included, as Yjs writes them), joined.
    func deleteSet() -> [DeleteRange] {
        var ranges: [DeleteRange] = []
        for (client, handles) in clients {
            for handle in handles {
                let block = self[handle]
                guard block.deleted else { continue }
                if let last = ranges.last, last.client == client, last.clock + last.length == block.id.clock {
                    ranges[ranges.count - 1].length += block.length
                } else {
                    ranges.append(DeleteRange(client: client, clock: block.id.clock, length: block.length))
                }
            }
        }
        return ranges
    }

    // MARK: Reading

    var utf16: [UInt16] {
        var units: [UInt16] = []
        units.reserveCapacity(count)
        var handle = head
        while handle != noBlock {
            let block = self[handle]
            if !block.deleted { units.append(contentsOf: self.units(of: block)) }
            handle = block.right
        }
        return units
    }
}
