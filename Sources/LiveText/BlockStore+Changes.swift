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
    /// up to the last block that changed.
    mutating func endJournal() -> [LiveTextChange] {
        guard let journal else { return [] }
        self.journal = nil
        var left = journal.inserted.count + journal.removed.count
        var changes: [LiveTextChange] = []
        var offset = 0
        var handle = head
        while left > 0 && handle != noBlock {
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
            } else {
                offset += block.visibleLength
            }
            handle = block.right
        }
        return changes
    }
}
