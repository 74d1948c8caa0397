import ArgumentParser
import LocalClub
import ClubKit
import DropboxWire
import Foundation
import Remote
import TerminalUI

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
struct NoteEditing: Sendable {
    let backend: Backend
    /// The club's folder on this remote (`/byteclub`, or the remote's `folder`).
    let clubFolder: String
    let drafts: DraftStore
    /// `$VISUAL`, else `$EDITOR`, else `vi`.
    let command: String
    let now: @Sendable () -> Date

    init(backend: Backend, clubFolder: String) {
        self.backend = backend
        self.clubFolder = clubFolder
        // This club's drafts, with what it left under a former name or in the older shared folder.
        backend.adoptFormerFolders()
        drafts = backend.drafts
        command = ExternalEditor.command(environment: ProcessInfo.processInfo.environment)
        now = Date.init
    }

    var editorName: String { ExternalEditor.name(of: command) }

    /// Whether both stdin and stderr are a terminal: a question can be asked and answered.
    static var interactive: Bool { isatty(0) == 1 && isatty(2) == 1 }

    /// The note's text and entry, or nil when the club cannot be reached now (offline).
    func readIfReachable(_ path: String) async throws -> (text: String, entry: RemoteEntry)? {
        do {
            let (data, entry) = try await backend.store.read(path)
            guard let text = String(validating: data, as: UTF8.self) else {
                say("\(entry.path) is not UTF-8 text; it cannot be edited as a note")
                throw Exit.conflict.code
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
    func edit(path: String, title: String) async throws {
        drafts.adoptEditorFiles(now: now())
        let id = Draft.id(forPath: path)
        let current = try await readIfReachable(path)
        var draft: Draft
        if let left = drafts.load(id) {
            let when = JSONLines.localTimeFormatter().string(from: left.updated)
            say("resuming your unsaved edit of \"\(title)\" from \(when) (kept as a draft)")
            draft = try await catchUp(left, with: current, title: title)
        } else {
            guard let current else {
                say("cannot reach the club to open \"\(title)\"; nothing was changed (try again when it answers)")
                throw Exit.network.code
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
            say("\"\(title)\" still holds conflict markers (<<<<<<< yours … >>>>>>>); nothing was saved, your text is kept as a draft: byteclub edit \"\(title)\" opens it again")
            throw Exit.conflict.code
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
            throw Exit.noMatch.code
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
            throw Exit.noMatch.code
        }
        let exit = Interrupt.leavingPressesTo { ExternalEditor.run(command, file: file.path) }
        switch exit {
        case .exited(0):
            break
        case .notStarted(let why):
            try? FileManager.default.removeItem(at: file)
            say("could not start \(editorName) ($VISUAL, $EDITOR): \(why); your text is kept as a draft")
            throw Exit.noMatch.code
        case .exited(let status):
            drafts.adoptEditorFiles(now: now())
            say("\(editorName) exited with status \(status): nothing was saved; what it wrote is kept as a draft (byteclub edit resumes it)")
            throw Exit.noMatch.code
        case .killed(let signal):
            drafts.adoptEditorFiles(now: now())
            say("\(editorName) was ended by signal \(signal): nothing was saved; what it wrote is kept as a draft (byteclub edit resumes it)")
            throw Exit.noMatch.code
        }
        guard let data = try? Data(contentsOf: file) else {
            say("\(editorName) left no file: nothing was changed")
            return nil
        }
        guard var text = String(validating: data, as: UTF8.self) else {
            say("\(editorName) wrote text that is not UTF-8: nothing was saved; the file is kept as \(file.path)")
            throw Exit.noMatch.code
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
            throw Exit.noMatch.code
        }
        let mine = ReportBox()
        let run = await backend.sendOutbox { report in
            if report.item.id == queued.id { mine.set(report) } else { FileHandle.standardError.write(Data(("byteclub: from the outbox: " + OutboxCommand.line(report) + "\n").utf8)) }
        }
        guard let report = mine.get() else {
            switch run {
            case .busy:
                say("another byteclub is sending the outbox now; \"\(title)\" waits there and goes with it (byteclub outbox lists it)")
            case .stopped(let error):
                say("\(error.message); \"\(title)\" waits in the outbox: byteclub outbox --send sends it")
            case .done:
                say("\"\(title)\" waits in the outbox: byteclub outbox --send sends it")
            }
            throw Exit.deferred.code
        }
        switch report.result {
        case .sent(let entry):
            FileHandle.standardOutput.write(Data((TerminalSafe.escape(entry?.path ?? item.path) + "\n").utf8))
        case .merged(let entry, let by):
            let who = await name(of: by)
            FileHandle.standardError.write(Data("byteclub: merged with a change \(TerminalSafe.escape(who)) made meanwhile\n".utf8))
            FileHandle.standardOutput.write(Data((TerminalSafe.escape(entry.path) + "\n").utf8))
        case .refused(let reason):
            say(reason)
            throw Exit.noMatch.code
        case .conflict(_, let reason):
            if item.kind == .save, Self.interactive, Self.ask("\(reason). Open both in \(editorName), the overlaps marked?") {
                return try await conflicted()
            }
            let next = item.kind == .save ? ": byteclub edit \"\(title)\" opens it with both sides marked" : " (the app lists it among the drafts)"
            say(reason + next)
            throw Exit.conflict.code
        }
    }

    /// A yes-or-no question on the terminal; yes unless the answer starts with n.
    static func ask(_ question: String) -> Bool {
        FileHandle.standardError.write(Data("byteclub: \(TerminalSafe.escape(question)) [Y/n] ".utf8))
        guard let answer = readLine() else { return false }
        return !answer.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("n")
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
