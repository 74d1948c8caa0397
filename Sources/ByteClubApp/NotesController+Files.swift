import Foundation
import Remote
import TerminalUI

/// Deleting and renaming notes, and the delete confirmation the photos share.
extension NotesController {
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
            let store = self.context.store
            self.context.perform({ () async throws(RemoteError) in
                try await store.move(from: entry.path, to: folder + "/" + name, autorename: false)
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
            refresher.refresh(.notes, select: moved.pathLower)
            linkRenames.renamed(entry, to: moved)
        case .failure(.conflict):
            context.say(.error("A note named \"\(TerminalSafe.escape(name))\" already exists"))
        case .failure(let error) where error.isUnreachable && outbox != nil:
            queueRename(entry, to: name)
        case .failure(let error):
            context.say(.error("Could not rename \"\(TerminalSafe.escape(entry.name))\": \(error.message)"))
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
        let store = context.store
        context.perform({ () async throws(RemoteError) in try await store.delete(entry.path) }) { [weak refresher] result in
            context.update { $0.endRequest() }
            switch result {
            case .success:
                deleted()
                context.say(StatusMessage("Deleted \"\(TerminalSafe.escape(entry.name))\""))
                refresher?.refresh(tab)
            case .failure(let error) where error.isUnreachable && offline != nil:
                offline?()
            case .failure(let error):
                context.say(.error("Could not delete \"\(TerminalSafe.escape(entry.name))\": \(error.message)"))
            }
        }
    } }
}
