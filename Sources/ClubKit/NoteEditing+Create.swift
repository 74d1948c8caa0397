import Foundation
import Remote

/// Making a note (`new`, and `today` when the day's note is not there yet).
extension NoteEditing {
    /// A note to make.
    public struct NewNote: Sendable {
        /// Where it goes, with its extension.
        var path: String
        var title: String
        /// A template's title in the club's `templates/` folder.
        var template: String?
        /// Whether a missing template is an error (`--template`) or a blank note (`today`).
        var templateRequired = true
        /// Whether the text comes from the editor (else ``typed``, `--no-edit`).
        var edit = true
        /// Without the editor: the text given (stdin); nil or empty keeps the template's.
        var typed: String?
        /// Whether a note of that name made meanwhile is joined rather than refused (`today`).
        var joinsExisting = false

        public init(path: String, title: String, template: String?, templateRequired: Bool = true, edit: Bool = true, typed: String? = nil,
                    joinsExisting: Bool = false) {
            self.path = path
            self.title = title
            self.template = template
            self.templateRequired = templateRequired
            self.edit = edit
            self.typed = typed
            self.joinsExisting = joinsExisting
        }
    }

    /// Makes `note`: refused when a note of that title is there already (nothing is
    /// overwritten), its text from the template, then the editor or stdin, then the outbox.
    public func create(_ note: NewNote) async throws {
        drafts.adoptEditorFiles(now: now())
        let folder = (note.path as NSString).deletingLastPathComponent
        let fileName = (note.path as NSString).lastPathComponent
        // A new note's draft of this title, left by a byteclub that was stopped mid-way.
        let left = note.edit ? drafts.all().first { $0.path == nil && $0.title == note.title } : nil
        if let taken = try await existing(title: note.title, in: folder) {
            if note.joinsExisting { return try await edit(path: taken, title: note.title) }
            say("a note titled \"\(note.title)\" is already there: \(taken) (byteclub edit \"\(note.title)\" opens it); nothing was changed")
            throw CommandStop(.conflict)
        }
        var text = ""
        if let left {
            let when = JSONLines.localTimeFormatter().string(from: left.updated)
            say("resuming your unsaved new note \"\(note.title)\" from \(when) (kept as a draft)")
        } else if let template = note.template {
            text = try await templateText(template, required: note.templateRequired, title: note.title) ?? ""
        }
        var draftID: String?
        if note.edit {
            let draft = left ?? Draft(id: Draft.newID(), path: nil, baseRev: nil, title: note.title, body: text, updated: now())
            try keep(draft)
            guard let body = try runEditor(on: draft, fileName: fileName) else { return }
            text = body
            draftID = draft.id
        } else if let typed = note.typed, !typed.isEmpty {
            text = typed
        }
        var item = OutboxItem(kind: .create, path: note.path, title: note.title, text: text, draftID: draftID, queued: now())
        if note.joinsExisting { item.joinsExisting = true }
        try await send(item, title: note.title) {}
    }

    /// The path of a note titled `title` in `folder` (`.md` or `.txt`, any case), or nil when
    /// there is none, the folder does not exist yet, or the club cannot be reached now (the
    /// create is then an `add`, which never overwrites).
    func existing(title: String, in folder: String) async throws -> String? {
        let entries: [RemoteEntry]
        do {
            entries = try await backend.store.list(folder)
        } catch {
            if case .notFound = error { return nil }
            guard Self.isOffline(error) else { throw error }
            say("the club cannot be reached now; the note is made here and sent when it answers")
            return nil
        }
        // Among the notes alone: a title is never another kind of file's name.
        let notes = entries.filter { $0.kind == .file && ClubLayout.hasExtension($0.name, in: ClubLayout.noteExtensions) }
        return NoteResolver(entries: notes, root: folder).note(titled: title, from: nil)?.path
    }

    /// The template titled `name` in the club's `templates/` folder, its placeholders filled;
    /// nil when there is none and it is not `required`.
    func templateText(_ name: String, required: Bool, title: String) async throws -> String? {
        let folder = clubFolder + "/" + NoteTemplate.folderName
        let entries: [RemoteEntry]
        do {
            let listed = try await backend.store.list(folder)
            entries = NoteResolver(entries: listed, root: folder).entries
        } catch {
            if case .notFound = error {
                entries = []
            } else if Self.isOffline(error) {
                guard required else { return nil }
                say("cannot reach the club to read the template \"\(name)\"; nothing was made (\(error.message))")
                throw CommandStop(.network)
            } else {
                throw error
            }
        }
        guard let found = NoteResolver(entries: entries, root: folder).note(titled: name, from: nil) else {
            guard required else { return nil }
            let there = entries.map { NoteName.title($0.name) }.sorted()
            say("no template \"\(name)\" in \(folder) (" + (there.isEmpty ? "it has none: a template is a note there" : "there: " + there.joined(separator: ", ")) + ")")
            throw CommandStop(.notFound)
        }
        let (data, _) = try await backend.store.read(found.path)
        let name = await NoteTemplate.author(in: backend.store)
        return NoteTemplate.fill(String(decoding: data, as: UTF8.self), title: title, author: name, now: now())
    }
}

extension NoteEditing {
    /// The note `typed` names when a draft of it is waiting (`kill -9` during an edit): found
    /// without the club, so an offline `edit` still resumes it. `Trip` finds `Trip.md`'s draft.
    public func draftedPath(_ typed: String) -> String? {
        let candidates = [typed] + NoteName.extensions.map { typed + "." + $0 }
        return candidates.first { drafts.load(Draft.id(forPath: $0)) != nil }.flatMap { drafts.load(Draft.id(forPath: $0))?.path }
    }
}
