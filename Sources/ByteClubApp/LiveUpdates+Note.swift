import Foundation
import Remote
import TerminalUI

/// The open note, when another member changes it: reloaded in place when it has no local
/// edits (the cursor kept), or a banner above the editor when it has, with the change kept in
/// ``NoteSession/remoteChange`` for the merge (Ctrl-R) to take. When another member deletes it,
/// the banner says `Deleted by NAME` at once (``NoteSession/remoteDeletion``).
extension LiveUpdates {
    /// Looks for the open note among the changed notes.
    func openNoteChanged(_ events: [LiveEvent]) {
        guard let session = context.state.note, session.stage != .loading, let open = session.entry else { return }
        if let deletion = events.last(where: { $0.entry.pathLower == open.pathLower }), deletion.kind == .deleted {
            // Our own rename in flight moves the note away from this path: that is no deletion
            // (its addition is paired with it as a rename, unless it came in a later page).
            if session.isSaving, session.fileName != open.name { return }
            guard session.remoteDeletion == nil else { return }
            let draftID = session.draftID
            whoDeleted(open.path) { [weak self] who in
                guard let self, let who, let now = self.context.state.note, now.draftID == draftID,
                      now.entry?.pathLower == open.pathLower, now.remoteDeletion == nil else { return }
                self.context.update {
                    $0.note?.markDeleted(by: who)
                    // The list's "Someone deleted …" could not name anyone; now we can.
                    if who != Self.unknownMember { $0.message = StatusMessage(deletion.sentence(by: who, tab: .notes)) }
                }
            }
            return
        }
        // Back after a deletion (restored, or written again): a change like any other.
        let kinds: Set<LiveEvent.Kind> = session.remoteDeletion == nil ? [.changed] : [.changed, .added]
        guard let event = events.last(where: { kinds.contains($0.kind) && $0.entry.pathLower == open.pathLower }),
              let rev = event.entry.rev, rev != session.baseRev, rev != session.remoteChange?.rev else { return }
        // Our own save landing: while it is in flight or queued. Another change by our account
        // (the shell, another window) is news like any other, said as yours.
        if session.isSaving || session.queuedItem != nil, me == nil || event.entry.modifiedBy == nil || event.entry.modifiedBy == me { return }
        // A name, or words: an account id is never shown where a name belongs.
        let who = author(of: event.entry.modifiedBy) ?? MergeSession.someone
        let byName = name(of: event.entry.modifiedBy)
        // A note the server writes from its room: every revision is the live note's to take
        // (the server names the first who typed, maybe us; one made outside, it merges in).
        if liveNotes?.serverWrites == true, liveNotes?.fileChanged(event.entry, by: byName) == true { return }
        // A live note's revisions of our account are this app's own (its room's writer).
        if session.live != nil, let me, event.entry.modifiedBy == me { return }
        // A live note takes the revision of a member in it as its base (the shared text holds it).
        if liveNotes?.fileChanged(event.entry, by: byName) == true { return }
        if !session.isModified, session.isEditing, !session.isReadOnly {
            reload(event.entry, who: who, draftID: session.draftID)
        } else {
            let change = RemoteNoteChange(entry: event.entry, who: who, when: event.entry.modified ?? context.configuration.format.now())
            let banner = Self.banner(for: change, format: context.configuration.format)
            context.update {
                $0.note?.remoteDeletion = nil
                $0.note?.remoteChange = change
                $0.note?.banner = banner
            }
        }
    }

    /// The notes kept open behind the one on screen (OpenNotes.swift), when another member
    /// changes or deletes one: never reloaded (each has unsaved edits, or was left on purpose),
    /// but marked as the open note is, so it shows the banner and Ctrl-R merges when it is back.
    func keptNotesChanged(_ events: [LiveEvent]) {
        for kept in context.state.buffers.parked {
            guard let open = kept.entry, let event = events.last(where: { $0.entry.pathLower == open.pathLower }) else { continue }
            let draftID = kept.draftID
            if event.kind == .deleted {
                guard kept.remoteDeletion == nil else { continue }
                whoDeleted(open.path) { [weak self] who in
                    guard let who else { return }
                    self?.context.update { $0.updateParked(draftID: draftID) { $0.markDeleted(by: who) } }
                }
                continue
            }
            guard let rev = event.entry.rev, rev != kept.baseRev, rev != kept.remoteChange?.rev else { continue }
            if kept.isSaving || kept.queuedItem != nil, me == nil || event.entry.modifiedBy == nil || event.entry.modifiedBy == me { continue }
            let who = author(of: event.entry.modifiedBy) ?? MergeSession.someone
            let change = RemoteNoteChange(entry: event.entry, who: who, when: event.entry.modified ?? context.configuration.format.now())
            let banner = Self.banner(for: change, format: context.configuration.format)
            context.update {
                $0.updateParked(draftID: draftID) { note in
                    note.remoteDeletion = nil
                    note.remoteChange = change
                    note.banner = banner
                }
            }
        }
    }

    /// Who deleted the note at `path`: the server's `deleted_by` in its revisions (a club
    /// server's; Dropbox names no one), as a member's name, or "another member". Calls back on
    /// the UI queue, with nil when the server says the note is there again (restored or
    /// written anew meanwhile: the change that put it back comes as a change).
    func whoDeleted(_ path: String, then deliver: @escaping @MainActor (String?) -> Void) {
        let store = context.store
        context.perform({ () async throws(RemoteError) in try await store.revisions(path, limit: 1) }) { [weak self] result in
            guard let self else { return }
            let id: String?
            switch result {
            case .success(let revisions) where !revisions.isDeleted: return deliver(nil)
            case .success(let revisions): id = revisions.deletedBy
            case .failure: id = nil
            }
            guard let id else { return deliver(self.author(of: nil) ?? Self.unknownMember) }
            self.withNames(of: [id]) { [weak self] in
                deliver(self?.author(of: id) ?? Self.unknownMember)
            }
        }
    }

    /// Who did it, when the server cannot say.
    nonisolated static let unknownMember = "another member"

    /// "Changed by ray at 10:42 · Ctrl-R merge now" (the name is the server's, so escaped).
    static func banner(for change: RemoteNoteChange, format: DisplayFormat) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = format.timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: change.when)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        return "Changed by \(TerminalSafe.escape(change.who)) at \(time) · Ctrl-R merge now"
    }

    /// Downloads the newer text and puts it in the editor, unless the note was edited, closed
    /// or saved meanwhile (then the next change, or the save's conflict, takes over).
    private func reload(_ entry: RemoteEntry, who: String, draftID: String) {
        let store = context.store
        context.perform({ () async throws(RemoteError) in try await store.read(entry.path) }) { [weak self] result in
            guard let self, case .success(let (data, current)) = result, let text = String(validating: data, as: UTF8.self) else { return }
            guard let session = self.context.state.note, session.draftID == draftID, session.isEditing,
                  !session.isModified, session.baseRev != current.rev else { return }
            let title = TerminalSafe.escape(ClubLayout.title(of: current.name))
            self.context.update { state in
                guard var note = state.note else { return }
                let old = note.editor
                var editor = NoteEditorState(title: ClubLayout.title(of: current.name), body: text, isNew: false)
                editor.focus = old.focus
                editor.body.moveCursor(to: old.body.cursor)
                note.editor = editor
                note.editorCleanIsSaved = true  // the server's text, freshly opened
                note.entry = current
                note.setBase(current.rev, text: text)
                note.remoteChange = nil
                if note.remoteDeletion != nil { note.banner = nil }
                note.remoteDeletion = nil
                state.note = note
                state.message = StatusMessage("Reloaded \"\(title)\": \(TerminalSafe.escape(who)) changed it")
            }
        }
    }
}
