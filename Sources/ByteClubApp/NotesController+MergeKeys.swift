import Foundation
import TerminalUI

/// The merge view's keys (``MergeView``): a choice for each conflict, moving between them, and
/// the ways out; the merge itself is ``NoteConflicts``' (NoteConflicts+Merge.swift).
extension NotesController {
    /// What the status bar says after Esc while the merge is being saved.
    static let closesOnceSaved = "Saving the merge… the note closes once it is saved"

    /// A key while the merge view is open; returns whether it was taken.
    func handleMergeKey(_ key: Key) -> Bool {
        guard let session = state.note, var merge = session.merge else { return false }
        guard let action = MergeView.bindings.action(for: key) else {
            // Ctrl and function keys go on (redraw, help, quit at once), `?` to help and Shift-Tab
            // to the other tab; nothing else may reach the list or the shell under the view.
            switch key {
            case .ctrl, .f, .backTab, .resize, .mouse, .char("?"): return false
            default: return true
            }
        }
        if session.isSaving {
            // The merge's save is in flight: no key reaches the note under the view, and Esc (or
            // c) cannot take back what the server may have already: it closes the note once
            // the save is done (its failure keeps the view open, saying why).
            if action == .cancel {
                context.update {
                    $0.note?.closeAfterSave = true
                    $0.message = StatusMessage(Self.closesOnceSaved)
                }
            } else {
                context.say(StatusMessage(session.closeAfterSave ? Self.closesOnceSaved : "Saving the merge…"))
            }
            return true
        }
        switch action {
        case .mine, .theirs, .both:
            merge.choose(action == .mine ? .mine : action == .theirs ? .theirs : .both)
            context.update { $0.note?.merge = merge }
            if merge.isResolved { conflicts.saveMerge() }
        case .next, .previous:
            merge.select(by: action == .next ? 1 : -1)
            context.update { $0.note?.merge = merge }
        case .up, .down, .pageUp, .pageDown, .top, .bottom:
            let page = max(1, merge.viewHeight - 1)
            let step = [MergeView.Action.up: -1, .down: 1, .pageUp: -page, .pageDown: page, .top: -Int.max / 2, .bottom: Int.max / 2][action] ?? 0
            merge.scroll(by: step)
            context.update { $0.note?.merge = merge }
        case .save:
            conflicts.saveMerge()
        case .overwrite, .saveCopy, .reloadTheirs, .cancel:
            context.update { $0.note?.merge = nil }
            switch action {
            case .overwrite: conflicts.overwrite()
            case .saveCopy: conflicts.saveAsCopy()
            case .reloadTheirs: conflicts.reloadTheirs()
            default: context.say(StatusMessage("Not merged; your text is kept as a draft · Ctrl-R merges again"))
            }
        }
        return true
    }
}
