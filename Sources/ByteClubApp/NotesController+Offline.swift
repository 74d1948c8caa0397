import Foundation
import Remote
import TerminalUI

/// Notes while the server cannot be reached: saves, renames and deletes go to the outbox
/// (OutboxRunner), and come back here when the server confirmed them.
///
/// A queued save keeps its draft (the row shows ⇡, the text reopens from it after a restart);
/// the draft goes only once the server has exactly that text.
extension NotesController {
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
            session.phase = .editing
            context.update {
                $0.note = session
                $0.message = StatusMessage("No changes to save in \"\(TerminalSafe.escape(name))\"")
            }
            return
        }
        let target = configuration.layout.folder + "/" + name
        let now = configuration.format.now()
        let text = session.editor.body.text
        let title = ClubLayout.title(of: name)
        let pending = context.configuration.outbox?.all() ?? []
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
            // The text at that rev, for a merge where the server keeps no revisions (WebDAV).
            items[items.count - 1].baseText = session.baseText
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
        } else {
            add(.create, target, baseRev: nil, text: text)
        }
        let waiting = state.offline.waiting + items.count
        let why = state.offline.isOffline ? "the server cannot be reached" : "older changes are still being sent"
        guard outbox.queue(items, saying: "Saved \"\(name)\" in the outbox (\(waiting) waiting): \(why); it is sent by itself") else {
            session.closeAfterSave = false
            context.update { $0.note = session }
            return
        }
        // Sent as far as the user is concerned: Esc closes without asking, quitting does not
        // ask; the draft stays until the server has the text.
        let close = session.closeAfterSave
        session.closeAfterSave = false
        session.savedVersion = session.version
        session.editorCleanIsSaved = false  // the server does not have it yet
        session.phase = .editing
        session.queuedItem = items.last?.id
        context.update {
            $0.note = close ? nil : session
            // The draft keeps the text until the server has it: its row shows it as journalled.
            if let drafts = configuration.drafts, let kept = drafts.load(session.draftID) {
                if let draft = $0.drafts.firstIndex(where: { $0.id == session.draftID }) {
                    $0.drafts[draft] = kept
                } else {
                    $0.drafts.insert(kept, at: 0)
                }
            }
        }
        if close { showInList(session) }
    }

    /// A rename made offline: queued, and shown at once under its new name.
    func queueRename(_ entry: RemoteEntry, to name: String) {
        guard let outbox else { return }
        let target = configuration.layout.folder + "/" + name
        let item = OutboxItem(kind: .rename, path: entry.path, newPath: target, baseRev: entry.rev,
                              title: ClubLayout.title(of: name), follows: queuedRename(to: entry)?.id, queued: configuration.format.now())
        guard outbox.queue([item], saying: "Renamed \"\(TerminalSafe.escape(entry.name))\" to \"\(name)\" in the outbox; it is sent by itself") else { return }
        context.update { state in
            guard let index = state.notes.entries.firstIndex(where: { $0.pathLower == entry.pathLower }) else { return }
            var renamed = state.notes.entries[index]
            renamed.name = name
            renamed.path = target
            renamed.pathLower = target.lowercased()
            state.notes.entries[index] = renamed
            state.notes.version += 1
            if var session = state.note, session.entry?.pathLower == entry.pathLower, !session.isModified {
                session.editor.title.text = ClubLayout.title(of: name)
                state.note = session
            }
        }
    }

    /// The rename still waiting that gave `entry` its name (a row renamed offline shows the new
    /// name with the old rev): a change of that row follows it, to the path and rev it makes.
    func queuedRename(to entry: RemoteEntry) -> OutboxItem? {
        configuration.outbox?.all().last { $0.kind == .rename && $0.newPath?.lowercased() == entry.pathLower }
    }

    /// Removes what waits in the outbox for the draft `draftID` (the user dropped it).
    func dropQueued(draftID: String) {
        guard let queue = configuration.outbox else { return }
        for item in queue.all() where item.draftID == draftID { try? queue.remove(item) }
        outbox?.refreshCounts()
    }

    /// A delete made offline: queued (sent only if nobody changed the note meanwhile), and the
    /// row goes at once.
    func queueDelete(_ entry: RemoteEntry) {
        guard let outbox else { return }
        let item = OutboxItem(kind: .delete, path: entry.path, baseRev: entry.rev, title: ClubLayout.title(of: entry.name),
                              follows: queuedRename(to: entry)?.id, queued: configuration.format.now())
        guard outbox.queue([item], saying: "Deleted \"\(TerminalSafe.escape(entry.name))\" in the outbox; it is sent by itself") else { return }
        context.update { state in
            state.notes.entries.removeAll { $0.pathLower == entry.pathLower }
            state.notes.version += 1
            if let session = state.note, session.entry?.pathLower == entry.pathLower, !session.isModified { state.note = nil }
        }
    }

    /// The server confirmed an outbox item: the open note takes the new rev when it is the
    /// editor that queued the item (or holds exactly its text), and counts as saved if it still
    /// holds that text; the draft goes if it holds exactly that text and no later item needs it.
    /// `merged`: the server's rev holds someone else's change too, so nothing moves onto it.
    func outboxSent(_ item: OutboxItem, entry: RemoteEntry?, merged: Bool) {
        guard item.kind != .upload, item.kind != .delete, let entry else { return }
        if !merged, item.kind != .rename, let text = item.text {
            // What an offline open shows next time: the text the server now has.
            cacheText(Data(text.utf8), of: entry)
        }
        if var session = state.note, session.phase == .editing,
           session.draftID == item.draftID || session.entry?.pathLower == item.path.lowercased() {
            let sameText = session.editor.body.text == item.text
            let ours = session.queuedItem == item.id || sameText
            switch item.kind {
            case .rename:
                session.entry = entry
                // A rename moves the note, not its text: the base text stays.
                if !merged, session.baseRev == item.baseRev { session.setBase(entry.rev, text: session.baseText) }
            case .save, .create:
                if merged {
                    // Ours is in the merge; the editor reloads it unless more was typed since.
                    if sameText, session.version == session.savedVersion {
                        context.model.updateQuietly { $0.note = session }
                        load(entry)
                        return
                    }
                } else if ours, session.baseRev == item.baseRev {
                    session.entry = entry
                    session.setBase(entry.rev, text: item.text)
                    if sameText { session.savedVersion = session.version }
                }
            case .delete, .upload:
                break
            }
            context.update { $0.note = session }
        }
        guard let draftID = item.draftID, let drafts = configuration.drafts,
              !(context.configuration.outbox?.all().contains { $0.draftID == draftID } ?? false),
              let draft = drafts.load(draftID), draft.body == item.text else { return }
        // Only a draft holding exactly the text the server confirmed (a merge holds it too): a
        // newer one is the user's later work.
        if state.note?.draftID == draftID && state.note?.isModified == true { return }
        drafts.remove(draftID)
        context.update { $0.drafts.removeAll { $0.id == draftID } }
    }

    /// An outbox save came back unsent (the note changed on the server and the changes overlap):
    /// the open note, if it is that one, counts as unsaved again, so Ctrl-S brings up the merge
    /// view and Esc asks before anything is dropped.
    func outboxConflict(_ item: OutboxItem) {
        guard var session = state.note, session.draftID == item.draftID || session.entry?.pathLower == item.path.lowercased() else { return }
        // Over the base the draft was kept at: the next save conflicts and merges.
        if item.kind == .save { session.setBase(item.baseRev, text: item.baseText) }
        session.savedVersion = -1
        session.editorCleanIsSaved = false
        context.update { $0.note = session }
    }


}
