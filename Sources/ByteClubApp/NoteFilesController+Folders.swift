import Foundation
import Remote
import TerminalUI

/// Folders in the Notes tab: up a folder, a new folder, a folder renamed or deleted, and a note
/// or a folder moved into another, each offering to update the links that named the old place.
extension NoteFilesController {
    /// `Backspace`, `←`: the folder above (the selection on the folder just left).
    func upFolder() {
        context.update { $0.upFolder() }
    }

    /// `N`: asks for a name, then makes the folder in the one shown and selects it.
    func newFolder() {
        guard mayChangeFolders() else { return }
        let parent = state.notesFolder.path
        let shownParent = state.notesFolder.isRoot ? "the club folder" : "\"\(TerminalSafe.escape(state.notesFolder.relative))\""
        context.ask { PromptLayer(title: "New folder", body: ["A new folder in \(shownParent):"], placeholder: "Folder name",
                                  validate: { Self.folderNameProblem($0) }) { [weak self] text in
            guard let self, let text else { return }
            let name = text.trimmingCharacters(in: .whitespaces)
            self.folderRequest("Making folder \"\(TerminalSafe.escape(name))\"…", { writes async throws(RemoteError) in try await writes.createFolder(parent + "/" + name) }) { made in
                self.refresher.took(.notes, [.updated(made)], select: made.pathLower)
                self.context.say(StatusMessage("Made folder \"\(TerminalSafe.escape(made.name))\""))
            }
        } }
    }

    /// `R` on a folder: asks for its new name, renames it with `move_v2`, and offers to update
    /// the links into it.
    func renameFolder(_ folder: FolderItem) {
        guard mayChangeFolders() else { return }
        context.ask { PromptLayer(title: "Rename folder", body: ["New name for the folder \"\(TerminalSafe.escape(folder.name))\":"], text: folder.name,
                                  validate: { Self.folderNameProblem($0) }) { [weak self] text in
            guard let self, let text else { return }
            let name = text.trimmingCharacters(in: .whitespaces)
            guard name != folder.name else { return }
            self.move(folder.path, to: NotesFolder.parent(of: folder.path) + "/" + name, saying: "Renamed the folder to \"\(TerminalSafe.escape(name))\"")
        } }
    }

    /// `d` on a folder: asks, saying how many notes go with it and, where the server keeps no
    /// history (WebDAV), that they cannot be restored; then deletes it.
    func deleteFolder(_ folder: FolderItem) {
        guard mayChangeFolders() else { return }
        let modal = Modal(title: "Delete folder", body: Self.deleteFolderQuestion(folder, keepsHistory: context.store.keepsHistory),
                          buttons: ["Delete", "Cancel"], width: 72)
        context.ask { DialogLayer(modal, selected: 1) { [weak self] choice in
            guard choice == 0, let self else { return }
            self.folderRequest("Deleting folder \"\(TerminalSafe.escape(folder.name))\"…", { writes async throws(RemoteError) in try await writes.delete(folder.path) }) { _ in
                self.refresher.took(.notes, [Refresher.gone(folder.path)])
                self.context.say(StatusMessage("Deleted the folder \"\(TerminalSafe.escape(folder.name))\""))
            }
        } }
    }

    /// The folder delete's question: the notes that go with it, by count, and whether they can
    /// be restored (a club server and Dropbox keep their history; WebDAV keeps none).
    static func deleteFolderQuestion(_ folder: FolderItem, keepsHistory: Bool) -> [String] {
        let name = "\"" + TerminalSafe.escape(folder.name) + "\""
        guard folder.notes > 0 else { return ["Delete the folder \(name)? It holds no notes."] }
        let count = "\(folder.notes) note\(folder.notes == 1 ? "" : "s")"
        let kept = keepsHistory
            ? "Their history stays on the server."
            : "This server keeps no history: \(folder.notes == 1 ? "it" : "they") cannot be restored."
        return ["Delete the folder \(name) and the \(count) in it?", kept]
    }

    /// `m`: the selected note (or folder) moved into a folder chosen from the club's folders.
    func moveSelectedToFolder() {
        let path: String, name: String
        switch selectedItem {
        case .note(let entry, _)?, .file(let entry)?: (path, name) = (entry.path, entry.name)
        case .folder(let folder)? where !folder.isParent: (path, name) = (folder.path, folder.name)
        default: return context.say(.error("Select a note or a folder to move"))
        }
        guard mayChangeFolders() else { return }
        let here = NotesFolder.parent(of: path).lowercased(), lower = path.lowercased()
        let places = state.allNoteFolders.filter { $0.lowercased() != here && $0.lowercased() != lower && !$0.lowercased().hasPrefix(lower + "/") }
        let root = state.notesFolder.root
        context.choose { Self.folderChooser(places.map { $0 == root ? "" : String($0.dropFirst(root.count + 1)) }, moving: name) { [weak self] chosen in
            guard let self, let chosen else { return }
            let target = (chosen.isEmpty ? root : root + "/" + chosen) + "/" + name
            self.move(path, to: target, saying: "Moved \"\(TerminalSafe.escape(name))\" to \(chosen.isEmpty ? "the club folder" : "\"" + TerminalSafe.escape(chosen) + "\"")")
        } }
    }

    /// A row dragged onto a folder's row (or the way up): it moves into that folder.
    func drop(from: Int, onto: Int) {
        let items = context.model.noteListing.items
        guard items.indices.contains(from), items.indices.contains(onto), case .folder(let folder) = items[onto] else { return }
        let path: String, name: String
        switch items[from] {
        case .note(let entry, _), .file(let entry): (path, name) = (entry.path, entry.name)
        case .folder(let moving) where !moving.isParent: (path, name) = (moving.path, moving.name)
        default: return
        }
        guard mayChangeFolders() else { return }
        let place = folder.path == state.notesFolder.root ? "the club folder" : "\"" + TerminalSafe.escape(folder.isParent ? NotesFolder.name(of: folder.path) : folder.name) + "\""
        move(path, to: folder.path + "/" + name, saying: "Moved \"\(TerminalSafe.escape(name))\" to \(place)")
    }

    /// The "Move to folder" list: the club's folders by path ("" is the club folder itself).
    static func folderChooser(_ folders: [String], moving name: String, onChoice: @escaping @MainActor (String?) -> Void) -> ChoiceListLayer<String> {
        ChoiceListLayer(title: "Move to folder", items: folders, columns: [ListColumn("Folder")],
                        row: { ListRow([$0.isEmpty ? "/ (the club folder)" : TerminalSafe.escape($0) + "/"]) }, enterDoes: "Move it into this folder",
                        hint: "Move \"\(TerminalSafe.escape(name))\" · Enter move · / filter · Esc close", emptyHint: "No other folder (N makes one)",
                        onChoice: onChoice)
    }

    /// A folder's name: what a file name may be, and no dot first (hidden).
    static func folderNameProblem(_ name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return "The folder needs a name" }
        if trimmed.contains("/") || trimmed.contains("\\") { return "A folder name cannot contain / or \\" }
        if trimmed.hasPrefix(".") { return "A folder name cannot start with a dot" }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "A folder name cannot contain control characters" }
        if trimmed.lowercased() == "photos" { return "\"photos\" is the PanoPhotos tab's folder" }
        if trimmed.utf8.count > 255 { return "The name is too long for a folder" }
        return nil
    }

    /// Moves `path` (a note or a folder) to `target`; the open note follows it, the list
    /// selects it, and the links that named the old place are offered an update.
    private func move(_ path: String, to target: String, saying done: String) {
        folderRequest("Moving \"\(TerminalSafe.escape(NotesFolder.name(of: path)))\"…", { writes async throws(RemoteError) in
            try await writes.move(from: path, to: target)
        }) { moved in
            let lower = path.lowercased()
            self.context.update { state in
                if var session = state.note, var entry = session.entry,
                   entry.pathLower == lower || entry.pathLower.hasPrefix(lower + "/") {
                    entry.path = NoteResolver.path(afterMoving: entry.path, from: path, to: moved.path)
                    entry.pathLower = entry.path.lowercased()
                    session.entry = entry
                    state.note = session
                }
            }
            self.refresher.took(moveFrom: path, to: moved)
            self.context.say(StatusMessage(done))
            self.linkRenames.moved(from: path, to: moved.path)
        }
    }

    /// Folders change on the server at once: a reader, or a club out of reach, is told so.
    private func mayChangeFolders() -> Bool {
        if state.readsOnly {
            context.say(.error(AppState.readerRefusal))
            return false
        }
        if state.offline.isOffline {
            context.say(.error("Offline: folders can be made, moved and renamed once the server answers again"))
            return false
        }
        return true
    }

    /// Runs one folder request with the spinner; a failure is said in words.
    private func folderRequest(_ status: String, _ work: @escaping @Sendable (OutboxSender.Direct) async throws(RemoteError) -> RemoteEntry,
                               done: @escaping @MainActor (RemoteEntry) -> Void) {
        context.update {
            $0.beginRequest()
            $0.message = StatusMessage(status)
        }
        let writes = context.writes
        context.perform({ () async throws(RemoteError) in try await work(writes) }) { [weak self] result in
            guard let self else { return }
            self.context.update { $0.endRequest() }
            switch result {
            case .success(let entry): done(entry)
            case .failure(.conflict): self.context.say(.error("A note or folder of that name is already there"))
            case .failure(let error): self.context.say(.error("Could not change the folder: \(error.message)"))
            }
        }
    }
}

extension AppState {
    /// Every folder of the Notes tab, the club folder first, then by path: those listed and
    /// those only a note's path names.
    var allNoteFolders: [String] {
        var seen: [String: String] = [notesFolder.root.lowercased(): notesFolder.root]
        for folder in notes.folders { seen[folder.pathLower] = folder.path }
        for entry in notes.entries {
            var folder = NotesFolder.parent(of: entry.path)
            while folder.count > notesFolder.root.count, seen[folder.lowercased()] == nil {
                seen[folder.lowercased()] = folder
                folder = NotesFolder.parent(of: folder)
            }
        }
        return seen.values.sorted { a, b in
            a.count == notesFolder.root.count || (b.count != notesFolder.root.count && a.lowercased() < b.lowercased())
        }
    }
}
