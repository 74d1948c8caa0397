import Foundation
import LiveText
import ClubKit
import Remote
import TerminalUI

/// The open note on the club server's live channel: each edit goes to the other members in it
/// as it is typed, theirs come into the editor as they type, with their names by their cursors
/// (docs/live.md, "The app"). The shared document and its journal are the core's
/// (``LiveNote``); this is the shell's part: the socket, the editor, the screen.
///
/// - **Who writes the file.** In a plain club the server does, from the room's document, after a
///   pause, one revision per burst (its welcome says so: ``serverWrites``); a revision whose text
///   the shared document holds (its mark came through the room) is taken as the new base, whoever
///   it names. In an encrypted club the server cannot read the room: while others are in the
///   note, the member who joined it first (the presence list's first) writes it after a pause of
///   ``writePause``, one revision per burst, and goes on so when the others have gone (their
///   words are in the text too). Anyone may still save with Ctrl-S, and a member alone in a note
///   that never went live saves as on any backend. A revision saved by a member in the note is taken
///   as the new base without a banner or a merge (the shared text holds it); a change made
///   outside the live session (another tool, WebDAV, a member not in the note) goes the usual
///   way (a banner, Ctrl-R, the save's merge), and what the merge gives the editor goes into
///   the shared text as this member's edit. At a join, a file changed since the document last
///   took it in is merged in (``LiveNote/joined(editorText:openedText:)``).
/// - **Undo** undoes this member's own edits, not another's (the shared document's undo).
/// - **Alone in a note**, a member is connected (to see others come) but the note is not live
///   until someone else is in it: it saves and merges as on any backend.
@MainActor
final class LiveNotes {
    static let writePause: Duration = .seconds(2)

    /// What help says of live editing, under the editor's keys: when it is on and how it looks.
    nonisolated static let helpCommands: [Command] = [
        Command(keys: [], description: "On a club server, others in the note type live", group: "Live editing", keyLabel: "When"),
        Command(keys: [], description: "Their names by their cursors, in a colour each", group: "Live editing", keyLabel: "Who"),
        Command(keys: [], description: "\"Live: ann, ray\" in the status bar lists who is in", group: "Live editing", keyLabel: "Status"),
        Command(keys: [.ctrl("z"), .ctrl("y")], description: "Undo / redo your own edits, not theirs", group: "Live editing"),
        Command(keys: [], description: "WebDAV, Dropbox: \"Live editing needs a club server\"", group: "Live editing", keyLabel: "Elsewhere"),
    ]

    let context: AppContext
    weak var saves: NoteSaves?
    weak var edits: NoteEdits?
    var note: LiveNote?
    private(set) var socket: LiveSocket?
    /// The open note's id, while it is live.
    private(set) var openID: String?
    /// The text the editor opened with: the base for what was typed before the first join.
    private var openedText = ""
    /// The rev the note was opened at: a save since (its words in the file, and from there in the
    /// room) means the note's own document's edits are no longer only this member's to send.
    private var openedRev: String?
    /// How many joins took what was typed before them in as a merge of texts, not as the
    /// operations the note's own document holds (LiveCursorsAppTests).
    private(set) var typingMergedAsText = 0
    private(set) var everJoined = false
    /// Taken up from the note's journal before any join (a draft written while live): edits go
    /// into the document as they are typed, and the join merges nothing of the editor's again.
    private(set) var resumed = false
    /// The editor (its ``TextBuffer/lineage``) and its ``TextBuffer/editCount`` the document
    /// last took: its edits since go in as they were made.
    private var synced: (lineage: UInt64, count: Int)?
    /// How many times the editor's whole text was compared with the document's (a new editor);
    /// typing never adds to it (LiveCursorsAppTests).
    private(set) var wholeTextSyncs = 0
    /// Counts edits, for the writer's pause.
    private var burst = 0
    /// The note whose "needs a club server" line was said (once per note opened).
    private var saidNoChannel: String?
    /// The server writes the open note's file from its room (a plain club's; its welcome says so).
    private(set) var serverWrites = false

    init(context: AppContext) {
        self.context = context
    }

    var state: AppState { context.state }

    /// After every change of the state: a note opened (its text in) goes live, one closed leaves.
    func follow() {
        guard let session = state.note, session.stage == .open, let entry = session.entry, !session.isReadOnly else {
            if openID != nil { stop() }
            return
        }
        guard let channel = context.configuration.liveChannel else {
            // WebDAV and Dropbox (whose entries may have no id): said once a note.
            if saidNoChannel != entry.pathLower, let line = context.configuration.liveUnavailable {
                saidNoChannel = entry.pathLower
                // After the editor's hint ("Editing … · Ctrl-S saves · Esc closes") when that is what the bar says.
                let hint = state.message.flatMap { $0.kind == .info && $0.text.hasPrefix("Editing ") ? $0.text : nil }
                context.say(StatusMessage(hint.map { $0 + " · " + line } ?? line))
            }
            return
        }
        guard let id = entry.id else {
            if openID != nil { stop() }
            return
        }
        // The same note: a reload or a merge that replaced the editor's text goes in as an edit.
        if openID == id { return }
        if openID != nil { stop() }
        openID = id
        // The text the note was opened over: the file's (a restored draft's base), which every
        // member seeds a note with no live history from, the same for all. A draft's own words
        // are then what was typed before the join, merged in as this member's. Seeded from the
        // draft's text, two members' different texts made two seeds: the note doubled.
        openedText = session.baseText ?? session.editor.body.text
        openedRev = session.baseRev
        everJoined = false
        resumed = false
        synced = nil
        note = LiveNote(noteID: id, folder: context.configuration.liveFolder)
        // A draft written while the note was live: every key of it is in the journal, which also
        // holds the keys typed after the draft's last write (a kill -9 mid-burst). The journal's
        // text is the one to take up; the draft's, merged in again at the join, doubled the burst.
        if session.restoredInLiveJournal, var journalled = note, journalled.resume() {
            note = journalled
            resumed = true
            openedText = journalled.text
            if journalled.text != session.editor.body.text { replaceBody(with: journalled.text) }
            markSynced()
            context.model.updateQuietly { $0.note?.liveJournalled = true }
        }
        let hop = context.effects.hop
        socket = channel(id) { [weak self] event in
            hop { self?.handle(event, noteID: id) }
        }
        context.model.updateQuietly { $0.note?.live = LivePresence() }
    }

    /// Leaves the live note (closed, switched, or the app quitting).
    func stop() {
        socket?.close()
        socket = nil
        note = nil
        openID = nil
        everJoined = false
        resumed = false
        synced = nil
        serverWrites = false
        if state.note?.live != nil { context.model.updateQuietly { $0.note?.live = nil } }
    }

    /// Whether the open note is live and joined (its undo is the shared document's).
    var isLive: Bool { everJoined && note != nil && state.note?.live != nil }

    /// After an edit of the open note by this member: its updates go out, and the others see the cursor.
    func edited() {
        guard everJoined || resumed, state.note?.entry?.id == openID else { return }
        syncLocal()
        sendCursor()
        scheduleWrite()
    }

    /// After a key that may have moved the cursor.
    func keyHandled() {
        guard everJoined, state.note?.live != nil else { return }
        sendCursor()
    }

    /// Ctrl-Z / Ctrl-Y in a live note: this member's own edits, undone or done again.
    func undo(redo: Bool) -> Bool {
        guard isLive else { return false }
        // The step's offsets are the document's: the editor's text must be the document's first.
        syncLocal()
        guard note != nil else { return false }
        guard let step = note?.undo(redo: redo) else {
            context.say(StatusMessage(redo ? "Nothing to redo" : "Nothing of yours to undo"))
            return true
        }
        socket?.send(update: step.update)
        apply(step.changes)
        if let at = step.changes.last.map({ change -> Int in
            switch change {
            case .insert(let text, let at): return at + text.utf16.count
            case .delete(let range): return range.lowerBound
            }
        }) {
            context.model.updateQuietly { state in
                guard let body = state.note?.editor.body else { return }
                state.note?.editor.body.moveCursor(to: body.position(ofUTF16: at))
            }
        }
        sendCursor()
        scheduleWrite()
        return true
    }

    private func handle(_ event: LiveSocketEvent, noteID: String) {
        // The note is changed in place (`self.note?`), never through a copy held beside it: its
        // document's text would then be copied at each change (2 MiB a key in a 1 MiB note).
        guard openID == noteID, note != nil else { return }
        switch event {
        case .welcome(let me, let serverWrites):
            self.serverWrites = serverWrites
            context.model.updateQuietly { $0.note?.live?.me = me }
        case .update(let member, let bytes):
            // A reload or a merge may have changed the editor since the last key: in first.
            // Once the editor shows the document (joined once, or taken up from its journal),
            // what each update changes goes into the editor, a reconnection's stored log too.
            let shown = everJoined || resumed
            if shown { syncLocal() }
            guard let changes = try? self.note?.receive(bytes) else {
                context.say(.error("A live update could not be read; the note goes on without it"))
                return
            }
            guard shown else { return }
            apply(changes)
            // The writer's cursor is where their change ends, until their cursor message says more.
            if let last = changes.last, let live = state.note?.live, live.members.contains(member), member != live.me {
                let at: Int
                switch last {
                case .insert(let text, let offset): at = offset + text.utf16.count
                case .delete(let range): at = range.lowerBound
                }
                context.model.updateQuietly { $0.note?.live?.cursors[member] = at }
            }
            scheduleWrite()
        case .presence(let members):
            // The note goes live once someone else is in it: alone, it opens, saves and merges
            // as on any backend (a reload or an overwrite is the member's own to make). Once
            // live, every connection again joins, to send what was typed meanwhile.
            // A note taken up from its journal joins at once: the room takes what it lacks.
            if self.note?.isJoined == false, everJoined || resumed || members.count > 1 {
                let body = state.note?.editor.body.text ?? ""
                // What was typed alone goes in as the operations its own document holds, unless a
                // save since the open took it to the club another way: then the typing up to that
                // save is the file's (and the room's, which took the revision in), and only what
                // was typed since is merged, from the text saved. Merged from the opened text,
                // the saved words went in a second time (the live histories' saves made alone).
                let savedSince = !everJoined && state.note?.baseRev != openedRev
                let own = everJoined || savedSince ? nil : edits?.ownDocument()
                let from = savedSince ? state.note?.baseText ?? openedText : openedText
                if let join = self.note?.joined(editorText: body, openedText: from, mergesFile: !serverWrites, local: own) {
                    if let send = join.send { socket?.send(update: send) }
                    if join.mergedTyping {
                        typingMergedAsText += 1
                        context.logger.info("live: what was typed before the join merged as text (its own document \(own == nil ? "not ready" : "built on another start"))")
                    }
                    if join.text != body {
                        replaceBody(with: join.text)
                    } else if own != nil, let session = state.note, session.version != session.savedVersion {
                        // The unsaved draft names the live journal from now on, not the own
                        // document's: written again at once, as after an edit.
                        context.model.updateQuietly { $0.note?.version += 1 }
                        edits?.journalSoon()
                    }
                    markSynced()
                    everJoined = true
                }
            }
            let journalled = everJoined
            // Someone left: the one now first writes what is not in the file yet (their words too).
            let left = !(state.note?.live?.members ?? []).allSatisfy(members.contains)
            if left, everJoined, members.first == state.note?.live?.me { scheduleWrite() }
            context.update {
                if journalled { $0.note?.liveJournalled = true }
                $0.note?.live?.isJoined = true
                $0.note?.live?.down = nil
                $0.note?.live?.members = members
                let kept = $0.note?.live?.cursors.filter { members.contains($0.key) } ?? [:]
                $0.note?.live?.cursors = kept
            }
            sendCursor()
        case .cursor(let member, let at):
            guard let offset = Int(at), offset >= 0 else { return }
            context.update { $0.note?.live?.cursors[member] = offset }
        case .refused(let message):
            context.say(.error("Live: " + message))
        case .disconnected(let reason):
            if state.note?.live?.down != reason { context.logger.warning("live: \(reason)") }
            self.note?.disconnected()
            context.update {
                $0.note?.live?.isJoined = false
                $0.note?.live?.down = reason
                $0.note?.live?.cursors = [:]
            }
        }
    }

    /// Another member's changes, into the editor as they are (the cursor keeps its place).
    private func apply(_ changes: [LiveTextChange]) {
        guard !changes.isEmpty else { return }
        context.update { state in
            guard state.note != nil else { return }
            for change in changes {
                switch change {
                case .insert(let text, let at):
                    state.note?.editor.body.applyShared(at..<at, with: text)
                    let cursors = Self.shifted(state.note?.live?.cursors ?? [:], at: at, removed: 0, inserted: text.utf16.count)
                    state.note?.live?.cursors = cursors
                case .delete(let range):
                    state.note?.editor.body.applyShared(range, with: "")
                    let cursors = Self.shifted(state.note?.live?.cursors ?? [:], at: range.lowerBound, removed: range.count, inserted: 0)
                    state.note?.live?.cursors = cursors
                }
            }
            state.note?.version += 1
        }
        edits?.journalSoon()
    }

    /// The whole body to `text` (the join's shared text), as another member's edit.
    private func replaceBody(with text: String) {
        context.update { state in
            guard let body = state.note?.editor.body else { return }
            let change = LiveNote.difference(from: body.text, to: text)
            state.note?.editor.body.applyShared(change.removed, with: change.inserted)
            state.note?.version += 1
        }
        edits?.journalSoon()
    }

    static func shifted(_ cursors: [String: Int], at: Int, removed: Int, inserted: Int) -> [String: Int] {
        cursors.mapValues { offset in
            if offset <= at { return offset }
            if offset >= at + removed { return offset - removed + inserted }
            return at
        }
    }

    private func sendCursor() {
        guard let body = state.note?.editor.body else { return }
        socket?.send(cursor: String(body.utf16Offset(of: body.cursor)))
    }

    /// The writer writes the file once the note has been quiet for ``writePause``.
    ///
    /// The writer is the first in the presence list; once the note has been live, that stays so
    /// when the others have gone: the one left holds their words too, and waited for by nobody
    /// they were stranded on screen (`[+]`) while the file held none of them. A member alone in a
    /// note that never went live saves as on any backend (Ctrl-S).
    private func scheduleWrite() {
        // The server writes a plain club's note itself.
        guard !serverWrites else { return }
        burst += 1
        let mark = burst
        context.effects.after(Self.writePause) { [weak self] in
            guard let self, self.burst == mark, self.isLive, let session = self.state.note, let live = session.live,
                  live.me != nil, live.members.first == live.me, session.isModified, session.isEditing else { return }
            self.saves?.save()
        }
    }

    /// The editor's edits into the shared document, before another member's changes are placed
    /// by offset (the two must be the same text) and after every key. Each edit goes in as the
    /// editor made it (``TextBuffer/edits(since:)``): no key compares whole texts. Only an editor
    /// the document has not followed (a reload's, a note reopened) is compared whole, once.
    func syncLocal() {
        // The note is changed in place (`note?`): a copy held beside it while it changes made the
        // document's text be copied at each key (2 MiB a key in a 1 MiB note).
        guard everJoined || resumed, note != nil, let session = state.note, session.entry?.id == openID else { return }
        let body = session.editor.body
        var updates: [Data] = []
        let edits = synced.flatMap { $0.lineage == body.lineage ? body.edits(since: $0.count) : nil }
        for edit in edits ?? [] where !edit.isShared {
            othersFollow(ownEdit: edit.range, inserted: edit.text.utf16.count)
            updates += note?.edit(replacing: edit.range, with: edit.text, continuing: edit.continuesStep) ?? []
        }
        // A new editor, or (never expected) one whose edits the document missed: the length tells.
        if edits == nil || note?.document.utf16Count != body.utf16Count {
            wholeTextSyncs += 1
            if synced?.lineage == body.lineage { context.logger.warning("live: the editor's edits did not make its text; compared whole") }
            let cursor = body.utf16Offset(of: body.cursor)
            othersFollow(ownEditFrom: note?.text ?? "", to: body.text, cursor: cursor)
            updates += note?.edit(to: body.text, cursor: cursor) ?? []
        }
        synced = (body.lineage, body.editCount)
        for update in updates { socket?.send(update: update) }
        if !updates.isEmpty { scheduleWrite() }
    }

    /// The live journal that holds `session`'s text, when it is the open live note's and every
    /// edit of its editor is in the document (and so in the journal, at once): its draft then
    /// keeps no text of its own (``Draft/liveJournal``), and each key is journalled once. Nil
    /// otherwise: the draft holds the text.
    func journal(holding session: NoteSession) -> String? {
        guard session.liveJournalled, session.entry?.id == openID, session.entry?.id != nil else { return nil }
        syncLocal()
        guard let note, let current = state.note, current.draftID == session.draftID,
              note.document.utf16Count == session.editor.body.utf16Count else { return nil }
        return note.journal?.path
    }

    /// Where the open note's own document starts while it is not live (``NoteEdits``): the text the
    /// note was opened over, and the room's document as this machine has it (its log in while the
    /// member is alone in the note, or an earlier session's journal), which the own document
    /// starts from when it is that text (``LiveNote/local(in:seededWith:over:from:clientID:)``), so
    /// that its edits build on what the room holds. Nil when the note is not this one, or live.
    func ownStart(for session: NoteSession) -> (base: String, room: LiveDocument?)? {
        guard let id = session.entry?.id, id == openID, !everJoined, !resumed, session.baseRev == openedRev, let note else { return nil }
        return (openedText, note.hasHistory ? note.document : nil)
    }

    /// The document and the editor now hold the same text (a join, a note taken up from its
    /// journal): the editor's next edits are the ones to send.
    private func markSynced() {
        guard let body = state.note?.editor.body else { return }
        synced = (body.lineage, body.editCount)
    }
}
