import Foundation

/// Text deleted by one edit, kept so an undo can put it back: the first unit's identity and the
/// units as they were.
struct DeletedText: Sendable {
    var id: ItemID
    var units: [UInt16]
}

/// What one edit of this document's own did: the clocks of its own it wrote, and the text it
/// deleted (anyone's). Undoing it deletes the first and puts the second back.
struct UndoStep: Sendable {
    var inserted: [Range<UInt64>]
    var deleted: [DeletedText]
    /// Whose clocks `inserted` are: nil for this document's client; another's for a step taken
    /// from the member's own document of the note before it joined (``LiveDocument/takeUndoSteps(of:)``).
    var client: UInt64? = nil
}

/// What an undo or a redo did: the update to send, and the changes it made to the text (for
/// the editor, which did not ask for them as it asks for an insert).
public struct UndoneEdit: Sendable {
    public var update: Data
    public var changes: [LiveTextChange]
}

extension LiveDocument {
    /// Whether ``undo()`` has an edit of this document's to undo.
    public var canUndo: Bool { !undoSteps.isEmpty }
    public var canRedo: Bool { !redoSteps.isEmpty }

    /// Undoes this document's last edit not undone yet; returns the update to send and the
    /// changes to the text, or nil when there is nothing to undo.
    ///
    /// Only this document's own edits are undone, as Yjs's `UndoManager` does with its tracked
    /// origins: the text it inserted is deleted (what a peer has deleted already stays so), and
    /// the text it deleted comes back as new items of its own, each placed where the deleted one
    /// is. Nothing a peer inserted is deleted, and a peer's later edits stay.
    ///
    /// An edit that peers have undone already (all the text it wrote deleted by them, and none
    /// deleted) is passed over for the one before it, as Yjs's `UndoManager` passes over a step
    /// that changes nothing: an undo always undoes something while there is something to undo.
    @discardableResult
    public mutating func undo() -> UndoneEdit? {
        while let step = undoSteps.popLast() {
            let (inverse, edit) = perform(step)
            if let inverse {
                redoSteps.append(inverse)
                return edit
            }
        }
        return nil
    }

    /// Does again what the last ``undo()`` undid; nil when there is nothing to redo. A new local
    /// edit empties the redo stack.
    @discardableResult
    public mutating func redo() -> UndoneEdit? {
        while let step = redoSteps.popLast() {
            let (inverse, edit) = perform(step)
            if let inverse {
                undoSteps.append(inverse)
                return edit
            }
        }
        return nil
    }

    /// `ranges` and the copies an undo made of any of their text that was deleted, and the
    /// copies of those (Yjs's `followRedone`): undoing an insert takes back its text wherever an
    /// undo put it back.
    private func withCopies(_ ranges: [DeleteRange]) -> [DeleteRange] {
        var all = ranges
        var index = 0
        while index < all.count {
            let range = all[index]
            for copy in redone where copy.original.client == range.client {
                let start = max(range.clock, copy.original.clock)
                let end = min(range.clock + range.length, copy.original.clock + copy.original.length)
                if start < end {
                    all.append(DeleteRange(client: clientID, clock: copy.copy + (start - copy.original.clock), length: end - start))
                }
            }
            index += 1
        }
        return all
    }

    /// Joins this document's last `count` undo steps to the one before them, so that one undo
    /// takes back a typed run as the editor's own undo does (Yjs's `UndoManager` joins the edits
    /// of its capture timeout the same way). Steps join only when all of them insert, or all
    /// delete: an insert and a delete of its text undone together would bring the text back.
    public mutating func joinLastUndoSteps(_ count: Int) {
        guard count > 0, undoSteps.count > count else { return }
        let run = undoSteps.suffix(count + 1)
        guard run.allSatisfy({ $0.client == run.last!.client }) else { return }
        let inserts = run.allSatisfy { $0.deleted.isEmpty && !$0.inserted.isEmpty }
        let deletes = run.allSatisfy { $0.inserted.isEmpty && !$0.deleted.isEmpty }
        guard inserts || deletes else { return }
        let joined = UndoStep(inserted: run.flatMap(\.inserted), deleted: run.flatMap(\.deleted), client: run.last!.client)
        undoSteps.removeLast(count + 1)
        undoSteps.append(joined)
    }

    /// Takes `other`'s undo steps as the oldest of this document's, once `other`'s edits are in
    /// this document (its update applied): a member's own document of a note, typed in before
    /// the note went live, whose edits went into the shared document at the join. What they
    /// typed alone stays theirs to undo, one typed run a step, before the first edit they make
    /// in the shared document. `other`'s redo steps are not taken (a new edit drops them too).
    public mutating func takeUndoSteps(of other: LiveDocument) {
        let taken = other.clientID == clientID ? other.undoSteps : other.undoSteps.map { step in
            var step = step
            step.client = step.client ?? other.clientID
            return step
        }
        undoSteps.insert(contentsOf: taken, at: 0)
        keepUndoLimit()
    }

    mutating func record(_ step: UndoStep) {
        undoSteps.append(step)
        keepUndoLimit()
        redoSteps.removeAll()
    }

    /// The oldest steps go past the limit, a thousand at a time so that typing does not move
    /// the whole stack at each key.
    private mutating func keepUndoLimit() {
        if undoSteps.count > undoLimit + 1_000 { undoSteps.removeFirst(undoSteps.count - undoLimit) }
    }

    /// Deletes what `step` inserted and puts back what it deleted; returns the step that undoes
    /// that (nil when nothing changed) and the update.
    private mutating func perform(_ step: UndoStep) -> (UndoStep?, UndoneEdit) {
        let clock = store.state(of: clientID)
        store.startJournal()
        var deleted: [Handle] = []
        let inserter = step.client ?? clientID
        for range in withCopies(step.inserted.map { DeleteRange(client: inserter, clock: $0.lowerBound, length: $0.upperBound - $0.lowerBound) }) {
            _ = store.delete(range, deleted: &deleted)
        }
        let pieces = deleted.map { DeletedText(id: store[$0].id, units: Array(store.units(of: store[$0]))) }
        let ranges = deleted.map { DeleteRange(client: store[$0].id.client, clock: store[$0].id.clock, length: store[$0].length) }
        for piece in step.deleted {
            redone += store.restore(piece, as: clientID)
        }
        let now = store.state(of: clientID)
        let inverse = UndoStep(inserted: now > clock ? [clock..<now] : [], deleted: pieces)
        let update = Data(store.encodeUpdate(of: clientID, from: clock, deletes: ranges, root: root))
        let edit = UndoneEdit(update: update, changes: store.endJournal())
        return (inverse.inserted.isEmpty && inverse.deleted.isEmpty ? nil : inverse, edit)
    }
}
