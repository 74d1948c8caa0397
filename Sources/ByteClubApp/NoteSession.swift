import Foundation
import Remote
import TerminalUI

/// The note open in the editor pane: what it is on the server, the editor's text, and where
/// the save stands.
///
/// The editor's own state (``NoteEditorState``) knows nothing of servers; this adds the rev the
/// note was opened at (a save updates exactly that rev, so another member's change is never
/// silently overwritten) and the draft that journals every edit.
public struct NoteSession: Sendable, Equatable {
    /// Whether the note's text is in. Where its save stands is ``save``'s alone (``NoteSave/Phase``).
    public enum Stage: Equatable, Sendable {
        /// The note's text is downloading; the list keeps the keys, Esc abandons.
        case loading
        /// The text is in the editor.
        case open
    }

    public var stage: Stage
    /// A save (or a merge's) is in flight: typing goes on, and the text saved is the one at Ctrl-S.
    public var isSaving: Bool { save.isInFlight }
    /// Open with no save in flight: a save, a merge or a reload may begin.
    public var isEditing: Bool { stage == .open && !save.isInFlight }
    /// The note on the server, or nil for a note not saved yet.
    public var entry: RemoteEntry?
    /// The rev the text was opened at, which a save must update. Moving it forgets
    /// ``baseText`` unless the new text is given with it (``setBase(_:text:)``).
    public var baseRev: String? {
        didSet { if baseRev != oldValue { baseText = nil } }
    }
    /// The text at ``baseRev``, when this session has it: the base of a three-way merge on a
    /// store that keeps no revisions to download it from (WebDAV).
    public internal(set) var baseText: String?
    public var editor: NoteEditorState
    /// A line above the editor: a restored draft, a read-only warning.
    public var banner: String?
    /// Text that is not valid UTF-8 opens read-only and is never saved back.
    public var isReadOnly = false
    /// The draft this session journals to.
    public var draftID: String
    /// This editor has held the note's own draft (``Draft/id(forPath:)``): opened from the
    /// server or from that draft, or saved since. Only then is a text written there that another
    /// shell took over its hand-over (``NoteEdits/handedOverBase(of:)``), after it is kept apart
    /// too. One opened from a draft kept apart never wrote there: what an earlier editor of the
    /// note handed over is not its base.
    var heldOwnDraft = false
    /// Every edit of the text is in the note's live journal (the note joined live, or was taken
    /// up from its journal): the drafts written say so (``Draft/inLiveJournal``).
    var liveJournalled = false
    /// Opened from a draft written while the note was live: its journal, not the draft, is the
    /// text to take up (LiveNotes).
    var restoredInLiveJournal = false
    /// Opened from a draft typed before the note went live: the note's own document's journal,
    /// and the editor (its lineage) that opened with its text, which takes the document up again
    /// (NoteEdits), so that a join after a kill -9 takes its edits in as the operations they were.
    var restoredOwnJournal: RestoredJournal?

    /// A draft's own document's journal, and the editor opened with its text.
    struct RestoredJournal: Equatable, Sendable {
        var path: String
        var lineage: UInt64
        /// The draft's text, which the journal must hold to be taken up.
        var text: String

        /// The same journal and editor (the text follows from them; a 1 MiB one is not compared).
        static func == (a: Self, b: Self) -> Bool { a.path == b.path && a.lineage == b.lineage }
    }
    /// Counts edits; ``savedVersion`` is the count the server has.
    var version = 0
    var savedVersion = 0
    /// The version last written to the draft.
    var journalledVersion = 0
    /// Which load or save is current; late results of an abandoned one are dropped.
    var generation = 0
    /// Close the editor once the running save succeeds (Esc → Save).
    var closeAfterSave = false
    /// The save under way, from Ctrl-S to the server's answer: the core's machine (``NoteSaveMachine``).
    var save = NoteSave()
    /// The last outbox item this editor queued (``NoteSave/lastQueued``).
    var queuedItem: String? { save.lastQueued }
    /// A merge with conflicts, shown in place of the editor until each has a choice
    /// (NoteConflicts+Merge.swift); the editor keeps the user's own text meanwhile. The save's,
    /// kept in its machine (``NoteSave/merge``).
    public var merge: MergeSession? {
        get { save.merge }
        set { save.merge = newValue }
    }
    /// Another member's change to this note that came while it had local edits, and is not in
    /// the text yet (the banner says "Changed by NAME at HH:MM · Ctrl-R merge now"). Set by the
    /// live updates; a merge or a save that takes it in clears it.
    public var remoteChange: RemoteNoteChange?
    /// Another member deleted this note on the server while it was open (seen by the live
    /// updates, or by a save that found it gone): the banner says `Deleted by NAME`, and Ctrl-S
    /// (or `Esc` → Save) saves the text again as a new note where it was (`Esc` → Discard drops
    /// it), never an update of a note that is not there.
    public var remoteDeletion: RemoteNoteDeletion?
    /// ``remoteChange`` as it was when the save under way began: that change was in view when
    /// the save was made (its conflict merged, or overwritten on purpose), so only a later one
    /// outlives the save's success.
    var remoteChangeAtSave: RemoteNoteChange?
    /// The search hit this note is being opened from: once its text is in, the cursor goes to the match.
    var openedFrom: SearchResult?
    /// Where the note opens to once its text is in ("Back" to the place a link left, a link
    /// followed from the rendered view opening in the view): ``NoteViewController`` takes it.
    public var arrival: NotePlace?
    /// Who else is writing in this note on the club server's live channel, and where their
    /// cursors are (LiveNotes); nil when the note is not live.
    public var live: LivePresence?
    /// The matches `n`/`N` step through while the editor is in search hits mode (a note opened
    /// from the search results, until its first edit or cursor move).
    public var searchMatches: SearchMatches?

    /// The extension saving gives a title without one (``ClubLayout/newNoteExtension``).
    public var newNoteExtension = "md"
    /// The folder a new note is saved in (nil: the club folder); a note on the server stays in its own.
    public var folder: String?

    /// The folder a save writes in: the note's own, or the one a new note was made in.
    public func saveFolder(root: String) -> String {
        if let path = entry?.path { return NotesFolder.parent(of: path) }
        return folder ?? root
    }

    /// Whether the note can be merged: on the server, not read-only, its title unchanged (a
    /// merge writes to the note's own path; a new title is saved by Ctrl-S).
    var canMerge: Bool {
        guard let entry, baseRev != nil, !isReadOnly else { return false }
        return fileName == entry.name
    }

    /// Whether the text differs from what the server has (the `[+]` marker).
    public var isModified: Bool { version != savedVersion }
    /// Whether the editor's clean state (the text it opened with, or its last
    /// ``NoteEditorState/markSaved()``) is the text the server has: then undoing back to it
    /// clears `[+]`. A restored draft, a merge, a save queued offline or one overtaken by typing
    /// make it false until the next save the server confirms with nothing typed since.
    var editorCleanIsSaved = true

    /// A session for `entry`, waiting for its text.
    init(loading entry: RemoteEntry) {
        stage = .loading
        self.entry = entry
        baseRev = entry.rev
        editor = NoteEditorState(title: ClubLayout.title(of: entry.name), body: "", isNew: false)
        draftID = Draft.id(forPath: entry.path)
        heldOwnDraft = true
    }

    /// A new, empty note.
    init(newNote draftID: String = Draft.newID()) {
        stage = .open
        editor = NoteEditorState(title: "", body: "", isNew: true)
        self.draftID = draftID
    }

    /// A session restored from `draft`: the draft's text, over the rev it was opened at.
    init(draft: Draft, entry: RemoteEntry?, savedAt: String) {
        stage = .open
        self.entry = entry
        baseRev = entry == nil ? nil : draft.baseRev
        baseText = entry == nil ? nil : draft.baseText
        editor = NoteEditorState(title: draft.title, body: draft.body, isNew: false)
        draftID = draft.id
        heldOwnDraft = entry.map { draft.id == Draft.id(forPath: $0.path) } ?? false
        folder = draft.folder
        restoredInLiveJournal = draft.inLiveJournal == true
        banner = "Restored your unsaved draft from \(savedAt) · Ctrl-S saves it · Esc, Discard drops it"
        version = 1
        journalledVersion = 1
        editorCleanIsSaved = false
    }

    /// The file name a save writes. An unchanged title keeps the note's name (`rules.txt` stays
    /// `.txt`); a new title keeps the note's extension, or gets ``newNoteExtension`` (`.md`),
    /// unless it ends in a note extension itself. A dot elsewhere in a title ("v1.2 plan") is
    /// part of the title.
    public var fileName: String { NoteSession.fileName(forTitle: editor.title.text, replacing: entry?.name, newExtension: newNoteExtension) }

    /// The file name for `title`, for a note now named `current` (nil for a new note).
    public static func fileName(forTitle title: String, replacing current: String? = nil, newExtension: String = "md") -> String {
        let title = title.trimmingCharacters(in: .whitespaces)
        if let current, title == ClubLayout.title(of: current) { return current }
        if ClubLayout.hasExtension(title, in: ClubLayout.noteExtensions) { return title }
        let ext = current.flatMap { name -> String? in
            ClubLayout.hasExtension(name, in: ClubLayout.noteExtensions) ? String(name.dropFirst(ClubLayout.title(of: name).count)) : nil
        } ?? "." + newExtension
        return title + ext
    }

    /// Why the title cannot be saved as a file name, or nil.
    public static func titleProblem(_ title: String) -> String? {
        let trimmed = title.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return "The note needs a title (Ctrl-T goes to the title)" }
        if trimmed.contains("/") || trimmed.contains("\\") { return "A title cannot contain / or \\" }
        if trimmed == "." || trimmed == ".." || trimmed.hasPrefix(".") { return "A title cannot start with a dot" }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "A title cannot contain control characters"
        }
        if fileName(forTitle: trimmed).utf8.count > 255 { return "The title is too long for a file name" }
        return nil
    }

    /// The draft of the current text (or with `body` given, of that).
    func draft(at date: Date, body: String? = nil) -> Draft {
        var draft = Draft(id: draftID, path: entry?.path, baseRev: baseRev, title: editor.title.text, body: body ?? editor.body.text, updated: date)
        draft.baseText = baseText
        draft.folder = entry == nil ? folder : nil
        if liveJournalled { draft.inLiveJournal = true }
        return draft
    }

    /// Moves the base to `rev`, whose text is `text` (nil: not known here).
    mutating func setBase(_ rev: String?, text: String?) {
        baseRev = rev
        baseText = text
    }
}

extension NoteSession {
    /// The note is gone from the server, deleted by `who` (a display name, or "another member"):
    /// a change waiting to be merged is moot, and the banner says so at once.
    mutating func markDeleted(by who: String) {
        remoteDeletion = RemoteNoteDeletion(who: who)
        remoteChange = nil
        remoteChangeAtSave = nil
        banner = RemoteNoteDeletion.banner(who: who)
    }

    /// Makes the open note a new one, to be saved again where it was (Ctrl-S after a deletion,
    /// "Save as new note"): the same title and extension, in the same folder, no rev to update.
    mutating func becomeNew() {
        if let entry {
            if ClubLayout.hasExtension(entry.name, in: ClubLayout.noteExtensions) {
                newNoteExtension = String(entry.name.dropFirst(ClubLayout.title(of: entry.name).count + 1))
            }
            // A new note is saved in ``folder`` (nil: the club folder): the deleted note's own,
            // never the club folder for a note that was in a subfolder.
            folder = NotesFolder.parent(of: entry.path)
        }
        entry = nil
        baseRev = nil
        remoteDeletion = nil
        remoteChange = nil
        remoteChangeAtSave = nil
        save.follows(nil)
        banner = nil
        editorCleanIsSaved = false
    }
}

/// The open note was deleted on the server by another member.
public struct RemoteNoteDeletion: Equatable, Sendable {
    /// Who deleted it: the member's display name, or "another member" when the server cannot say.
    public var who: String

    public init(who: String) { self.who = who }

    /// What the editor says at once: "Deleted by ann · Ctrl-S saves it again as a new note".
    static func banner(who: String) -> String {
        "Deleted by \(TerminalSafe.escape(who)) · Ctrl-S saves it again as a new note · Esc closes"
    }
}

/// A row of the notes list: a note on the server (perhaps with a draft), or a draft of a note
/// that is not on the server.
public enum NoteItem: Equatable, Sendable {
    case note(RemoteEntry, hasDraft: Bool)
    case draft(Draft)
    /// A folder under the one shown, or the row that goes up (NotesFolder.swift).
    case folder(FolderItem)
    /// A file of the folder that is not a note (a PDF, a canvas): opened with the system's opener.
    case file(RemoteEntry)

    /// What marks a file's row (a folder's is ▸).
    static let fileMark = "◇"
}

/// A newer revision of the open note, made by someone else while the note had local edits.
public struct RemoteNoteChange: Equatable, Sendable {
    /// The note as it is on the server now (its path, `rev`, size, `modifiedBy`).
    public var entry: RemoteEntry
    /// Who made it: the member's display name, or "another member" when the server cannot say.
    public var who: String
    /// When it was made (the revision's modification time).
    public var when: Date

    /// The newer revision, which a merge takes as theirs.
    public var rev: String { entry.rev ?? "" }

    public init(entry: RemoteEntry, who: String, when: Date) {
        self.entry = entry
        self.who = who
        self.when = when
    }
}

/// A live note as the screen shows it: the members in it (the status bar) and the others'
/// cursors (a caret and a name tag in the editor).
public struct LivePresence: Sendable, Equatable {
    /// Connected and the server's log is in.
    public var isJoined = false
    /// The member this app speaks for, as the server named it.
    public var me: String?
    /// Who is in the note, in the order they joined (this member too).
    public var members: [String] = []
    /// The others' cursors: UTF-16 offsets in the text.
    public var cursors: [String: Int] = [:]
    /// Why the connection is down, while it is.
    public var down: String?

    public init() {}

    /// "Live: ann, ray" for the status bar while others are in the note too, "Live: offline" while
    /// the channel is down; nothing while this member is alone in it or joining (short: the
    /// status bar's message keeps the room).
    public var statusText: String? {
        if isJoined { return members.count > 1 ? "Live: " + members.joined(separator: ", ") : nil }
        return down == nil ? nil : "Live: offline"
    }
}
