import Foundation
import ClubKit
import Remote
import TerminalUI

/// Where a save meets another member's change, a helper the app owns beside ``NoteSaves`` (it
/// calls no controller): the conflict dialog and its choices (Overwrite and Save as copy, written
/// at once through the outbox's sender; Reload theirs), and the three-way merge when the note
/// changed meanwhile or on `Ctrl-R` (NoteConflicts+Merge.swift). A save that meets a change
/// hands over here; what ends here as a save is carried out by ``NoteSaves``.
@MainActor
final class NoteConflicts {
    let context: AppContext
    let refresher: Refresher
    let saves: NoteSaves

    init(context: AppContext, refresher: Refresher, saves: NoteSaves) {
        self.context = context
        self.refresher = refresher
        self.saves = saves
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    @discardableResult
    func journal() -> Bool { saves.journal() }

    /// The conflict dialog: the server's note changed since it was opened (or, for a new note,
    /// one of that name exists).
    func showConflict(name: String, isNew: Bool) {
        let body = isNew
            ? ["A note named \"\(name)\" already exists.",
               "Overwrite replaces it with yours. Save as copy keeps both."]
            : ["\"\(name)\" was changed on the server since you opened it.",
               "Overwrite replaces their version with yours. Save as copy keeps both.",
               "Reload theirs opens their version; yours stays as a draft."]
        let buttons = isNew ? ["Overwrite", "Save as copy", "Cancel"] : ["Overwrite", "Save as copy", "Reload theirs", "Cancel"]
        let modal = Modal(title: "Conflict", body: body, buttons: buttons)
        // Cancel is the default: Enter on a reflex must not overwrite anyone.
        context.ask { DialogLayer(modal, selected: buttons.count - 1) { [weak self] choice in
            switch choice.map({ buttons[$0] }) {
            case "Overwrite": self?.overwrite()
            case "Save as copy": self?.saveAsCopy()
            case "Reload theirs": self?.reloadTheirs()
            default: self?.context.say(StatusMessage("Not saved; your text is kept as a draft"))
            }
        } }
    }

    /// Overwrite: saves over the server's current rev, whatever it is.
    func overwrite() {
        guard let session = state.note else { return }
        let name = session.fileName
        let target = session.saveFolder(root: configuration.layout.folder) + "/" + name
        let from = session.entry?.path, writes = context.writes
        sendSave(name: name, status: "Overwriting \"\(TerminalSafe.escape(name))\"…") { data in
            // Moved first when its title changed, then written over the server's rev of now; its
            // front matter's tags become club tags, as after every save.
            switch await attempt({ () async throws(RemoteError) in try await writes.overwrite(data, at: target, from: from) }) {
            case .success(let done): return NoteSave.Reply(moved: done.moved, result: done.written)
            case .failure(let error): return NoteSave.Reply(result: .failure(error))
            }
        }
    }

    /// Save as copy: a new file beside theirs, named with the user and the time; the editor then
    /// edits the copy.
    func saveAsCopy() {
        guard let session = state.note else { return }
        let title = ClubLayout.title(of: session.fileName)
        let ext = session.fileName.dropFirst(title.count)
        let stamp = copyStamp(configuration.format.now())
        let name = "\(title) (conflicted copy of \(configuration.userName) \(stamp))\(ext)"
        let target = session.saveFolder(root: configuration.layout.folder) + "/" + name
        let writes = context.writes
        sendSave(name: name, status: "Saving a copy as \"\(TerminalSafe.escape(name))\"…", adoptName: true) { data in
            // The copy is a note of its own: its front matter's tags become its club tags.
            NoteSave.Reply(result: await attempt { () async throws(RemoteError) in try await writes.saveCopy(data, at: target) })
        }
    }

    /// Reload theirs: the editor shows the server's text; yours becomes a draft of a new note.
    func reloadTheirs() {
        guard let session = state.note, let entry = session.entry else { return }
        let title = session.editor.title.text.trimmingCharacters(in: .whitespaces)
        var mine = session.draft(at: configuration.format.now())
        mine.id = Draft.newID()
        mine.path = nil
        mine.baseRev = nil
        mine.title = (title.isEmpty ? ClubLayout.title(of: entry.name) : ClubLayout.title(of: NoteSession.fileName(forTitle: title)))
            + " (my version)"
        do {
            try configuration.drafts?.save(mine)
        } catch {
            // Keep the text in the editor rather than lose it.
            context.say(.error("Could not keep your text as a draft (\(error.localizedDescription)); nothing reloaded"))
            return
        }
        configuration.drafts?.removeIfOurs(session.draftID)
        refresher.reloadDrafts()
        saves.load(entry)
        context.update {
            $0.message = StatusMessage("Reloading theirs; your text is the draft \"\(TerminalSafe.escape(mine.title))\"")
        }
    }

    private func copyStamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = configuration.format.timeZone
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d.%02d.%02d", p.year ?? 0, p.month ?? 0, p.day ?? 0, p.hour ?? 0, p.minute ?? 0, p.second ?? 0)
    }

    // MARK: - Writes made at once

    /// Journals the text, marks the session as saving and sends `work` the text's bytes; the
    /// reply comes back to ``finishSave``. `adoptName` makes the editor take the saved file's name
    /// (a conflicted copy).
    private func sendSave(name: String, status: String, adoptName: Bool = false,
                          _ work: @escaping @Sendable (Data) async -> NoteSave.Reply) {
        // The journal first: whatever happens to the request, the text is on disk.
        let journalled = journal()
        guard let session = state.note, session.isEditing else { return }
        let data = Data(session.editor.body.text.utf8), version = session.version
        let generation = saves.markSaving(status: status, journalled: journalled)
        context.perform({ () async throws(RemoteError) in await work(data) }) { [weak self] reply in
            // `work` never throws; a failure is inside the reply.
            guard case .success(let reply) = reply else { return }
            self?.finishSave(generation: generation, version: version, name: name, adoptName: adoptName, reply: reply)
        }
    }

    private func finishSave(generation: Int, version: Int, name: String, adoptName: Bool, reply: NoteSave.Reply) {
        context.update { $0.endRequest() }
        guard let saving = state.note, saving.generation == generation, saving.isSaving else { return }
        let session = NoteSave.answered(saving, by: reply, at: context.effects.now())
        saves.carryOut(NoteSave.outcome(of: reply, canMerge: session.canMerge, canQueue: saves.outbox != nil, adoptName: adoptName),
                       session: session, version: version, name: name)
    }
}
