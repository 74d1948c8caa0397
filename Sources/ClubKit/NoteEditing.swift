import Foundation
import Remote

/// The writer's day from the shell (`new`, `edit`, `today`): a note's text goes through the
/// app's own path for `Alt-E`, a draft on disk first, then the outbox.
///
/// Before the editor starts, the draft (the text, the note's path and the rev it was opened at)
/// is on disk and the text is in a file beside it (``DraftStore/editorFile(for:fileName:)``), so
/// a `kill -9` of byteclub while the editor runs loses nothing: the next `edit` of the note takes
/// that file into the draft (``DraftStore/adoptEditorFiles(now:)``) and opens it again. What the
/// editor leaves is queued as an outbox item and the outbox is sent (``OutboxSender``): a change
/// made meanwhile merges three ways over the base rev, overlapping changes leave the draft for
/// the next `edit` (both sides marked), and a club that cannot be reached leaves the item for
/// `byteclub outbox --send`.
///
/// The shell gives what is its own: the editor (``Editor``), where words go (`say`, one line
/// each; `printPath`, the note's path once the club has it) and a yes-or-no question (`ask`,
/// nil where there is no terminal to answer). A step that ends the command says why first,
/// then throws ``CommandStop`` with the exit status.
public struct NoteEditing: Sendable {
    let backend: Backend
    /// The club's folder on this remote (`/byteclub`, or the remote's `folder`).
    let clubFolder: String
    public let drafts: DraftStore
    let editor: Editor
    let say: @Sendable (String) -> Void
    let printPath: @Sendable (String) -> Void
    let ask: @Sendable (String) -> Bool?
    let now: @Sendable () -> Date

    /// The program a note's text is handed to, and how it ended.
    public struct Editor: Sendable {
        /// Its name in messages ("vim").
        public var name: String
        /// Runs it on a file and waits for it.
        public var run: @Sendable (URL) -> Ending

        public init(name: String, run: @escaping @Sendable (URL) -> Ending) {
            self.name = name
            self.run = run
        }

        public enum Ending: Sendable, Equatable {
            case exited(Int32)
            case killed(signal: Int32)
            case notStarted(String)
        }
    }

    public init(backend: Backend, clubFolder: String, editor: Editor, say: @escaping @Sendable (String) -> Void,
                printPath: @escaping @Sendable (String) -> Void, ask: @escaping @Sendable (String) -> Bool?, now: @escaping @Sendable () -> Date = Date.init) {
        self.backend = backend
        self.clubFolder = clubFolder
        // This club's drafts, with what it left under a former name or in the older shared folder.
        backend.adoptFormerFolders()
        drafts = backend.drafts
        self.editor = editor
        self.say = say
        self.printPath = printPath
        self.ask = ask
        self.now = now
    }

    var editorName: String { editor.name }

    /// The note's text and entry, or nil when the club cannot be reached now (offline).
    func readIfReachable(_ path: String) async throws -> (text: String, entry: RemoteEntry)? {
        do {
            let (data, entry) = try await backend.store.read(path)
            guard let text = String(validating: data, as: UTF8.self) else {
                say("\(entry.path) is not UTF-8 text; it cannot be edited as a note")
                throw CommandStop(.conflict)
            }
            return (text, entry)
        } catch let error as RemoteError where Self.isOffline(error) {
            return nil
        }
    }

    static func isOffline(_ error: RemoteError) -> Bool {
        switch error {
        case .network, .stalled, .gateway: return true
        default: return error.isTransient
        }
    }

    /// A member's name for a message, from the account id a revision names.
    func name(of id: String?) async -> String {
        guard let id, let name = try? await backend.store.account(id: id).displayName, !name.isEmpty else { return "another member" }
        return name
    }

    // MARK: - Editing an existing note

    /// `edit`: the note at `path` (its draft, when one was left) in the editor, then saved.
    public func edit(path: String, title: String) async throws {
        drafts.adoptEditorFiles(now: now())
        let id = Draft.id(forPath: path)
        let current = try await readIfReachable(path)
        var draft: Draft
        // Taken, not only read: an app with the note open wrote it, and journals apart from now
        // on, so its next merge starts from exactly this text once the club has it
        // (``DraftStore/take(_:)``).
        if let left = drafts.take(id) {
            let when = JSONLines.localTimeFormatter().string(from: left.updated)
            say("resuming your unsaved edit of \"\(title)\" from \(when) (kept as a draft)")
            draft = try await catchUp(left, with: current, title: title)
        } else {
            guard let current else {
                say("cannot reach the club to open \"\(title)\"; nothing was changed (try again when it answers)")
                throw CommandStop(.network)
            }
            draft = Draft(id: id, path: current.entry.path, baseRev: current.entry.rev, title: title, body: current.text, updated: now())
            draft.baseText = current.text
            try keep(draft)
        }
        guard let body = try runEditor(on: draft, fileName: (path as NSString).lastPathComponent) else { return }
        draft.body = body
        if let base = draft.baseText, body == base {
            drafts.remove(id)
            say("no changes: nothing was saved")
            return
        }
        if ConflictMarkers.present(in: body) {
            say(ConflictMarkers.refusal(title) + ": byteclub edit \"\(title)\" opens it again")
            throw CommandStop(.conflict)
        }
        var item = OutboxItem(kind: .save, path: draft.path ?? path, baseRev: draft.baseRev, title: title, text: body,
                              draftID: id, queued: now())
        item.baseText = draft.baseText
        try await send(item, title: title) {
            // Overlapping changes: the draft holds ours over the old base; the next round marks both.
            try await edit(path: path, title: title)
        }
    }

    /// A draft left by an earlier edit, brought up to the note's rev now: merged three ways over
    /// the draft's base when the note changed meanwhile, with both sides marked where the
    /// changes overlap. Offline, the draft as it is (its save merges when it is sent).
    func catchUp(_ left: Draft, with current: (text: String, entry: RemoteEntry)?, title: String) async throws -> Draft {
        guard let current, let rev = current.entry.rev, left.baseRev != rev else { return left }
        var draft = left
        var base = left.baseText
        if base == nil, let baseRev = left.baseRev, let old = try? await backend.store.read(rev: baseRev) {
            base = String(validating: old.data, as: UTF8.self)
        }
        let who = await name(of: current.entry.modifiedBy)
        let caughtUp = NoteMergeDriver.catchUp(draft: left.body, base: base ?? "", theirs: current.text, who: who)
        draft.body = caughtUp.text
        if !caughtUp.overlapped {
            if caughtUp.text != left.body { say("\(who) changed \"\(title)\" meanwhile; their change is merged into your text") }
        } else {
            say("\(who) changed \"\(title)\" meanwhile and your changes overlap: both sides are marked in the editor (<<<<<<< yours … >>>>>>> \(who)); keep what you want and remove the markers")
        }
        draft.baseRev = rev
        draft.baseText = current.text
        draft.updated = now()
        try keep(draft)
        return draft
    }

    // MARK: - The editor

    /// Writes `draft`, durably; the user's text is never in memory alone.
    func keep(_ draft: Draft) throws {
        do {
            try drafts.save(draft)
        } catch {
            say("cannot keep a draft in \(drafts.directory.path): \(error.localizedDescription); nothing was changed")
            throw CommandStop(.noMatch)
        }
    }

    /// Runs the editor over `draft`'s text (the draft is on disk already) and returns what it
    /// left, kept in the draft; nil when it left nothing to take (said on stderr). An editor that
    /// fails keeps its file's text in the draft and ends the command (exit 1).
    func runEditor(on draft: Draft, fileName: String) throws -> String? {
        let before = draft.body
        // Editors end a file with a newline; one they add is not a change.
        let written = before.hasSuffix("\n") || before.isEmpty ? before : before + "\n"
        let file = drafts.editorFile(for: draft.id, fileName: fileName)
        do {
            try drafts.writeEditorFile(Data(written.utf8), to: file)
        } catch {
            say("cannot hand the note to \(editorName): \(error.localizedDescription); your text is kept as a draft")
            throw CommandStop(.noMatch)
        }
        switch editor.run(file) {
        case .exited(0):
            break
        case .notStarted(let why):
            try? FileManager.default.removeItem(at: file)
            say("could not start \(editorName) ($VISUAL, $EDITOR): \(why); your text is kept as a draft")
            throw CommandStop(.noMatch)
        case .exited(let status):
            drafts.adoptEditorFiles(now: now())
            say("\(editorName) exited with status \(status): nothing was saved; what it wrote is kept as a draft (byteclub edit resumes it)")
            throw CommandStop(.noMatch)
        case .killed(let signal):
            drafts.adoptEditorFiles(now: now())
            say("\(editorName) was ended by signal \(signal): nothing was saved; what it wrote is kept as a draft (byteclub edit resumes it)")
            throw CommandStop(.noMatch)
        }
        guard let data = try? Data(contentsOf: file) else {
            say("\(editorName) left no file: nothing was changed")
            return nil
        }
        guard var text = String(validating: data, as: UTF8.self) else {
            say("\(editorName) wrote text that is not UTF-8: nothing was saved; the file is kept as \(file.path)")
            throw CommandStop(.noMatch)
        }
        if text == written { text = before }
        // The newline the editor ended our text with goes again; a note begun empty keeps its own.
        if !before.isEmpty, !before.hasSuffix("\n"), text.hasSuffix("\n") { text.removeLast() }
        var kept = draft
        kept.body = text
        kept.updated = now()
        try keep(kept)
        try? FileManager.default.removeItem(at: file)
        return text
    }

    // MARK: - Sending

    /// Queues `item` and sends the outbox; prints the note's path when the club has it.
    /// `conflicted` runs when the changes overlapped and the user (on a terminal) asked to merge
    /// them in the editor.
    func send(_ item: OutboxItem, title: String, conflicted: () async throws -> Void) async throws {
        let outbox = backend.outbox
        let queued: OutboxItem
        do {
            queued = try outbox.append(item)
        } catch {
            say("cannot queue \"\(title)\" in \(outbox.directory.path): \(error.localizedDescription); your text is kept as a draft")
            throw CommandStop(.noMatch)
        }
        let mine = ReportBox()
        let run = await backend.sendOutbox { report in
            if report.item.id == queued.id { mine.set(report) } else { say("from the outbox: " + OutboxLines.line(report)) }
        }
        // The app's save machine decides what the answer comes to; this shell says it and ends.
        var save = Save()
        let at = now().timeIntervalSinceReferenceDate
        save.sending(Save.Sent(generation: 0, version: 0, name: (item.path as NSString).lastPathComponent, text: item.text ?? "", items: [queued.id]), at: at)
        let report = mine.get()
        let answer: SaveAnswer
        if let report {
            answer = .report(report)
        } else if case .stopped(let error) = run {
            answer = .stopped(error, waits: true, items: [queued.id])
        } else {
            answer = .unanswered(items: [queued.id])
        }
        let reason = report.map(Self.reason(of:)) ?? ""
        let drafted = " (the app lists it among the drafts)"
        switch save.answered(answer, canMerge: item.kind == .save && item.baseRev != nil, at: at) {
        case .saved(let entry, _):
            printPath(entry.path)
        case .merged(let entry, _, let by):
            let who = await name(of: by)
            say("merged with a change \(who) made meanwhile")
            printPath(entry.path)
        case .queue(let error):
            say("\(error.message); \"\(title)\" waits in the outbox: byteclub outbox --send sends it")
            throw CommandStop(.deferred)
        case .waits, .ignored:
            if case .busy = run {
                say("another byteclub is sending the outbox now; \"\(title)\" waits there and goes with it (byteclub outbox lists it)")
            } else {
                say("\"\(title)\" waits in the outbox: byteclub outbox --send sends it")
            }
            throw CommandStop(.deferred)
        case .refused(let why):
            say(why)
            throw CommandStop(.noMatch)
        case .failed(let error):
            // Not a change made meanwhile: the club's answer, with the status any command gets
            // for it (a reader's write is 5, as a reader's `put` is). The text is a draft.
            say(reason + drafted)
            throw CommandStop(Exit.of(error))
        case .deleted:
            // Kept as a draft of a new note: `new` of its title takes it up, as the app's "Save
            // as new" does.
            say(reason + ": byteclub new \"\(title)\" makes it again")
            throw CommandStop(.conflict)
        case .merge:
            if ask("\(reason). Open both in \(editorName), the overlaps marked?") == true {
                return try await conflicted()
            }
            say(reason + ": byteclub edit \"\(title)\" opens it with both sides marked")
            throw CommandStop(.conflict)
        case .conflict, .nameTaken, .moved:
            say(reason + drafted)
            throw CommandStop(.conflict)
        }
    }

    /// The command line's save machine: the app's, with no merge view (its merge is both sides
    /// marked in the editor).
    typealias Save = NoteSaveMachine<Never>

    /// The words the sender gave for a report that saved nothing.
    static func reason(of report: OutboxReport) -> String {
        switch report.result {
        case .conflict(_, let why), .refused(let why): return why
        case .sent, .merged: return ""
        }
    }
}

/// The sender's report of our own item, handed out of its callback.
final class ReportBox: @unchecked Sendable {
    // @unchecked Sendable: `report` is only touched under `lock`.
    private let lock = NSLock()
    private var report: OutboxReport?
    func set(_ value: OutboxReport) { lock.withLock { report = value } }
    func get() -> OutboxReport? { lock.withLock { report } }
}

/// A command's end, said already: the exit status it ends with (``Exit``).
public struct CommandStop: Error, Equatable {
    public let exit: Exit
    public init(_ exit: Exit) { self.exit = exit }
}

/// The outbox's results in words, as `outbox --send` and `new`/`edit` print them.
public enum OutboxLines {
    /// One result for people, as `--send` prints it.
    public static func line(_ report: OutboxReport) -> String {
        let what = "\(report.item.kind.rawValue) \"\(TerminalSafe.escape(report.item.title))\""
        switch report.result {
        case .sent(let entry):
            return "sent: " + what + (entry.map { " (" + TerminalSafe.escape($0.path) + ")" } ?? "")
        case .merged(let entry, _):
            return "merged: " + what + " with a change made meanwhile (" + TerminalSafe.escape(entry.path) + ")"
        case .conflict(_, let reason):
            return "kept as a draft: " + TerminalSafe.escape(reason)
        case .refused(let reason):
            return "refused: " + TerminalSafe.escape(reason)
        }
    }
}
