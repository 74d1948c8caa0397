import Foundation
import Remote
import TerminalUI

/// `n` with templates: the new note opens at once, as it always did, and when the club's
/// `templates/` folder holds notes a chooser comes up over it asking which to start from
/// ("Blank note" first, so Enter on a reflex keeps the blank note; Esc too). The template's text
/// goes in with its placeholders filled (``NoteTemplate``); one that uses `{{title}}` asks for the
/// title first, so the text can hold it. Nothing is asked once the new note has been typed in.
extension Navigator {
    /// `n` in the Notes tab.
    func newNoteAskingForTemplate() {
        let before = state.note?.draftID
        newNote()
        guard let note = state.note, note.draftID != before, !state.offline.isOffline else { return }
        let draftID = note.draftID
        let store = context.store
        let folder = configuration.layout.folder + "/" + NoteTemplate.folderName
        // Not through `context.perform`: a club without a templates folder answers "not found",
        // which says nothing about whether the club can be reached.
        _ = context.effects.perform({ () async throws(RemoteError) -> ([RemoteEntry], String) in
            let templates = try await store.list(folder).filter { entry in
                entry.kind == .file && ["md", "txt"].contains((entry.name as NSString).pathExtension.lowercased())
            }
            guard !templates.isEmpty else { return ([], "") }
            // {{author}}: the member's name in the club, never a shared token's `club`.
            let author = await NoteTemplate.author(in: store)
            return (templates.sorted { $0.name.lowercased() < $1.name.lowercased() }, author)
        }) { [weak self] result in
            guard let self, case .success(let (templates, name)) = result, !templates.isEmpty, self.isUntouched(draftID) else { return }
            self.context.choose { Self.templateChooser(templates) { [weak self] choice in
                guard case .template(let entry)? = choice else { return }
                self?.startFromTemplate(entry, author: name, draftID: draftID)
            } }
        }
    }

    /// Whether the new note `draftID` is still open with nothing typed in it.
    private func isUntouched(_ draftID: String) -> Bool {
        guard let note = state.note, note.draftID == draftID, note.entry == nil else { return false }
        return !note.isModified && note.editor.title.text.isEmpty
    }

    /// Reads the template, then (asking for the title when its text uses one) fills the new note.
    private func startFromTemplate(_ entry: RemoteEntry, author: String, draftID: String) {
        let store = context.store
        context.perform({ () async throws(RemoteError) in try await store.read(entry.path) }) { [weak self] result in
            guard let self else { return }
            guard case .success(let (data, _)) = result, let text = String(validating: data, as: UTF8.self) else {
                self.context.say(.error("Could not read the template \"\(TerminalSafe.escape(entry.name))\"; the note stays blank"))
                return
            }
            guard text.lowercased().contains("{{title}}") else { return self.fill(draftID, from: text, title: "", author: author) }
            self.context.ask { PromptLayer(title: "New note", body: ["Title of the note from \"\(TerminalSafe.escape(ClubLayout.title(of: entry.name)))\":"],
                                           validate: { NoteSession.titleProblem($0) }) { [weak self] title in
                guard let self, let title else { return }
                self.fill(draftID, from: text, title: title, author: author)
            } }
        }
    }

    private func fill(_ draftID: String, from template: String, title: String, author: String) {
        guard isUntouched(draftID) else { return }
        let body = NoteTemplate.fill(template, title: title, author: author, now: configuration.format.now())
        context.update {
            $0.note?.editor.title = TextInputState(text: title)
            $0.note?.editor.body.replaceText(with: body)
            if !title.isEmpty { $0.note?.editor.focus = .body }
            $0.note?.version += 1
            $0.message = StatusMessage(title.isEmpty ? "New note from a template · type its title · Enter goes to the text · Ctrl-S saves"
                                                     : "New note \"\(TerminalSafe.escape(title))\" from a template · Ctrl-S saves · Esc closes")
        }
    }
}

/// What the template chooser hands back.
enum TemplateChoice: Sendable {
    case blank
    case template(RemoteEntry)
}

extension Navigator {
    /// The templates to start a new note from, "Blank note" first (its keys are on the help page too).
    static func templateChooser(_ templates: [RemoteEntry], onChoice: @escaping @MainActor (TemplateChoice?) -> Void) -> ChoiceListLayer<TemplateChoice> {
        ChoiceListLayer(
            title: "New note from a template", items: [.blank] + templates.map { .template($0) }, columns: [ListColumn("Template")],
            row: { choice in
                switch choice {
                case .blank: ListRow(["Blank note"])
                case .template(let entry): ListRow([ClubLayout.title(of: entry.name)])
                }
            },
            enterDoes: "Start the note from the template (Blank note: an empty one)", hint: "Enter start · / filter · Esc close",
            emptyHint: "", onChoice: onChoice)
    }
}
