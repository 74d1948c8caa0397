import ClubKit

/// The others' carets in a live note follow this member's own edits.
///
/// A member's caret is a UTF-16 offset: where their cursor message (sent at their last key) or
/// their last change put it. Their changes move the others' carets as they arrive
/// (``LiveNotes/shifted(_:at:removed:inserted:)`` in `apply`); this member's own edits must
/// move them too, or a word typed before a member's caret leaves their caret and name tag
/// behind, on text that is not theirs, until they press a key and send their cursor again.
extension LiveNotes {
    /// This member's edit, from `old` (the shared document's text) to `new` (the editor's, with
    /// its cursor at `cursor`), as it goes into the document: the carets after it move with
    /// their text, one where the edit begins stays before it (as the member's own app keeps
    /// its cursor before text put in at its place).
    func othersFollow(ownEditFrom old: @autoclosure () -> String, to new: @autoclosure () -> String, cursor: @autoclosure () -> Int) {
        guard let cursors = state.note?.live?.cursors, !cursors.isEmpty else { return }
        let (old, new) = (old(), new())
        guard old != new else { return }
        let change = LiveNote.difference(from: old, to: new, cursor: cursor())
        othersFollow(ownEdit: change.removed, inserted: change.inserted.utf16.count)
    }

    /// This member's edit as the editor made it: UTF-16 `range` of the document's text replaced
    /// by `inserted` units.
    func othersFollow(ownEdit range: Range<Int>, inserted: Int) {
        guard let cursors = state.note?.live?.cursors, !cursors.isEmpty else { return }
        let moved = Self.shifted(cursors, at: range.lowerBound, removed: range.count, inserted: inserted)
        if moved != cursors { context.model.updateQuietly { $0.note?.live?.cursors = moved } }
    }
}
