import Foundation
import ClubKit
import Remote
import TerminalUI

/// The Notes tab's files and folders: a note or draft deleted, a note renamed, folders made,
/// renamed, deleted and moved into (NoteFilesController+Folders.swift), each offering to update
/// the links that named the old place; while the server cannot be reached, renames and deletes
/// go to the outbox. The note being edited is the ``NotesController``'s.
@MainActor
final class NoteFilesController {
    let context: AppContext
    let refresher: Refresher
    /// Offers to update the links to a renamed or moved note or folder.
    let linkRenames: LinkRenames
    /// Where renames and deletes go while the server cannot be reached.
    weak var outboxRunner: OutboxRunner?

    init(context: AppContext, refresher: Refresher, linkRenames: LinkRenames) {
        self.context = context
        self.refresher = refresher
        self.linkRenames = linkRenames
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }
    /// The outbox, when the app has one (tests without one see the old errors).
    var outbox: OutboxRunner? { configuration.outbox == nil ? nil : outboxRunner }
    /// The item under the notes list's selection.
    var selectedItem: NoteItem? { state.selectedNoteItem(in: context.model.noteListing) }

    /// `d` / `Delete`: asks, then deletes the selected note (or drops the selected draft).
    func deleteSelected() {
        guard let item = selectedItem else { return }
        switch item {
        case .folder(let folder):
            if !folder.isParent { deleteFolder(folder) }
        case .draft(let draft):
            let modal = Modal(title: "Delete draft", body: ["Drop the draft \"\(TerminalSafe.escape(draft.title.isEmpty ? "untitled" : draft.title))\"? Its text is lost."],
                              buttons: ["Delete", "Cancel"])
            context.ask { DialogLayer(modal, selected: 1) { [weak self] choice in
                guard choice == 0, let self else { return }
                // Its changes waiting in the outbox go with it: dropped means not sent.
                self.dropQueued(draftID: draft.id)
                self.configuration.drafts?.remove(draft.id)
                self.context.update {
                    $0.drafts.removeAll { $0.id == draft.id }
                    $0.message = StatusMessage("Draft dropped")
                }
            } }
        case .file(let entry):
            confirmDelete(entry, kind: "file", tab: .notes, context: context, refresher: refresher, offline: nil) {}
        case .note(let entry, _):
            var offline: (@MainActor () -> Void)?
            if outbox != nil { offline = { [weak self] in self?.queueDelete(entry) } }
            confirmDelete(entry, kind: "note", tab: .notes, context: context, refresher: refresher, offline: offline) { [weak self] in
                // A note deleted while open, without changes, closes; one with changes stays open
                // (its text can still be saved as a new note).
                guard let self, let note = self.state.note, note.entry?.pathLower == entry.pathLower, !note.isModified else { return }
                self.context.update { $0.note = nil }
            }
        }
    }

    /// `R`: renames the selected note with `move_v2`; the prompt starts with its title.
    func renameSelected() {
        if case .folder(let folder)? = selectedItem, !folder.isParent { return renameFolder(folder) }
        guard case .note(let entry, _)? = selectedItem else { return }
        let folder = NotesFolder.parent(of: entry.path)
        context.ask { PromptLayer(
            title: "Rename note", body: ["New title for \"\(TerminalSafe.escape(entry.name))\":"], text: ClubLayout.title(of: entry.name),
            validate: { NoteSession.titleProblem($0) }
        ) { [weak self] text in
            guard let self, let text else { return }
            let name = NoteSession.fileName(forTitle: text, replacing: entry.name)
            guard name != entry.name else { return }
            if self.outbox?.shouldQueue ?? false {
                self.queueRename(entry, to: name)
                return
            }
            self.context.update {
                $0.beginRequest()
                $0.message = StatusMessage("Renaming \"\(TerminalSafe.escape(entry.name))\"…")
            }
            let writes = self.context.writes
            self.context.perform({ () async throws(RemoteError) in
                try await writes.move(from: entry.path, to: folder + "/" + name)
            }) { [weak self] result in
                self?.renamed(entry, to: name, result)
            }
        } }
    }

    private func renamed(_ entry: RemoteEntry, to name: String, _ result: Result<RemoteEntry, RemoteError>) {
        context.update { $0.endRequest() }
        switch result {
        case .success(let moved):
            context.update {
                if var session = $0.note, session.entry?.pathLower == entry.pathLower {
                    session.entry = moved
                    session.baseRev = moved.rev
                    if !session.isModified { session.editor.title.text = ClubLayout.title(of: moved.name) }
                    $0.note = session
                }
                $0.message = StatusMessage("Renamed to \"\(TerminalSafe.escape(moved.name))\"")
            }
            refresher.took(moveFrom: entry.path, to: moved)
            linkRenames.renamed(entry, to: moved)
        case .failure(.conflict):
            context.say(.error("A note named \"\(TerminalSafe.escape(name))\" already exists"))
        case .failure(let error) where error.isUnreachable && outbox != nil:
            queueRename(entry, to: name)
        case .failure(let error):
            context.say(.error("Could not rename \"\(TerminalSafe.escape(entry.name))\": \(error.message)"))
        }
    }

    // MARK: Offline

    /// A rename made offline: queued, and shown at once under its new name.
    func queueRename(_ entry: RemoteEntry, to name: String) {
        guard let outbox else { return }
        let target = NotesFolder.parent(of: entry.path) + "/" + name
        let item = OutboxItem(kind: .rename, path: entry.path, newPath: target, baseRev: entry.rev,
                              title: ClubLayout.title(of: name), follows: queuedRename(to: entry)?.id, queued: configuration.format.now())
        guard outbox.queue([item], saying: "Renamed \"\(TerminalSafe.escape(entry.name))\" to \"\(name)\" in the outbox; it is sent by itself") else { return }
        context.update { state in
            guard let index = state.notes.entries.firstPosition(ofPathLower: entry.pathLower) else { return }
            state.notes.entries.edit { entries in
                entries[index].name = name
                entries[index].path = target
                entries[index].pathLower = target.lowercased()
            }
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
        outbox?.pending.last { $0.kind == .rename && $0.newPath?.lowercased() == entry.pathLower }
    }

    /// Removes what waits in the outbox for the draft `draftID` (the user dropped it).
    func dropQueued(draftID: String) {
        outbox?.drop(draftID: draftID)
    }

    /// A delete made offline: queued (sent only if nobody changed the note meanwhile), and the
    /// row goes at once.
    func queueDelete(_ entry: RemoteEntry) {
        guard let outbox else { return }
        let item = OutboxItem(kind: .delete, path: entry.path, baseRev: entry.rev, title: ClubLayout.title(of: entry.name),
                              follows: queuedRename(to: entry)?.id, queued: configuration.format.now())
        guard outbox.queue([item], saying: "Deleted \"\(TerminalSafe.escape(entry.name))\" in the outbox; it is sent by itself") else { return }
        context.update { state in
            let table = state.notes.entries
            state.notes.entries = table.filtered { !table.field(.pathLower, at: $0, is: entry.pathLower) }
            state.notes.version += 1
            if let session = state.note, session.entry?.pathLower == entry.pathLower, !session.isModified { state.note = nil }
        }
    }
}


/// Asks "Delete x from the club folder?" (Cancel the default), then deletes and refreshes `tab`.
@MainActor
///
/// `offline`, when given, queues the delete instead while the server cannot be reached (or
/// older changes wait), and when the delete finds the server gone.
func confirmDelete(_ entry: RemoteEntry, kind: String, tab: Tab, context: AppContext, refresher: Refresher,
                   offline: (@MainActor () -> Void)? = nil, then deleted: @escaping @MainActor () -> Void) {
    let modal = Modal(title: "Delete \(kind)", body: ["Delete \"\(TerminalSafe.escape(entry.name))\" from the club folder?"], buttons: ["Delete", "Cancel"])
    context.ask { DialogLayer(modal, selected: 1) { choice in
        guard choice == 0 else { return }
        if let offline, context.state.offline.isOffline || context.state.offline.waiting > 0 {
            offline()
            return
        }
        context.update {
            $0.beginRequest()
            $0.message = StatusMessage("Deleting \"\(TerminalSafe.escape(entry.name))\"…")
        }
        let writes = context.writes
        context.perform({ () async throws(RemoteError) in try await writes.delete(entry.path) }) { [weak refresher] result in
            context.update { $0.endRequest() }
            switch result {
            case .success:
                deleted()
                context.say(StatusMessage("Deleted \"\(TerminalSafe.escape(entry.name))\""))
                refresher?.took(tab, [Refresher.gone(entry)])
            case .failure(let error) where error.isUnreachable && offline != nil:
                offline?()
            case .failure(let error):
                context.say(.error("Could not delete \"\(TerminalSafe.escape(entry.name))\": \(error.message)"))
            }
        }
    } }
}
