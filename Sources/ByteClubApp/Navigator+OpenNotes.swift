import Foundation
import Remote
import TerminalUI

/// Several open notes: the note on screen gives way to another (a followed link, a search hit,
/// a new note, `Alt-1`…`Alt-9`, the switcher) without closing when it has unsaved edits. It is
/// journalled to its draft first, so a crash loses nothing, and kept in ``AppState/buffers``
/// with its editor as it was; showing it again puts it back on screen, `[+]` and all.
extension Navigator {
    /// Makes room for another note: one with unsaved edits is kept open (its draft written
    /// first), one without is closed as `Esc` closes it, and one still loading is abandoned.
    /// `keep`: kept open even with nothing unsaved (the user switched notes on purpose).
    func leaveOpenNote(keep: Bool = false) {
        if state.noteView != nil { context.update { $0.noteView = nil } }
        if state.links.panel != nil { context.update { $0.links.panel = nil } }
        guard let session = state.note else { return }
        if session.stage == .loading {
            abandonLoad()
            return
        }
        guard keep || session.hasUnsavedEdits else {
            closeUnmodified()
            return
        }
        // The text on disk before it leaves the screen: a crash while it waits loses nothing.
        edits?.journal()
        context.update { $0.parkShownNote() }
    }

    /// Whether the note on screen may give way now: not while its save is on its way (the
    /// answer is for the editor that sent it), which the status bar says.
    func editorCanLeave() -> Bool {
        guard let note = state.note, note.isSaving else { return true }
        context.say(.error("Saving \"\(TerminalSafe.escape(note.displayName))\": wait for the server's answer, then go on"))
        return false
    }

    /// Shows the open note that is `entry` when one is kept open (at `arrival`, when given),
    /// the note on screen given way first. False when it is not open.
    func showOpen(_ entry: RemoteEntry, arrival: NotePlace? = nil) -> Bool {
        guard let index = state.parkedIndex(path: entry.path) else { return false }
        showParked(at: index, arrival: arrival, keep: false)
        return true
    }

    /// Shows the parked note at `index` of ``OpenNotes/parked``; the note on screen is kept
    /// open when it has unsaved edits, or whatever it has with `keep` (a switch on purpose).
    func showParked(at index: Int, arrival: NotePlace? = nil, keep: Bool) {
        guard state.buffers.parked.indices.contains(index), editorCanLeave() else { return }
        let wanted = state.buffers.parked[index].draftID
        leaveOpenNote(keep: keep)
        guard let at = state.parkedIndex(draftID: wanted) else { return }
        context.update {
            $0.showParked(at: at)
            if let arrival { $0.note?.arrival = arrival }
            $0.arriveAtPlace()
            let name = $0.note.map { TerminalSafe.escape($0.displayName) } ?? ""
            let unsaved = $0.note?.hasUnsavedEdits == true ? " (unsaved changes, [+])" : ""
            $0.message = StatusMessage("Open note \(($0.shownNoteIndex ?? 0) + 1) of \($0.openNotes.count): \(name)\(unsaved)")
        }
    }

    /// `Alt-1`…`Alt-9`: the open note of that number (from 0).
    func showOpenNote(number index: Int) {
        let all = state.openNotes
        guard all.indices.contains(index) else {
            context.say(StatusMessage(all.count <= 1 ? "Only one note is open: following a link keeps an edited note open"
                                                     : "Only \(all.count) notes are open (Alt-1…Alt-\(all.count))"))
            return
        }
        guard index != state.shownNoteIndex, let at = state.parkedIndex(draftID: all[index].draftID) else { return }
        showParked(at: at, keep: true)
    }

    /// The list's `Enter` on a note (or its draft) that is open already: it comes back as it
    /// was. False when it is not open.
    func showOpen(_ item: NoteItem) -> Bool {
        let index: Int?
        switch item {
        case .note(let entry, _): index = state.parkedIndex(path: entry.path)
        case .draft(let draft): index = state.parkedIndex(draftID: draft.id)
        case .folder, .file: index = nil
        }
        guard let index else { return false }
        showParked(at: index, keep: false)
        return true
    }
}
