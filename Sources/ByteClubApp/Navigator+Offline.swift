import Foundation
import ClubKit
import Remote
import TerminalUI

/// Opening a note while the server cannot be reached: from what this machine kept of it.
extension Navigator {
    /// Opens the note `session` was loading from what this machine keeps of it, when the server
    /// cannot be reached: the text cached when it was last opened, else the search index's copy
    /// (a search hit on a note never opened here). Editable, over the rev that copy was taken
    /// at: a save waits in the outbox and is merged with whatever the server has by then. False
    /// when neither holds it.
    func openCached(_ loading: NoteSession) -> Bool {
        guard let entry = loading.entry else { return false }
        if let cached = context.cachedNote(entry.path) {
            let when = timeOfDay(cached.saved)
            openKept(loading, text: cached.text, rev: cached.rev, banner: "the copy kept on this machine at \(when)",
                     message: "as kept at \(when)")
            return true
        }
        if let indexed = noteIndex.index?.indexedCopy(of: entry.path) {
            openKept(loading, text: indexed.text, rev: indexed.rev, banner: "the search index's copy",
                     message: "from the search index's copy")
            return true
        }
        return false
    }

    fileprivate func openKept(_ loading: NoteSession, text: String, rev: String?, banner: String, message: String) {
        guard let entry = loading.entry else { return }
        var session = loading
        session.setBase(rev, text: text)
        if var keptEntry = session.entry, keptEntry.rev != rev {
            keptEntry.rev = rev
            session.entry = keptEntry
        }
        session.editor = NoteEditorState(title: ClubLayout.title(of: entry.name), body: text, isNew: false)
        session.stage = .open
        session.banner = "Offline: \(banner); a save waits in the outbox"
        placeAtSearchHit(&session)
        context.update {
            $0.note = session
            $0.message = StatusMessage("Opened \"\(TerminalSafe.escape(entry.name))\" \(message): the server cannot be reached")
            $0.arriveAtPlace()
        }
    }
}
