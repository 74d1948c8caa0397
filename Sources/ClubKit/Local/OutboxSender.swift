import Foundation
import Remote

/// What sending one outbox item came to. Every result but ``stopped`` removes the item from the
/// outbox; none of them loses the user's text (a note that could not be sent as it was is kept
/// as a draft first).
public enum OutboxResult: Sendable, Equatable {
    /// The server has the change: `entry` is the note or photo after it (nil after a delete).
    /// Also when the change turned out to be there already (sent before a crash, before its
    /// confirmation was written): the rev check finds the server's text equal to ours.
    case sent(RemoteEntry?)
    /// The note had changed on the server meanwhile and ours was combined with it: a save's
    /// three-way merge was clean and saved, or a rename moved the note with their text in it.
    /// `by` is who made the change, as the server names them (an account id), if it says.
    case merged(RemoteEntry, by: String?)
    /// The note had changed (or a note of that name exists) and the changes overlap: the text is
    /// kept as the draft `draftID` over the rev it was based on, so opening it and saving brings
    /// up the merge view. `reason` is for the status bar.
    case conflict(draftID: String, reason: String)
    /// Not sent, for a reason a retry will not mend (a photo changed or gone since it was queued,
    /// a note deleted that someone changed meanwhile, a new name that is taken): `reason` says so.
    case refused(String)

    /// Whether the change is on the server (sent, or merged with theirs).
    public var went: Bool {
        switch self {
        case .sent, .merged: return true
        case .conflict, .refused: return false
        }
    }

    /// The note or photo the change made (none after a delete, or when it did not go).
    public var entry: RemoteEntry? {
        switch self {
        case .sent(let sent): return sent
        case .merged(let merged, _): return merged
        case .conflict, .refused: return nil
        }
    }
}

/// Why an item was not sent as it was, where the app answers differently (an editor waiting for
/// its own save says "a note named … already exists" or "deleted by …" rather than the reason).
public enum OutboxCause: Sendable, Equatable {
    /// The name a create or a rename wanted belongs to another note.
    case nameTaken
    /// The note is not on the server any more.
    case gone
    /// The note changed on the server since the item's base rev (a rename that moves only at it).
    case changed
    /// The server answered with another failure (not a conflict).
    case failed(RemoteError)
}

/// The three texts of a save whose changes overlap another member's, as the sender read them to
/// merge: the editor that queued the save shows them in its merge view as they are, rather than
/// read the note and its base again (issue 68: a conflict was fetched and merged twice).
public struct OutboxTheirs: Sendable, Equatable {
    /// Their revision: the note as the server has it.
    public var entry: RemoteEntry
    /// Its text.
    public var text: String
    /// The text both were written on (the save's base).
    public var base: String

    public init(entry: RemoteEntry, text: String, base: String) {
        self.entry = entry
        self.text = text
        self.base = base
    }
}

/// One item's result, as the sender reports it.
public struct OutboxReport: Sendable, Equatable {
    public var item: OutboxItem
    public var result: OutboxResult
    /// After a merge, the text the server now has (the editor that queued the save takes it).
    public var text: String?
    /// Why a conflict or a refusal happened, when the app answers it in its own words.
    public var cause: OutboxCause?
    /// A save kept as a draft because its changes overlap theirs: what the sender merged.
    public var theirs: OutboxTheirs?

    public init(item: OutboxItem, result: OutboxResult, text: String? = nil, cause: OutboxCause? = nil, theirs: OutboxTheirs? = nil) {
        self.item = item
        self.result = result
        self.text = text
        self.cause = cause
        self.theirs = theirs
    }
}

/// What sending one item came to, before the outbox is settled: the result and what the report adds.
struct OutboxAnswer: Sendable {
    var result: OutboxResult
    var text: String?
    var cause: OutboxCause?
    var theirs: OutboxTheirs?

    init(_ result: OutboxResult, text: String? = nil, cause: OutboxCause? = nil, theirs: OutboxTheirs? = nil) {
        self.result = result
        self.text = text
        self.cause = cause
        self.theirs = theirs
    }
}

/// What one step of the sender did.
public enum OutboxStep: Sendable, Equatable {
    /// An item was sent (or resolved) and is out of the outbox.
    case sent(OutboxReport)
    /// Nothing waits.
    case empty
    /// Another sender holds the lock.
    case busy
    /// The first item could not be sent now; it waits.
    case stopped(RemoteError)
}

/// How a run of the sender ended.
public enum OutboxRun: Sendable, Equatable {
    /// Every item was sent (or resolved): the outbox is empty, unless something was queued meanwhile.
    case done
    /// Another sender (a second app, `byteclub outbox --send`) holds the lock; nothing was sent.
    case busy
    /// An item could not be sent now (the server is unreachable, busy or failing); it and every
    /// item after it wait for the next run.
    case stopped(RemoteError)
}

/// Sends the outbox in order, under its lock, each item only after the one before it was
/// confirmed.
///
/// **Nothing is sent twice.** Two things make that safe: the lock (``Outbox/withSendLock(_:)``)
/// keeps two senders from working at once, and the rev check makes a send repeated after a crash
/// harmless: a save is `update` at its base rev, so a second send of a save the server already
/// applied conflicts, and the sender then finds the server's text equal to the item's and takes
/// it as sent; a create finds its note there with its text; a rename finds the note at its new
/// path; a delete finds nothing to delete; an upload finds a photo with its content hash.
///
/// After an item is confirmed, the items the same editor queued after it (``OutboxItem/follows``)
/// are retargeted before the item is removed: a rename's new path, and a save's base rev moved
/// to the rev the confirmed item made (only when that rev came straight from ours, never over
/// someone else's). A follower with no base rev yet (a new note's later changes, queued before
/// its create went out) takes whatever rev the item before it made.
public struct OutboxSender: Sendable {
    public let store: any RemoteStore
    public let outbox: Outbox
    /// Where a note that could not be merged is kept for the user; nil keeps it in the outbox.
    public let drafts: DraftStore?
    public let now: @Sendable () -> Date
    /// Whether a sent note's draft is removed here (the CLI). The app removes drafts itself, on
    /// its UI queue, where its journal writes them: never a draft it has just written anew.
    public var removesSentDrafts = true

    public init(store: any RemoteStore, outbox: Outbox, drafts: DraftStore?, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.outbox = outbox
        self.drafts = drafts
        self.now = now
    }

    /// Sends every item, in order, until one cannot be sent now; `report` is called after each
    /// item's result is on disk (the item removed, followers retargeted).
    public func sendAll(report: @Sendable (OutboxReport) async -> Void = { _ in }) async -> OutboxRun {
        // Read again after each item: the app may queue more while this runs.
        while true {
            switch await sendFirst() {
            case .sent(let done): await report(done)
            case .empty: return .done
            case .busy: return .busy
            case .stopped(let error): return .stopped(error)
            }
        }
    }

    /// Sends the first item under the send lock (the app sends one at a time, each turn of its
    /// loop a request of its own, as the lists do).
    public func sendFirst() async -> OutboxStep {
        let step = await outbox.withSendLock { () async -> OutboxStep in
            guard let item = outbox.all().first else { return .empty }
            if Task.isCancelled { return .stopped(.cancelled) }
            let answer: OutboxAnswer
            do throws(RemoteError) {
                answer = try await send(item)
            } catch {
                return .stopped(error)
            }
            do {
                try settle(item, answer.result)
            } catch {
                return .stopped(.local("cannot update the outbox in \(outbox.directory.path): \(error.localizedDescription)"))
            }
            return .sent(OutboxReport(item: item, result: answer.result, text: answer.text, cause: answer.cause, theirs: answer.theirs))
        }
        return step ?? .busy
    }

    /// Retargets the items after `item` and removes it.
    private func settle(_ item: OutboxItem, _ result: OutboxResult) throws {
        try outbox.retargetFollowers(of: item, result: result)
        try outbox.remove(item)
    }
}

/// Following what an item did (``OutboxSender``'s rule for chains, kept with the items).
extension Outbox {
    /// Moves the items made after `item` (``OutboxItem/follows``) to the path and rev it made.
    /// The sender runs it before removing `item`; the app retargets only what it queued while
    /// this one was being sent (the app's outbox runner), which the sender could not see.
    public func retargetFollowers(of item: OutboxItem, result: OutboxResult) throws {
        let entry = result.entry
        for var follower in all() where follower.id != item.id {
            if Self.retarget(&follower, after: item, entry: entry, result: result) { try replace(follower) }
        }
    }

    /// Changes `follower` to follow what `item` did; true when it changed.
    public static func retarget(_ follower: inout OutboxItem, after item: OutboxItem, entry: RemoteEntry?, result: OutboxResult) -> Bool {
        // Only along the editor's own chain: a change queued by another app from the same base
        // must merge with this one, not build on it.
        guard follower.kind != .upload, item.kind != .upload, follower.follows == item.id else { return false }
        let before = follower
        switch (item.kind, result) {
        case (.rename, .sent(let moved?)):
            follower.path = moved.path
            // The move was made at our base rev (the sender checks), so the rev after it is ours;
            // a save with no base yet follows a create that was renamed before it was sent.
            if follower.baseRev == item.baseRev || follower.baseRev == nil {
                // A move keeps the text: the base text, when known, stays the same.
                let text = follower.baseText
                follower.baseRev = moved.rev
                follower.baseText = text
            }
        case (.rename, .merged(let moved, _)):
            // Moved, but the note had changed on the server since our base rev: the rev after the
            // move holds someone else's change, so later saves keep their base rev and merge.
            follower.path = moved.path
        case (.save, .merged):
            // Our text went in merged with someone else's: a later save of ours still merges
            // (its base rev stays), from the text it was written on, this save's. From the older
            // base, our own change would meet itself in both sides and conflict.
            if follower.kind == .save, follower.baseRev == item.baseRev, let text = item.text { follower.baseText = text }
        case (.create, .sent(let created?)):
            // Later saves of a note created offline were queued as creates too: now it exists.
            if follower.kind == .create { follower.kind = .save }
            if follower.baseRev == nil || follower.baseRev == item.baseRev {
                follower.baseRev = created.rev
                follower.baseText = item.text
            }
            follower.path = created.path
        case (.save, .sent(let saved?)):
            // The rev the server made from exactly our text: later saves of ours build on it.
            // Not after a merge: its rev holds someone else's change too, which a later save
            // (written before it was seen) must merge with, not overwrite.
            if follower.baseRev == item.baseRev || follower.baseRev == nil {
                follower.baseRev = saved.rev
                follower.baseText = item.text
            }
        default:
            break
        }
        return follower != before
    }
}
