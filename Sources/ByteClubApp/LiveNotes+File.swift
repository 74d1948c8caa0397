import Foundation
import LiveText
import ClubKit
import Remote
import TerminalUI

/// The open live note's file: this member's saves of it, and the revisions others (or the
/// server) write (docs/live.md, "The file").
extension LiveNotes {
    /// A save of the open note begins with `text` (this member writes it: the writer after a
    /// pause, or Ctrl-S).
    func saving(_ text: String) {
        guard everJoined || resumed, state.note?.entry?.id == openID else { return }
        syncLocal()
        note?.writing(text)
    }

    /// This member's save of `text` is in the file: the shared document's new file base, and
    /// when the text was the document's, a mark to the room that the revision came from it (a
    /// member back in the note then does not merge it in again: ``LiveNote/joined(editorText:openedText:)``).
    func saved(_ text: String) {
        guard everJoined || resumed, state.note?.entry?.id == openID, var note else { return }
        let mark = note.written(text)
        self.note = note
        if let mark { socket?.send(update: mark) }
    }

    /// A revision of the open note saved by `who`: when the shared text holds it, it is taken as
    /// the new base with no banner and no merge. Returns whether it is looked at here.
    ///
    /// When the server writes the note, every revision is: one whose text the shared text holds
    /// (its mark came through the room) is the new base; any other was made outside the live
    /// note, and the server merges it into the shared text after its pause, as its own edit that
    /// reaches this editor, then writes the result (which comes back here, held). Reloaded or
    /// bannered here instead, the editor's text went into the room whole, and the others' words
    /// typed since the last revision with it.
    ///
    /// When members write it, a revision by a member in the note is (the shared text holds it). A
    /// change from anyone else (another tool, WebDAV, a member not in the note) goes the usual
    /// way: a banner, `Ctrl-R` or the save merges it, and the merged text then goes into the
    /// shared text as this member's edit.
    func fileChanged(_ entry: RemoteEntry, by who: String?) -> Bool {
        guard isLive, let session = state.note, session.entry?.id == openID, !session.isSaving, let live = session.live else { return false }
        let byMember = who.map { live.members.contains($0) } ?? false
        guard serverWrites || byMember else { return false }
        let serverWrites = serverWrites
        let store = context.store
        context.perform({ () async throws(RemoteError) in try await store.read(entry.path) }) { [weak self] result in
            guard let self, case .success(let (data, current)) = result, let text = String(validating: data, as: UTF8.self),
                  let now = self.state.note, now.entry?.id == self.openID, !now.isSaving else { return }
            // The server's revision (or a member's save) names its text in the room; any other
            // was made outside the live note, and the server merges it in.
            if serverWrites, self.note?.holdsRevision(text) != true, self.note?.text != text {
                self.context.logger.info("live: a revision of the open note made outside it; the server merges it in")
                return
            }
            self.note?.fileTaken(text)
            // The file holds this member's whole text: nothing of it is unsaved, so its draft goes
            // (it was kept, and counted at the next start as unsaved work the club already held).
            let whole = now.editor.body.text == text
            if whole { self.context.configuration.drafts?.removeIfOurs(now.draftID) }
            self.context.update { state in
                state.note?.entry = current
                state.note?.setBase(current.rev, text: text)
                // A change made outside, now in the shared text (the server merged it in).
                if state.note?.remoteChange != nil {
                    state.note?.remoteChange = nil
                    state.note?.banner = nil
                }
                if state.note?.editor.body.text == text, let version = state.note?.version {
                    state.note?.savedVersion = version
                    state.note?.journalledVersion = version
                }
                if whole { state.drafts.removeAll { $0.id == now.draftID } }
            }
        }
        return true
    }
}
