/// Where recent edits were: a few blocks with the text offset each starts at, so that an edit
/// near the last one walks a few blocks, not the list from its head (Yjs's search markers).
///
/// An entry's `start` is the number of visible UTF-16 units before its block, tombstone or not.
/// Local edits move the entries after them, and so do a peer's update whose changes are
/// reported and an undo (``BlockStore/endJournal()``); a plain apply empties it.
struct PositionCache {
    private(set) var entries: [(handle: Handle, start: Int)] = []
    private var nextSlot = 0
    static let capacity = 16

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        nextSlot = 0
    }

    mutating func add(_ handle: Handle, start: Int) {
        if entries.count < Self.capacity {
            entries.append((handle, start))
        } else {
            entries[nextSlot] = (handle, start)
            nextSlot = (nextSlot + 1) % Self.capacity
        }
    }

    mutating func replace(with entries: [(handle: Handle, start: Int)]) {
        self.entries = entries
        nextSlot = 0
    }

    mutating func move(_ index: Int, to handle: Handle, start: Int) {
        entries[index] = (handle, start)
    }

    mutating func shift(_ index: Int, by delta: Int) {
        entries[index].start += delta
    }
}

/// A tombstone's text put back by an undo: the tombstone's units, and the first clock of the
/// copy, which is as long (Yjs's `Item.redone`). Undoing the insert that wrote the tombstone's
/// text deletes the copy too.
struct Redone: Sendable {
    var original: DeleteRange
    var copy: UInt64
}

extension BlockStore {
    /// Whether every cached position is right: a walk of the whole list, for tests.
    func positionsAreRight() -> Bool {
        var starts: [Handle: Int] = [:]
        var offset = 0
        var handle = head
        while handle != noBlock {
            starts[handle] = offset
            offset += self[handle].visibleLength
            handle = self[handle].right
        }
        return offset == count && positions.entries.allSatisfy { starts[$0.handle] == $0.start }
    }

    /// The visible block holding text offset `offset`, and the offset its first unit is at; nil
    /// at the end of the text.
    mutating func locate(_ offset: Int) -> (handle: Handle, start: Int)? {
        guard offset < count else { return nil }
        var nearest = -1
        var handle = head
        var start = 0
        var distance = offset
        for (index, entry) in positions.entries.enumerated() where abs(entry.start - offset) < distance {
            nearest = index
            distance = abs(entry.start - offset)
            (handle, start) = entry
        }
        var steps = 0
        while start > offset {
            handle = self[handle].left
            start -= self[handle].visibleLength
            steps += 1
        }
        while true {
            let visible = self[handle].visibleLength
            if visible > 0 && offset < start + visible { break }
            start += visible
            handle = self[handle].right
            steps += 1
        }
        if nearest >= 0 && steps < 64 {
            positions.move(nearest, to: handle, start: start)
        } else {
            positions.add(handle, start: start)
        }
        return (handle, start)
    }

    /// A new item of `units` at text offset `offset`, written by `id`'s client: after every
    /// tombstone that comes before the next visible unit, as Yjs places it. Returns its handle.
    @discardableResult
    mutating func insertLocal(_ units: [UInt16], at offset: Int, id: ItemID) -> Handle {
        var left = tail
        var right = noBlock
        if let (handle, start) = locate(offset) {
            if start < offset {
                right = split(handle, at: UInt64(offset - start))
                left = handle
            } else {
                right = handle
                left = self[handle].left
            }
        }
        for (index, entry) in positions.entries.enumerated()
        where entry.start > offset || (entry.start == offset && self[entry.handle].visibleLength > 0) {
            positions.shift(index, by: units.count)
        }
        let text = arena.count
        appendText(units)
        let block = Block(id: id, length: UInt64(units.count), origin: left == noBlock ? nil : self[left].lastID,
                          rightOrigin: right == noBlock ? nil : self[right].id, text: text, isGC: false, deleted: false)
        let handle = insert(block, after: left, before: right)
        positions.add(handle, start: offset)
        return handle
    }

    /// Deletes the visible units `range`; returns the blocks deleted, in text order.
    mutating func deleteLocal(_ range: Range<Int>) -> [Handle] {
        guard !range.isEmpty, let (first, start) = locate(range.lowerBound) else { return [] }
        var handle = start < range.lowerBound ? split(first, at: UInt64(range.lowerBound - start)) : first
        var remaining = range.count
        var deleted: [Handle] = []
        while remaining > 0 && handle != noBlock {
            let visible = self[handle].visibleLength
            if visible > 0 {
                if visible > remaining { split(handle, at: UInt64(remaining)) }
                remaining -= self[handle].visibleLength
                markDeleted(handle)
                deleted.append(handle)
            }
            handle = self[handle].right
        }
        for (index, entry) in positions.entries.enumerated() where entry.start > range.lowerBound {
            positions.shift(index, by: -min(entry.start - range.lowerBound, range.count))
        }
        return deleted
    }

    /// Puts `units` (text deleted at `piece`) back as new items of `client`, each just before the
    /// tombstone it copies, as Yjs's UndoManager redoes a deleted item. Called under a journal
    /// (``startJournal()``), whose end brings the position cache through these inserts. Returns each copy: the
    /// tombstone's range and the copy's first clock.
    mutating func restore(_ piece: DeletedText, as client: UInt64) -> [Redone] {
        assert(journal != nil, "restore outside a journal leaves cached positions behind")
        let end = piece.id.clock + UInt64(piece.units.count)
        guard var index = index(of: piece.id.clock, client: piece.id.client) else { return [] }
        var restored: [Redone] = []
        while let handles = clients[piece.id.client], index < handles.count {
            var handle = handles[index]
            var block = self[handle]
            guard block.id.clock < end else { break }
            if !block.isGC && block.id.clock < piece.id.clock {
                handle = split(handle, at: piece.id.clock - block.id.clock, index: index)
                index += 1
                block = self[handle]
            }
            if !block.isGC && block.end > end {
                split(handle, at: end - block.id.clock, index: index)
                block = self[handle]
            }
            index += 1
            guard !block.isGC else { continue }
            let from = Int(block.id.clock - piece.id.clock)
            let units = TextSplit.middle(of: piece.units, from..<from + Int(block.length))
            let text = arena.count
            appendText(units)
            let id = ItemID(client: client, clock: state(of: client))
            let left = block.left
            let copy = Block(id: id, length: UInt64(units.count), origin: left == noBlock ? nil : self[left].lastID,
                             rightOrigin: block.id, text: text, isGC: false, deleted: false)
            insert(copy, after: left, before: handle)
            restored.append(Redone(original: DeleteRange(client: block.id.client, clock: block.id.clock, length: block.length), copy: id.clock))
        }
        return restored
    }
}
