/// A change a peer's update, an undo or a redo made to the text, for an editor to make the same
/// change to what it shows (and to move its cursor by). Applied in order, the changes of one
/// call turn the text before it into the text after it; each offset counts UTF-16 units of the
/// text as the changes before it left it.
public enum LiveTextChange: Hashable, Sendable {
    case insert(String, at: Int)
    case delete(Range<Int>)
}

/// The blocks that became visible and those that stopped being visible while the journal ran.
struct Journal {
    var inserted = Set<Handle>()
    var removed = Set<Handle>()

    /// A block deleted: text that came and went within the journal was never seen.
    mutating func deleted(_ handle: Handle) {
        if inserted.remove(handle) == nil { removed.insert(handle) }
    }

    /// A block cut in two: the right part is what the whole was.
    mutating func split(_ handle: Handle, into right: Handle) {
        if inserted.contains(handle) { inserted.insert(right) }
        if removed.contains(handle) { removed.insert(right) }
    }
}

extension BlockStore {
    mutating func startJournal() {
        journal = Journal()
    }

    /// Ends the journal and says what it saw as changes in text order: one walk of the list,
    /// up to the last block that changed. The position cache comes through it: an entry the
    /// walk passes gets its new start, one after the last change moves by what the changes
    /// added and took, so the next local edit need not walk from the head.
    mutating func endJournal() -> [LiveTextChange] {
        guard let journal else { return [] }
        self.journal = nil
        let entries = positions.entries
        let byStart = entries.indices.sorted { entries[$0].start < entries[$1].start }
        var newStarts: [Int?] = Array(repeating: nil, count: entries.count)
        var nextEntry = 0
        var left = journal.inserted.count + journal.removed.count
        var changes: [LiveTextChange] = []
        var offset = 0
        var oldOffset = 0
        var handle = head
        while left > 0 && handle != noBlock {
            while nextEntry < byStart.count && entries[byStart[nextEntry]].start < oldOffset { nextEntry += 1 }
            var entry = nextEntry
            while entry < byStart.count && entries[byStart[entry]].start == oldOffset {
                if entries[byStart[entry]].handle == handle { newStarts[byStart[entry]] = offset }
                entry += 1
            }
            let block = self[handle]
            if journal.inserted.contains(handle) {
                left -= 1
                let text = String(decoding: units(of: block), as: UTF16.self)
                if case .insert(let before, let at) = changes.last, at + before.utf16.count == offset {
                    changes[changes.count - 1] = .insert(before + text, at: at)
                } else {
                    changes.append(.insert(text, at: offset))
                }
                offset += Int(block.length)
            } else if journal.removed.contains(handle) {
                left -= 1
                let length = Int(block.length)
                if case .delete(let range) = changes.last, range.lowerBound == offset {
                    changes[changes.count - 1] = .delete(offset..<range.upperBound + length)
                } else {
                    changes.append(.delete(offset..<offset + length))
                }
                oldOffset += length
            } else {
                offset += block.visibleLength
                oldOffset += block.visibleLength
            }
            handle = block.right
        }
        var kept: [(handle: Handle, start: Int)] = []
        for (index, entry) in entries.enumerated() {
            if let start = newStarts[index] {
                kept.append((entry.handle, start))
            } else if entry.start >= oldOffset {
                kept.append((entry.handle, entry.start + offset - oldOffset))
            }
        }
        positions.replace(with: kept)
        return changes
    }
}
