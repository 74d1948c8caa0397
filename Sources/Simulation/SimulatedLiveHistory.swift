import ClubKit
import ClubServer
import DropboxWire
import Foundation
import LiveText

/// A generated history of live editing (issue 68): two or three members type in one note on a
/// club server's live channel, in one process, every choice from the seed.
///
/// - **Each member's app** holds the core's ``LiveNote`` (its journal on disk), an editor's text,
///   and a draft, and follows the app's rules (`LiveNotes`, `NoteEdits`): edits go into the
///   document as the editor made them once the note is live (joined, or taken up from its
///   journal). Before that (alone in the note, offline, or not connected yet) they go into the
///   note's own document (``LiveNote/local(in:seededWith:over:from:clientID:)``, started from the
///   room's document as the member's machine has it, its log or its journal, when that is the
///   opened text, else from the opened text's seed), whose journal the draft names; a kill -9 keeps it, and the join takes its edits in
///   as operations. A draft written while live is taken up from the journal after a kill -9.
/// - **The room** is the server's (`LiveHub`): a log in arrival order, relayed in order to the
///   members connected, the log first to a joiner. On a plain club a revision compacts it into
///   one snapshot (``LiveHub/snapshot(of:)``, the server's own, which keeps the newest
///   ``RevisionMark``); an encrypted club's is never compacted (the server cannot read it).
/// - **The file**: on a plain club the server writes the document its room's log makes after a
///   pause (``LiveFileText``, as `LiveRoom` does), its mark stored and relayed first; on an
///   encrypted club the first member in the room writes its document's text, and sends the room a
///   mark of it (``LiveNote/written(_:)``). Either way a member who comes back without a draft
///   does not merge that revision in again. On a plain club the shell changes the file outside
///   the live note too (a line added, an older revision restored), and the server merges it in.
/// - **Faults**: a member's socket cut, the server down, a member's app killed (kill -9: its
///   memory gone, its journal and draft kept) and started again, a member stopped (kill -STOP)
///   while the others type on.
///
/// At the end everyone is back and in the note, every update delivered, the file written; the
/// promise (``violations()``): every word typed is in the file exactly once, a word deleted is
/// not, and every member's text is the file's.
///
/// Members type before their note's first join too (alone in it, or offline). Merged in as text
/// at the join (``PlantedBug/typingMergedAsText``), two members' typing made whole-text
/// replacements that crossed in the shared document and put the words between twice; taken
/// in as the operations it was (issue 68's model: every open note a document from its open),
/// each word is once.
public final class SimulatedLiveHistory {
    public enum Backend: String, Sendable, CaseIterable {
        /// A plain club: the room's log is compacted at each revision.
        case live
        /// An encrypted club: the room's log only grows.
        case liveEncrypted = "live-encrypted"
    }

    enum Inbound {
        case frame(member: String, update: Data)
        case presence([String])
        /// A revision of the note written by `by` (the longpoll's news).
        case revision(text: String, by: String)
    }

    struct Draft {
        var text: String
        var inLiveJournal: Bool
        /// The file's text the draft was typed over (`Draft.baseText`).
        var base: String
        /// The note's own document's journal, for a draft typed before the note went live
        /// (`Draft.liveJournal` naming it): its text, and what the join takes in.
        var ownJournal: URL? = nil
    }

    /// A member's app with the note open: what the process holds, lost at a kill -9.
    struct App {
        var note: LiveNote
        var editor: String
        var opened: String
        /// The file's text the session is based on (`NoteSession.baseText`): the file at open, or
        /// a revision taken since.
        var base: String
        /// The note's own document, while it has not been live: what was typed before the join.
        var own: LiveNote?
        var everJoined = false
        var resumed = false
        /// Saved alone since the open (Ctrl-S before the first join): its typing is in the file,
        /// so the join merges it as text, not as the own document's operations (`LiveNotes`).
        var savedAlone = false
        var connected = false
        var inbox: [Inbound] = []
        var presence: [String] = []
        var stoppedFor = 0
    }

    public let seed: UInt64
    public let backend: Backend
    let noteID = "id:simlive"
    var random: SplitMix64
    let members: [String]
    let folder: URL
    /// Each member's app, nil while killed.
    var apps: [String: App] = [:]
    var drafts: [String: Draft] = [:]
    var room: [Data] = []
    var roomMembers: [String] = []
    var file: String
    var serverDownFor = 0
    var lastEdit = 0
    /// Every word typed and how many times it must be in the file (1, or 0 once deleted).
    var expected: [String: Int] = [:]
    var wordsTyped = 0
    /// Words an undo or a redo brought back (as text of its own: a copy of the word's).
    var copied: Set<String> = []
    /// Words typed before their member's first join (in the note's own document).
    var typedAlone: Set<String> = []
    /// Members who saved alone (``saveAlone(_:)``) and have not joined since, across a restart
    /// (the draft's base is the text saved), and the words they deleted meanwhile: their join
    /// merges their typing as text, and a word deleted where another change clashes with it is
    /// kept (a text merge keeps both sides where they clash), a delete lost, not a word. Such a
    /// word found once is counted apart (``deletesKeptByMerges``), not as a broken promise.
    var savedAloneUnjoined: Set<String> = []
    var deletedAfterSaveAlone: Set<String> = []
    /// Undos and redos that changed the text, and the undos of those that took out a word
    /// typed before the join (``LiveDocument/takeUndoSteps(of:)``).
    public internal(set) var undos = 0
    public internal(set) var undosOfTypingAlone = 0
    public private(set) var step = 0
    public private(set) var log: [String] = []
    public internal(set) var revisions = 0
    public internal(set) var compactions = 0
    /// Older revisions restored outside the live note (a plain club's).
    public internal(set) var restores = 0
    /// Joins that took in what was typed before them, and of those, the ones merged as text.
    public internal(set) var typedJoins = 0
    public internal(set) var mergedJoins = 0
    /// The apps opened so far (each start of one has a client id of its own).
    private var opens: UInt64 = 0
    /// The text the server last wrote, or found its document held (a plain club's).
    var serverBase: String?
    /// The file's revisions, oldest first (the server's base for a change made outside, when it
    /// has none of its own: after its first start, as `LiveNoteFiles.history`).
    var fileHistory: [String] = []
    /// The client id the server's own edits go under.
    let serverClient: UInt64

    public init(seed: UInt64, backend: Backend, folder: URL) {
        self.seed = seed
        self.backend = backend
        self.folder = folder
        random = SplitMix64(seed: seed &* 0x9E37_79B9 &+ 7)
        members = random.oneIn(2) ? ["ann", "bob"] : ["ann", "bob", "cy"]
        serverClient = (seed &* 0x2545_F491_4F6C_DD1D | 1) & ((1 << 53) - 1)
        file = "# Minutes\n\nAgenda:\n"
        fileHistory = [file]
        for member in members { apps[member] = open(member) }
    }

    /// The client id of the `open`th app opened: from the seed, apart from the history's own
    /// choices (drawn at random, as the app's are, two members' inserts at one place came in
    /// either order, and a seed's log was not always the same), below 2^53 as Yjs's ids are.
    private func clientID(open: UInt64) -> UInt64 {
        var ids = SplitMix64(seed: seed ^ (open &* 0xD1B5_4A32_D192_ED03))
        return max(1, ids.next() & ((1 << 53) - 1))
    }

    // MARK: Running

    public func run(steps: Int) {
        while step < steps {
            step += 1
            tick()
            let member = members[random.int(0...(members.count - 1))]
            // On a plain club the shell's `edit` changes the file too; the server merges it in.
            let outside: [(String, Int)] = backend == .live ? [("outside", 2), ("restore", 1), ("save alone", 3)] : []
            switch random.weighted([("type", 30), ("delete", 4), ("deliver", 30), ("cut", 3), ("connect", 8), ("outage", 1),
                                    ("kill", 2), ("start", 4), ("stop", 2), ("save", 6), ("undo", 5)] + outside) {
            case "type": type(member)
            case "undo": undo(member, redo: random.oneIn(3))
            case "delete": delete(member)
            case "deliver": deliver(member, count: random.int(1...6))
            case "cut": cut(member, why: "socket cut")
            case "connect": connect(member)
            case "outage": outage()
            case "kill": kill(member)
            case "start": start(member)
            case "stop": stop(member)
            case "outside": editOutside()
            case "restore": restoreOutside()
            case "save alone": saveAlone(member)
            default: saveIfPaused()
            }
            checkEditors()
        }
        finish()
    }

    /// Once a note is live, its editor shows the document's text after every step; the first
    /// step where one does not is a broken promise of its own (the end could hide it).
    public private(set) var divergedAt: [String] = []
    private func checkEditors() {
        for member in members {
            if let own = apps[member]?.own, own.text != apps[member]?.editor {
                if divergedAt.isEmpty { say("\(member)'s editor and own document differ") }
                divergedAt.append("step \(step): \(member)'s editor is not its own document")
                return
            }
            guard let app = apps[member], app.everJoined || app.resumed, app.note.text != app.editor else { continue }
            if divergedAt.isEmpty { say("\(member)'s editor and document differ") }
            divergedAt.append("step \(step): \(member)'s editor is not its document")
            return
        }
    }

    /// Time passes: a stopped member's stop and the server's outage run down.
    private func tick() {
        if serverDownFor > 0 {
            serverDownFor -= 1
            if serverDownFor == 0 { say("the server is back") }
        }
        for member in members where (apps[member]?.stoppedFor ?? 0) > 0 {
            apps[member]?.stoppedFor -= 1
        }
    }

    /// The note opened in `member`'s app, as the app opens it: a draft written while the note was
    /// live is taken up from the journal; another draft is the editor's text; else the file's.
    private func open(_ member: String) -> App {
        var note = LiveNote(noteID: noteID, folder: folder.appendingPathComponent(member), clientID: nextClientID())
        if let draft = drafts[member] {
            if draft.inLiveJournal, note.resume() {
                var app = App(note: note, editor: note.text, opened: note.text, base: draft.base)
                app.resumed = true
                return app
            }
            // The editor opens with the draft's text over the file's text it was typed on (LiveNotes'
            // `openedText`, the session's base). A draft kept in a journal has the journal's text
            // (`DraftStore.load`); one typed before the note went live names its own document's,
            // whose edits the join takes in.
            if let journal = draft.ownJournal {
                let own = LiveNote(noteID: journal.lastPathComponent, folder: journal.deletingLastPathComponent(), clientID: nextClientID())
                var app = App(note: note, editor: own.text, opened: draft.base, base: draft.base)
                app.own = own
                return app
            }
            let text = draft.inLiveJournal ? note.journal.flatMap { LiveNote.text(ofJournal: $0) } ?? draft.text : draft.text
            return App(note: note, editor: text, opened: draft.base, base: draft.base)
        }
        return App(note: note, editor: file, opened: file, base: file)
    }

    /// A client id for the next document an app opens (its live note, or its own).
    private func nextClientID() -> UInt64 {
        opens += 1
        return clientID(open: opens)
    }

    func canAct(_ member: String) -> Bool {
        guard let app = apps[member] else { return false }
        return app.stoppedFor == 0
    }

    // MARK: Steps

    private func type(_ member: String) {
        guard canAct(member), var app = apps[member] else { return }
        wordsTyped += 1
        let word = "\(member)\(wordsTyped)"
        // After a word, or at the end: a word's own place, never inside another.
        let units = Array(app.editor.utf16)
        var spaces = units.indices.filter { units[$0] == 0x20 || units[$0] == 0x0A }
        spaces.append(units.count)
        let at = spaces[random.int(0...(spaces.count - 1))]
        expected[word] = 1
        if !(app.everJoined || app.resumed) { typedAlone.insert(word) }
        edit(member, &app, at..<at, " " + word)
        apps[member] = app
        say("\(member) types \(word)")
    }

    private func delete(_ member: String) {
        guard canAct(member), var app = apps[member] else { return }
        // Not a word an undo brought back: that is a copy of the word's text, and a member who
        // has not seen it yet deletes the word as it was, which stays deleted, and the copy
        // rightly stays; a promise kept by words cannot tell the two apart.
        let words = expected.keys.filter { expected[$0] == 1 && !copied.contains($0) && app.editor.contains(" " + $0) }.sorted()
        guard !words.isEmpty else { return }
        let word = words[random.int(0...(words.count - 1))]
        let range = (app.editor as NSString).range(of: " " + word)
        // A longer word that starts with this one ("ann1" in "ann12") is not this word.
        let after = range.location + range.length
        let units = Array(app.editor.utf16)
        guard after == units.count || units[after] == 0x20 || units[after] == 0x0A else { return }
        expected[word] = 0
        if savedAloneUnjoined.contains(member) { deletedAfterSaveAlone.insert(word) }
        edit(member, &app, range.location..<after, "")
        apps[member] = app
        say("\(member) deletes \(word)")
    }

    /// Ctrl-Z (or Ctrl-Y) in a live note: the member's own last edit undone (or done again) in
    /// the shared document, its run typed alone before the join among them
    /// (``LiveDocument/takeUndoSteps(of:)``). A word it takes out must then be in the file not
    /// at all, and one it puts back once. Only while connected to the room: a word an undo puts
    /// back is new text, and offline it could reach the room after a restore that took the
    /// word out (as a word typed offline does), which a promise kept by words, not by the text's
    /// items, cannot tell from the word the restore removed.
    private func undo(_ member: String, redo: Bool) {
        guard canAct(member), var app = apps[member], app.connected, app.note.isJoined,
              let undone = app.note.undo(redo: redo) else { return }
        var text = app.editor
        var out: [String] = [], back: [String] = []
        for change in undone.changes {
            switch change {
            case .insert(let inserted, _):
                back += words(in: inserted).filter { expected[$0] != nil }
            case .delete(let range):
                let units = Array(text.utf16)
                out += words(in: String(decoding: units[range.clamped(to: 0..<units.count)], as: UTF16.self)).filter { expected[$0] != nil }
            }
            text = Self.applying([change], to: text)
        }
        for word in out { expected[word] = 0 }
        undos += 1
        if out.contains(where: typedAlone.contains) { undosOfTypingAlone += 1 }
        for word in back {
            expected[word] = 1
            copied.insert(word)
        }
        app.editor = text
        lastEdit = step
        send(undone.update, from: member)
        if random.oneIn(2) { writeDraft(member, app) }
        apps[member] = app
        say("\(member) \(redo ? "redoes" : "undoes"): \(out.isEmpty ? "" : "out " + out.joined(separator: ","))\(back.isEmpty ? "" : " back " + back.joined(separator: ","))")
    }

    /// An edit in `member`'s editor, into the document as the editor made it once the note is
    /// live, and to the room when connected; a draft written now and then (the app's 300 ms).
    /// Before the note is live, into its own document, started at the first edit; the draft
    /// names its journal from then on. Either way each edit is in a journal at once (a kill -9
    /// loses none of them).
    func edit(_ member: String, _ app: inout App, _ range: Range<Int>, _ text: String) {
        let live = app.everJoined || app.resumed
        if !live, app.own == nil {
            // The room's document as this machine has it (its log in while alone in the note, or
            // the live journal of an earlier session), when it is what the editor opened
            // (`LiveNotes.ownStart`); else the opened text's seed.
            let fork = app.note.hasHistory && app.note.text == app.opened ? app.note.document.encodeStateAsUpdate() : nil
            app.own = LiveNote.local(in: folder.appendingPathComponent(member + "-own"), seededWith: app.editor, over: app.opened,
                                     from: fork, clientID: nextClientID())
        }
        var units = Array(app.editor.utf16)
        units.replaceSubrange(range, with: Array(text.utf16))
        app.editor = String(decoding: units, as: UTF16.self)
        lastEdit = step
        guard live else {
            _ = app.own?.edit(replacing: range, with: text)
            drafts[member] = Draft(text: app.editor, inLiveJournal: false, base: app.base, ownJournal: app.own?.journal)
            return
        }
        for update in app.note.edit(replacing: range, with: text) where app.connected && app.note.isJoined {
            send(update, from: member)
        }
        if random.oneIn(2) { writeDraft(member, app) }
    }

    /// A draft written while the note is live keeps no text: its text is the journal's
    /// (`Draft.liveJournal`), read back when the note is opened again.
    private func writeDraft(_ member: String, _ app: App) {
        let live = app.everJoined || app.resumed
        drafts[member] = Draft(text: live ? "" : app.editor, inLiveJournal: live, base: app.base)
    }

    func send(_ update: Data, from member: String) {
        room.append(Data(LiveFrame.encode(member: member, update: update)))
        for other in roomMembers where other != member { apps[other]?.inbox.append(.frame(member: member, update: update)) }
    }

    private func deliver(_ member: String, count: Int) {
        guard canAct(member) else { return }
        for _ in 0..<count {
            guard var app = apps[member], !app.inbox.isEmpty else { return }
            let message = app.inbox.removeFirst()
            switch message {
            case .frame(_, let update):
                guard let changes = try? app.note.receive(update) else {
                    say("\(member) could not read an update")
                    apps[member] = app
                    return
                }
                if app.everJoined || app.resumed { app.editor = Self.applying(changes, to: app.editor) }
            case .presence(let list):
                app.presence = list
                if !app.note.isJoined, app.everJoined || app.resumed || list.count > 1 {
                    let typed = app.own != nil && app.editor != app.opened
                    // Saved alone since the open: the typing up to the save is the file's, so the
                    // text the join merges from is the one saved (the session's base).
                    let join = app.note.joined(editorText: app.editor, openedText: app.savedAlone ? app.base : app.opened,
                                               mergesFile: backend != .live, local: app.savedAlone ? nil : app.own)
                    if typed { typedJoins += 1 }
                    if join.mergedTyping { mergedJoins += 1 }
                    app.editor = join.text
                    // The draft now names the live journal (the app writes it at the join): one
                    // that still named the own document would be merged in again after a kill -9,
                    // with words the others deleted since.
                    if app.own != nil { drafts[member] = Draft(text: "", inLiveJournal: true, base: app.base) }
                    app.own = nil
                    app.everJoined = true
                    savedAloneUnjoined.remove(member)
                    apps[member] = app
                    if let update = join.send { send(update, from: member) }
                    say("\(member) joins with \(list.joined(separator: ", "))\(join.send == nil ? "" : ", sending what the room lacks")\(join.mergedTyping ? ", its typing merged as text" : "")")
                    continue
                }
            case .revision(let text, let by):
                // A revision the shared text holds (the server's, a plain club's), or by a member in
                // the note (an encrypted club's): taken as the base (LiveNotes.fileChanged).
                let held = backend == .live ? app.note.holdsRevision(text) || app.note.text == text : app.presence.contains(by)
                if app.everJoined, held {
                    app.note.fileTaken(text)
                    app.base = text
                    if app.editor == text { drafts[member] = nil }
                }
            }
            apps[member] = app
        }
    }

    private func cut(_ member: String, why: String) {
        guard var app = apps[member], app.connected else { return }
        app.connected = false
        app.inbox = []
        app.note.disconnected()
        apps[member] = app
        leaveRoom(member)
        say("\(member)'s \(why)")
    }

    private func leaveRoom(_ member: String) {
        roomMembers.removeAll { $0 == member }
        for other in roomMembers { apps[other]?.inbox.append(.presence(roomMembers)) }
    }

    private func connect(_ member: String) {
        // A stopped process makes no new connection (one it has stays open).
        guard serverDownFor == 0, canAct(member), var app = apps[member], !app.connected else { return }
        app.connected = true
        if backend == .live { serverAdmits() }
        // The stored log, then everyone's presence (LiveHub.finishJoin).
        app.inbox = room.compactMap { LiveFrame.decode([UInt8]($0)).map { .frame(member: $0.member, update: Data($0.update)) } }
        apps[member] = app
        roomMembers.append(member)
        for other in roomMembers { apps[other]?.inbox.append(.presence(roomMembers)) }
        say("\(member) connects (\(room.count) records in the room)")
    }

    private func outage() {
        guard serverDownFor == 0 else { return }
        serverDownFor = random.int(2...12)
        // A server started again knows no base of its own: it finds one in the note's history.
        serverBase = nil
        say("the server goes down for \(serverDownFor) steps")
        for member in roomMembers { cut(member, why: "socket cut by the outage") }
    }

    private func kill(_ member: String) {
        guard apps[member] != nil else { return }
        if apps[member]?.connected == true { leaveRoom(member) }
        apps[member] = nil
        say("\(member)'s app is killed (kill -9)")
    }

    private func start(_ member: String) {
        guard apps[member] == nil else { return }
        let app = open(member)
        apps[member] = app
        say("\(member)'s app starts again\(app.resumed ? ", its note taken up from its journal" : drafts[member] != nil ? ", its draft restored" : "")")
    }

    private func stop(_ member: String) {
        guard apps[member] != nil, apps[member]?.stoppedFor == 0 else { return }
        apps[member]?.stoppedFor = random.int(3...15)
        say("\(member)'s app is stopped (kill -STOP)")
    }

    /// The file is written once the note has been quiet for a while: a plain club's by the
    /// server, an encrypted club's by the first member in the room.
    private func saveIfPaused(force: Bool = false) {
        if backend == .live {
            if force || step - lastEdit >= 3 { serverWrites() }
            return
        }
        guard force || step - lastEdit >= 3, let writer = roomMembers.first, canAct(writer), var app = apps[writer], app.note.isJoined,
              app.editor != file else { return }
        file = app.editor
        revisions += 1
        app.note.writing(file)
        // The revision is in; the server compacts the room's log, then the writer's mark of it
        // comes (the app sends it on the save's answer).
        if backend == .live, let snapshot = LiveHub.snapshot(of: room.map { [UInt8]($0) }) {
            room = snapshot.map { Data($0) }
            compactions += 1
        }
        if let mark = app.note.written(file), app.connected { send(mark, from: writer) }
        app.base = file
        // A draft kept in the journal holds the document's text (`DraftStore.load`).
        if let draft = drafts[writer], (draft.inLiveJournal ? app.note.text : draft.text) == file { drafts[writer] = nil }
        apps[writer] = app
        for other in roomMembers where other != writer { apps[other]?.inbox.append(.revision(text: file, by: writer)) }
        say("\(writer) writes the file (revision \(revisions))")
    }

    /// Everyone back, in the note, every update delivered, the file written.
    private func finish() {
        serverDownFor = 0
        for member in members {
            if apps[member] == nil { start(member) }
            apps[member]?.stoppedFor = 0
            connect(member)
        }
        for _ in 0..<100 {
            for member in members { deliver(member, count: 1_000) }
            if members.allSatisfy({ apps[$0]?.inbox.isEmpty == true }) { break }
        }
        lastEdit = 0
        saveIfPaused(force: true)
        for member in members { deliver(member, count: 1_000) }
    }

    static func applying(_ changes: [LiveTextChange], to text: String) -> String {
        var units = Array(text.utf16)
        for change in changes {
            switch change {
            case .insert(let inserted, let at): units.insert(contentsOf: Array(inserted.utf16), at: min(at, units.count))
            case .delete(let range): units.removeSubrange(range.clamped(to: 0..<units.count))
            }
        }
        return String(decoding: units, as: UTF16.self)
    }

    func say(_ line: String) { log.append("\(step): \(line)") }

}
