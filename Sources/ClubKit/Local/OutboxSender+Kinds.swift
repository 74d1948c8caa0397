import Foundation
import NoteMerge
import Remote

/// Sending one item of each kind: notes saved and created here, renames, deletes and photo
/// uploads in `OutboxSender+Files.swift`.
///
/// `send` throws only when the item cannot be sent *now* and must wait for the next run: the
/// server is unreachable, failing or busy (``RemoteError/isTransient``), refused our token, the
/// run was cancelled, or our own disk failed (`.local`). Anything else the server answers
/// becomes a result, and a note's text that could not be sent as it was is kept as a draft
/// before the result says so.
extension OutboxSender {
    /// Sends `item` and says what came of it.
    func send(_ item: OutboxItem) async throws(RemoteError) -> OutboxAnswer {
        switch item.kind {
        case .save: return await adoptingTags(try await sendSave(item), of: item)
        case .create: return await adoptingTags(try await sendCreate(item), of: item)
        case .rename: return try await sendRename(item)
        case .delete: return OutboxAnswer(try await sendDelete(item))
        case .upload: return OutboxAnswer(try await sendUpload(item))
        }
    }

    /// Once a note's text is in the club, its front matter's tags and pin become club tags
    /// (``FrontMatterTags``): a note made from a template with `tags: [meeting]` is tagged
    /// `meeting`. The text that landed is the merge's when there was one. Best effort: the save
    /// stands whatever the tags do, and a tag not adopted now (offline a moment, a WebDAV server
    /// that keeps no tags) is adopted at the note's next save.
    func adoptingTags(_ answer: OutboxAnswer, of item: OutboxItem) async -> OutboxAnswer {
        let landed: RemoteEntry
        switch answer.result {
        case .sent(let entry?): landed = entry
        case .merged(let entry, _): landed = entry
        case .sent(nil), .conflict, .refused: return answer
        }
        guard let text = answer.text ?? item.text else { return answer }
        _ = try? await FrontMatterTags.adopt(text, at: landed.path, store: store)
        return answer
    }

    /// Why a save was not made, the draft first: a long refusal ("You (bob) were removed from
    /// this club") is cut at a narrow screen's edge, never the news that nothing typed is lost.
    static func notSaved(_ item: OutboxItem, _ failure: RemoteError) -> String {
        "Kept as a draft, not saved \(shown(item.title)): \(failure.message)"
    }

    /// Whether `error` means "try again on the next run" rather than an answer about this item.
    static func mustWait(_ error: RemoteError) -> Bool {
        switch error {
        case .unauthorized, .cancelled, .local: return true
        default: return error.isTransient
        }
    }

    /// Throws `error` again if the item must wait for it; otherwise returns it, an answer about
    /// the item to turn into a result.
    static func answer(_ error: RemoteError) throws(RemoteError) -> RemoteError {
        if mustWait(error) { throw error }
        return error
    }

    /// An item's title for a message: quoted, with control characters escaped.
    static func shown(_ title: String) -> String { "\"" + TerminalSafe.escape(title) + "\"" }

    // MARK: - Saves

    /// A save is `update` at its base rev. A conflict is either the same text arriving twice (a
    /// send repeated after a crash: the server holds our bytes, so it counts as sent), or a
    /// change someone made meanwhile, merged three ways over the base rev; overlapping changes,
    /// a base rev the server no longer has, or a note deleted there leave the text as a draft.
    func sendSave(_ item: OutboxItem) async throws(RemoteError) -> OutboxAnswer {
        guard let text = item.text else { return OutboxAnswer(.refused("Not saved: \(Self.shown(item.title)) had no text in the outbox")) }
        let data = Data(text.utf8)
        guard let baseRev = item.baseRev else {
            if let landed = try await landedBase(of: item) {
                // The item it follows landed, sent by another process (`byteclub` on this
                // machine sends the whole outbox): a save of that note, not a second one.
                var adopted = item
                adopted.baseRev = landed
                adopted.baseText = item.baseText
                try rewrite(adopted)
                return try await sendSave(adopted)
            }
            // No rev to build on: the note did not exist when it was saved, so it is a create.
            return try await sendCreate(item)
        }
        var mode = WriteMode.update(rev: baseRev)
        var payload = data
        // Set once a merge was made: the revision it went over (whose author the result names).
        var mergedOver: RemoteEntry?
        // A merge saved at their rev may meet yet another revision: merge again, a few times.
        for attempt in 0...3 {
            let failure: RemoteError
            do {
                let entry = try await store.upload(data: payload, to: item.path, mode: mode, autorename: false)
                settleDraft(of: item, landed: entry, text: String(decoding: payload, as: UTF8.self))
                if let mergedOver { return OutboxAnswer(.merged(entry, by: mergedOver.modifiedBy), text: String(decoding: payload, as: UTF8.self)) }
                return OutboxAnswer(.sent(entry))
            } catch {
                failure = try Self.answer(error)
            }
            guard case .conflict = failure else {
                return OutboxAnswer(try keepDraft(item, text: text, gone: false, reason: Self.notSaved(item, failure)),
                                    cause: .failed(failure))
            }
            if attempt == 3 { break }
            switch try await merge(item, text: text, baseRev: baseRev) {
            case .done(let answer):
                return answer
            case .moved(let path):
                // Someone moved the note: the save follows it there, once.
                var moved = item
                moved.path = path
                try rewrite(moved)
                return try await sendSave(moved)
            case .upload(let merged, let theirs):
                payload = merged
                mode = .update(rev: theirs.rev ?? "")
                mergedOver = theirs
            }
        }
        return OutboxAnswer(try keepDraft(item, text: text, gone: false,
                                          reason: "\(Self.shown(item.title)) keeps changing on the server; your text is kept as a draft: open it to merge"))
    }

    /// The revision a save with no base rev builds on, when the item it follows is no longer in
    /// the outbox: another process sent it, after this save was made over it by an editor that
    /// still thought it waited (a new note's next save, issue 68: "your own note, twice"). That
    /// item made the revision holding the save's base text (``OutboxItem/baseText``): the note
    /// now, or one of its last revisions where the server keeps them. Nil when none holds it
    /// (the save is then a create, as before). A failure a retry may mend stops the send.
    func landedBase(of item: OutboxItem) async throws(RemoteError) -> String? {
        guard item.kind == .save, let base = item.baseText.map({ Data($0.utf8) }), let follows = item.follows,
              !outbox.all().contains(where: { $0.id == follows }) else { return nil }
        do throws(RemoteError) {
            let current = try await store.read(item.path)
            if current.data == base { return current.entry.rev }
            guard store.keepsHistory else { return nil }
            for entry in try await store.revisions(item.path, limit: 10).entries where entry.rev != current.entry.rev {
                guard let rev = entry.rev else { continue }
                if try await store.read(rev: rev).data == base { return rev }
            }
        } catch {
            _ = try Self.answer(error)
        }
        return nil
    }

    /// Writes `item` over itself in the outbox; a disk that refuses stops the send.
    func rewrite(_ item: OutboxItem) throws(RemoteError) {
        do {
            try outbox.replace(item)
        } catch {
            throw .local("cannot update the outbox in \(outbox.directory.path): \(error.localizedDescription)")
        }
    }

    /// What a merge attempt came to: a result already, or merged bytes to upload over `theirs`.
    enum MergeStep {
        case done(OutboxAnswer)
        case upload(Data, theirs: RemoteEntry)
        /// The note is not at the item's path because someone moved it: it is here now.
        case moved(String)
    }

    /// Where the note a save was written on is now, when someone moved it (not deleted it):
    /// the server names a revision by the file it belongs to, so its base rev's entry has the
    /// note's path today (a club server; Dropbox). Nil when it is gone, or the store cannot say.
    /// A failure to ask that a retry may mend stops the send (it goes again later) rather than
    /// call the note deleted.
    func movedElsewhere(_ item: OutboxItem, baseRev: String) async throws(RemoteError) -> String? {
        guard store.keepsHistory else { return nil }
        do {
            let then = try await store.read(rev: baseRev).entry
            guard then.pathLower != item.path.lowercased() else { return nil }
            let now = try await store.metadata(then.path)
            return now.kind == .file ? now.path : nil
        } catch {
            _ = try Self.answer(error)
            return nil
        }
    }

    /// Where this machine moved the note of `item` since it was queued at its path (an editor
    /// that had it open there saved after the move, ``Outbox/whereMoved(_:)``). The save goes
    /// there and is sent as if queued there: a note someone else moved on from there is looked
    /// for as any is (``movedElsewhere(_:baseRev:)``), and a note gone from there is said gone
    /// from there, not from the path this member moved it away from.
    ///
    /// Where the server can say which note the save was written on (its base rev's file), only
    /// that note follows: another note made at the old path since, and gone, is said gone, its
    /// text kept as a draft, never laid into the note this member moved away.
    func movedHere(_ item: OutboxItem, baseRev: String) async -> String? {
        guard let moved = outbox.whereMoved(item.path), moved.path.lowercased() != item.path.lowercased() else { return nil }
        if let id = moved.id, store.keepsHistory, let then = try? await store.read(rev: baseRev).entry, let written = then.id, written != id {
            return nil
        }
        return moved.path
    }

    /// Reads the note now and its base rev and merges `text` in; see ``sendSave(_:)``.
    func merge(_ item: OutboxItem, text: String, baseRev: String) async throws(RemoteError) -> MergeStep {
        let data = Data(text.utf8)
        let current: (data: Data, entry: RemoteEntry)
        do {
            current = try await store.read(item.path)
        } catch {
            let failure = try Self.answer(error)
            if case .notFound = failure {
                if let path = try await movedElsewhere(item, baseRev: baseRev) { return .moved(path) }
                if let path = await movedHere(item, baseRev: baseRev) { return .moved(path) }
                return .done(OutboxAnswer(try keepDraft(item, text: text, gone: true,
                                                        reason: "\(Self.shown(item.title)) was deleted on the server meanwhile; your text is kept as a draft"),
                                          cause: .gone))
            }
            return .done(OutboxAnswer(try keepDraft(item, text: text, gone: false,
                                                    reason: Self.notSaved(item, failure)),
                                      cause: .failed(failure)))
        }
        // Our bytes are there already: this save reached the server before a crash.
        if current.data == data {
            settleDraft(of: item, landed: current.entry, text: text)
            return .done(OutboxAnswer(.sent(current.entry)))
        }
        let changed = "\(Self.shown(item.title)) was changed by someone else meanwhile"
        let base: Data
        do {
            // The text this change was written on, when it was kept (``OutboxItem/baseText``);
            // else the server's revision of its base rev.
            if let baseText = item.baseText { base = Data(baseText.utf8) } else { base = try await store.read(rev: baseRev).data }
        } catch {
            let failure = try Self.answer(error)
            let why: String
            if case .notFound = failure { why = "the version you edited is gone from the server" } else { why = failure.message }
            return .done(OutboxAnswer(try keepDraft(item, text: text, gone: false,
                                                    reason: "\(changed) and cannot be merged (\(TerminalSafe.escape(why))); your text is kept as a draft")))
        }
        guard let baseText = String(validating: base, as: UTF8.self), let theirs = String(validating: current.data, as: UTF8.self) else {
            return .done(OutboxAnswer(try keepDraft(item, text: text, gone: false,
                                                    reason: "\(changed) and its text is not UTF-8, so it cannot be merged; your text is kept as a draft")))
        }
        if PlantedBug.burstReplayedTwice.isPlanted, text.hasPrefix(baseText) {
            // The planted bug: what was typed is laid onto their text again, as a journal replayed.
            return .upload(Data((theirs + text.dropFirst(baseText.count)).utf8), theirs: current.entry)
        }
        switch NoteMergeDriver.merge(base: baseText, mine: text, theirs: theirs) {
        case .overlapping:
            return .done(OutboxAnswer(try keepDraft(item, text: text, gone: false, reason: "\(changed); open it to merge"),
                                      theirs: OutboxTheirs(entry: current.entry, text: theirs, base: baseText)))
        case .theirsHoldsMine:
            // Everything we changed was there already: nothing to upload.
            settleDraft(of: item, landed: current.entry, text: theirs)
            return .done(OutboxAnswer(.merged(current.entry, by: current.entry.modifiedBy), text: theirs))
        case .merged(let merged):
            return .upload(Data(merged.utf8), theirs: current.entry)
        }
    }

    // MARK: - Creates

    /// A create is `add`, never over another note. Our own bytes found there mean it was sent
    /// before a crash (the server also answers an `add` of identical bytes with the file); a
    /// different note of that name leaves our text as a draft of a new note.
    func sendCreate(_ item: OutboxItem) async throws(RemoteError) -> OutboxAnswer {
        guard let text = item.text else { return OutboxAnswer(.refused("Not created: \(Self.shown(item.title)) had no text in the outbox")) }
        let data = Data(text.utf8)
        if item.tried == true, let landed = try await landedBeside(item, data) {
            // Sent before without an answer, and the club has it (moved since, as the path
            // holds nothing now): sent, not made a second time.
            settleDraft(of: item, landed: landed, text: text)
            return OutboxAnswer(.sent(landed))
        }
        if item.tried != true {
            // Marked before it goes: a process killed while the server takes it never hears.
            var tried = item
            tried.tried = true
            try rewrite(tried)
        }
        let failure: RemoteError
        do {
            let entry = try await store.upload(data: data, to: item.path, mode: .add, autorename: false)
            settleDraft(of: item, landed: entry, text: text)
            return OutboxAnswer(.sent(entry))
        } catch {
            // Refused at once, it never reached the server: nothing to look for next time.
            if error.isRefused, item.tried != true { try? outbox.replace(item) }
            failure = try Self.answer(error)
        }
        guard case .conflict = failure else {
            return OutboxAnswer(try keepDraft(item, text: text, gone: true, reason: "Not created: \(Self.shown(item.title)): \(failure.message); your text is kept as a draft"),
                                cause: .failed(failure))
        }
        do {
            let current = try await store.read(item.path)
            if current.data == data {
                settleDraft(of: item, landed: current.entry, text: text)
                return OutboxAnswer(.sent(current.entry))
            }
            if item.joinsExisting == true, let theirs = String(validating: current.data, as: UTF8.self) {
                return try await join(item, text: text, theirs: theirs, at: current.entry)
            }
        } catch {
            _ = try Self.answer(error)
        }
        let name = TerminalSafe.escape((item.path as NSString).lastPathComponent)
        return OutboxAnswer(try keepDraft(item, text: text, gone: true,
                                          reason: "A note named \"\(TerminalSafe.escape(name))\" already exists on the server; yours is kept as a draft of a new note"),
                            cause: .nameTaken)
    }

    /// A note in the create's folder, other than at its own path, that holds exactly its bytes:
    /// where a create that landed unheard was moved to. Only notes of its size are read (a few).
    /// A failure a retry may mend stops the send, as in ``movedElsewhere(_:baseRev:)``.
    func landedBeside(_ item: OutboxItem, _ data: Data) async throws(RemoteError) -> RemoteEntry? {
        do {
            do {
                _ = try await store.metadata(item.path)
                return nil
            } catch .notFound {
                // The path is free: the create is either not in the club, or moved on.
            }
            let entries = try await store.list((item.path as NSString).deletingLastPathComponent)
            for entry in entries.prefix(10_000) where entry.kind == .file && entry.size == Int64(data.count) && entry.pathLower != item.path.lowercased() {
                let read = try await store.read(entry.path)
                if read.data == data { return read.entry }
            }
        } catch {
            _ = try Self.answer(error)
        }
        return nil
    }

    /// A create that joins the note of its name (``OutboxItem/joinsExisting``): their text,
    /// then ours, as one note, saved over their rev (a save of ours then merges if it moved again).
    func join(_ item: OutboxItem, text: String, theirs: String, at entry: RemoteEntry) async throws(RemoteError) -> OutboxAnswer {
        var joined = item
        joined.kind = .save
        joined.text = ThreeWayMerge.union(theirs, text)
        joined.baseRev = entry.rev
        joined.baseText = theirs
        let answer = try await sendSave(joined)
        switch answer.result {
        case .sent(let saved?):
            settleDraft(of: item, landed: saved, text: joined.text ?? text)
            return OutboxAnswer(.merged(saved, by: entry.modifiedBy), text: joined.text)
        case .merged(let saved, _):
            settleDraft(of: item, landed: saved, text: answer.text ?? joined.text ?? text)
            return answer
        default:
            return answer
        }
    }

    // MARK: - Drafts

    /// Keeps `text` as a draft and answers `.conflict` with `reason`.
    ///
    /// `gone`: the note is not on the server (deleted, or a create whose name is taken), so the
    /// draft is of a new note (no path, no base rev). A draft already at that id with other text
    /// (the user kept editing after the save was queued) is never overwritten: ours becomes a
    /// draft of a new note with an id of its own, a row of its own in the list (the list shows
    /// one draft per note, so a second draft of the same note would be hidden).
    /// Without a drafts folder the item must stay in the outbox, so this throws.
    func keepDraft(_ item: OutboxItem, text: String, gone: Bool, reason: String) throws(RemoteError) -> OutboxResult {
        guard let drafts else {
            throw .local("\(Self.shown(item.title)) could not be sent as it was, and there is no drafts folder to keep it in; it stays in the outbox")
        }
        var id = item.draftID ?? (gone && item.kind == .create ? Draft.newID() : Draft.id(forPath: item.path))
        var isNew = gone || item.kind == .create
        if let existing = drafts.load(id) {
            if existing.body != text {
                id = Draft.newID()
                isNew = true
            } else if !drafts.isOurs(id) {
                // The draft holds this very text already, kept there by the process that queued
                // it: left as it is, that process's. Written again here, it became this
                // process's, and an editor of the note in this process, whose text it never was,
                // removed it once its own save landed (the simulation's app histories: a line
                // the shell queued, sent by the app, was lost).
                return .conflict(draftID: id, reason: reason)
            }
        }
        var draft = Draft(id: id, path: isNew ? nil : item.path, baseRev: isNew ? nil : item.baseRev,
                          title: item.title, body: text, updated: now())
        // The text it was written on goes with it: the next save's merge base where the server
        // keeps no revisions (WebDAV).
        if !isNew { draft.baseText = item.baseText }
        do {
            try drafts.save(draft)
        } catch {
            throw .local("cannot keep \(Self.shown(item.title)) as a draft in \(drafts.directory.path): \(error.localizedDescription)")
        }
        return .conflict(draftID: id, reason: reason)
    }

    /// Once the server has the item's text (as `landed`, whose text is `text`), its draft goes
    /// or moves onto the note (``Draft/afterSend(of:landed:text:)``). The app does the same on
    /// its UI queue, where its journal writes drafts (``removesSentDrafts``).
    func settleDraft(of item: OutboxItem, landed: RemoteEntry, text landedText: String) {
        guard removesSentDrafts, let drafts, let id = item.draftID, let draft = drafts.load(id) else { return }
        switch draft.afterSend(of: item, landed: landed, text: landedText) {
        case .remove: drafts.remove(id)
        case .move(let moved): try? drafts.save(moved)
        case .keep: break
        }
    }
}

extension Draft {
    /// What becomes of a draft once the club has its outbox item's text.
    public enum AfterSend: Equatable, Sendable {
        /// It holds no more than the club has now: it goes.
        case remove
        /// It holds more, typed since the item was queued: it stays, as this draft of the note.
        case move(Draft)
        /// It stays as it is.
        case keep
    }

    /// What becomes of this draft, the one `item` was queued from, now that the club has the
    /// item's text as `landed`, whose text is `landedText` (the item's own, or a merge that holds
    /// it). Holding no more than that, it goes. Edited since, it is newer work and stays, moved
    /// onto the note it was written on: its path, its rev and that rev's text, with what was
    /// typed since laid onto a merge. Left as it was (a new note's draft, or over the old rev),
    /// it was a second note in the list beside the user's own, and its save asked to overwrite
    /// or copy it; moved, it saves onto it with no question, whichever shell sent the item (an
    /// app killed before the answer came, the next app, `outbox --send`).
    ///
    /// Only a draft still over the item's own base moves (the same rev, or none for a new note);
    /// one whose typing overlaps a merge stays over its base, so its save merges again.
    public func afterSend(of item: OutboxItem, landed: RemoteEntry, text landedText: String) -> AfterSend {
        guard let sent = item.text else { return .keep }
        if body == sent || body == landedText { return .remove }
        guard baseRev == item.baseRev, let rev = landed.rev,
              let rebased = NoteMergeDriver.rebase(typed: body, from: sent, onto: landedText) else { return .keep }
        var moved = self
        moved.path = landed.path
        moved.baseRev = rev
        moved.baseText = landedText
        moved.body = rebased
        moved.folder = nil
        return .move(moved)
    }
}
