import Foundation
import Remote
import TerminalUI

/// Notes while the server cannot be reached: saves, renames and deletes go to the outbox
/// (OutboxRunner), and come back here when the server confirmed them.
///
/// A queued save keeps its draft (the row shows ⇡, the text reopens from it after a restart);
/// the draft goes only once the server has exactly that text.
extension NoteSaves {
    /// The outbox, when the app has one (tests without one see the old errors).
    var outbox: OutboxRunner? { configuration.outbox == nil ? nil : outboxRunner }

    /// Queues the open note's text: a create for a new note, else a save at the rev it was
    /// opened at, after a rename when the title changed. The editor stays open and counts the
    /// text as saved (it is on disk twice: the draft and the outbox).
    func queueSave(name: String) {
        guard let outbox, var session = state.note else { return }
        // The text the server (or the outbox) has already, under the same name: nothing to
        // queue, so no second item waits to send what is there.
        if let entry = session.entry, !session.isModified, entry.name == name, session.remoteDeletion == nil {
            session.closeAfterSave = false
            context.update {
                $0.note = session
                $0.message = StatusMessage("No changes to save in \"\(TerminalSafe.escape(name))\"")
            }
            return
        }
        let items = saveItems(session, name: name)
        let waiting = state.offline.waiting + items.count
        let why = state.offline.isOffline ? "the server cannot be reached" : "older changes are still being sent"
        guard outbox.queue(items, saying: "Saved \"\(name)\" in the outbox (\(waiting) waiting): \(why); it is sent by itself") else {
            session.closeAfterSave = false
            context.update { $0.note = session }
            return
        }
        markQueued(items.map(\.id))
    }

    /// The outbox items that save `session`'s text as `name`: a create for a new note, else a
    /// save at the rev it was opened at, after a rename when the title changed; each follows
    /// what this editor queued before, if that still waits.
    func saveItems(_ session: NoteSession, name: String) -> [OutboxItem] {
        let target = session.saveFolder(root: configuration.layout.folder) + "/" + name
        let now = configuration.format.now()
        let text = session.editor.body.text
        let title = ClubLayout.title(of: name)
        let pending = outboxRunner?.pending ?? []
        // What this editor queued before, if it still waits: the new items follow it.
        let earlier = session.queuedItem.flatMap { id in pending.first { $0.id == id } }
        var items: [OutboxItem] = []
        func add(_ kind: OutboxItem.Kind, _ path: String, newPath: String? = nil, baseRev: String?, text: String? = nil) {
            items.append(OutboxItem(kind: kind, path: path, newPath: newPath, baseRev: baseRev, title: title, text: text,
                                    draftID: session.draftID, follows: items.last?.id ?? earlier?.id, queued: now))
        }
        if let entry = session.entry {
            if entry.pathLower != target.lowercased() || entry.name != name {
                add(.rename, entry.path, newPath: target, baseRev: session.baseRev)
            }
            add(.save, entry.path, baseRev: session.baseRev, text: text)
            // The text this was written on, the merge's base: the draft's as another shell took
            // it and saved it (`byteclub edit`), else the text at that rev, for a merge where
            // the server keeps no revisions (WebDAV).
            items[items.count - 1].baseText = edits.handedOverBase(of: session) ?? session.baseText
        } else if let create = pending.last(where: { $0.draftID == session.draftID && ($0.kind == .create || $0.kind == .rename) }) {
            // A new note whose create still waits: this save follows it (a new title is a
            // rename of what the create makes), never a second note.
            let path = create.newPath ?? create.path
            // No base rev yet: each takes the rev the item before it makes.
            if path.lowercased() != target.lowercased() || (path as NSString).lastPathComponent != name {
                items.append(OutboxItem(kind: .rename, path: path, newPath: target, title: title, draftID: session.draftID,
                                        follows: earlier?.id ?? create.id, queued: now))
            }
            items.append(OutboxItem(kind: .save, path: path, title: title, text: text, draftID: session.draftID,
                                    follows: items.last?.id ?? earlier?.id ?? create.id, queued: now))
            // The text it is written on: what this editor queued last. Should another process
            // send those items first, the sender finds the note they made by it.
            items[items.count - 1].baseText = pending.last { $0.draftID == session.draftID && $0.text != nil }?.text
        } else {
            add(.create, target, baseRev: nil, text: text)
        }
        return items
    }

    /// The open note's save waits in the outbox (`items`): sent as far as the user is concerned
    /// (Esc closes without asking, quitting does not ask); the draft stays until the server
    /// has the text, and its row shows it as journalled. `version` is the editor's version the
    /// items hold (nil: the text now): text typed since the save was sent stays unsaved, `[+]`.
    func markQueued(_ items: [String], version: Int? = nil) {
        guard var session = state.note else { return }
        let typedSince = version.map { $0 != session.version } ?? false
        let close = session.closeAfterSave && !typedSince
        session.closeAfterSave = false
        session.savedVersion = version ?? session.version
        session.editorCleanIsSaved = false  // the server does not have it yet
        session.save.queued(items, at: context.effects.now())
        // The draft as journalled before the save (not read back from disk).
        let kept = configuration.drafts == nil ? nil : session.draft(at: configuration.format.now())
        context.update {
            $0.note = close ? nil : session
            if let kept {
                if let draft = $0.drafts.firstIndex(where: { $0.id == session.draftID }) {
                    $0.drafts[draft] = kept
                } else {
                    $0.drafts.insert(kept, at: 0)
                }
            }
        }
        if close { showInList(session) }
    }

}
