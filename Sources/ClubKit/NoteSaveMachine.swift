import Foundation
import Remote

/// One save of the open note, from `Ctrl-S` to the server's answer, as a value:
/// `editing` → `queued` (waiting in the outbox: offline, or behind older changes) or `sending`
/// (online: the outbox sends it at once) → `saved`, or `conflict`/`merge` (a merge resolves it
/// when the note can be merged, the conflict dialog otherwise), or back to `queued` when the
/// server went away or has not answered within the runner's grace, or to `editing` when it
/// failed (the draft keeps the text).
///
/// Every `Ctrl-S` is outbox items (a rename, then the save; or a create); the
/// outbox's sender answers with each item's report, and this decides what it comes to: one
/// vocabulary (``SaveOutcome``) for both shells. The app's notes controller carries the outcome
/// out on its screen, and `byteclub edit`/`new` (``NoteEditing``) in its words and exit status,
/// so one answer of the club's is one outcome in either. No server, no screen: the time of each
/// event is passed in (the app's monotonic clock), so a test drives it by hand.
///
/// `Merge` is what the shell shows of a merge under way: the app's merge view (its conflicts and
/// the choices made); the command line, whose merge is both sides marked in the editor, holds
/// none (`Never`).
public struct NoteSaveMachine<Merge: Equatable & Sendable>: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        case editing, queued, sending, conflict, merge, saved
    }
    public typealias Answer = SaveAnswer
    public typealias Outcome = SaveOutcome
    public typealias Reply = SaveReply

    public init() {}

    /// A save sent at once (online `Ctrl-S`), as it was sent: the session's generation then, the
    /// editor's version, the note's name and the text, and its outbox items. The one record of
    /// it: the answers are taken for it while ``items`` still waits for them, and what the
    /// server saved is told from it (its text, when nothing was typed since).
    public struct Sent: Equatable, Sendable {
        public var generation: Int
        public var version: Int
        public var name: String
        public var text: String
        public var items: [String]

        public init(generation: Int, version: Int, name: String, text: String, items: [String]) {
            self.generation = generation
            self.version = version
            self.name = name
            self.text = text
            self.items = items
        }
    }

    public private(set) var phase = Phase.editing
    /// Whether the save's writes are under way: Ctrl-S's items being sent, the conflict
    /// dialog's Overwrite or copy, or a merge (fetching theirs, saving the merged text).
    public var isInFlight: Bool { phase == .sending || phase == .merge }
    /// When ``phase`` began.
    public private(set) var since: Double = 0
    /// The outbox items of the save under way that wait for their answers, in the order they
    /// are sent (none once answered).
    public private(set) var items: [String] = []
    /// The last save sent at once (nil for one queued: the outbox answers it as any item).
    public private(set) var sent: Sent?
    /// The merge view a save that met another member's change opened (its conflicts and the
    /// choices made so far), until it is saved or left.
    public var merge: Merge?
    /// The last outbox item this editor queued, sent at once or left to wait: its next one
    /// follows it (``OutboxItem/follows``), and only its confirmation moves the editor's base rev.
    public private(set) var lastQueued: String?

    /// How long the save has been in its phase at `now`.
    public func elapsed(at now: Double) -> Double { now - since }

    /// `Ctrl-S` put `items` in the outbox to wait their turn (offline, or behind older changes).
    public mutating func queued(_ items: [String], at now: Double) {
        self.items = items
        sent = nil
        lastQueued = items.last
        enter(.queued, at: now)
    }

    /// `Ctrl-S` sent `sent`'s items at once; the editor waits for their answers.
    public mutating func sending(_ sent: Sent, at now: Double) {
        items = sent.items
        self.sent = sent
        lastQueued = sent.items.last
        enter(.sending, at: now)
    }

    /// The editor takes up `item`, waiting in the outbox (its draft opened as queued), or, nil,
    /// no longer follows what it queued (its text made a new note).
    public mutating func follows(_ item: String?) {
        lastQueued = item
    }

    /// The runner's answer for this save, for a session that `canMerge`; ``Outcome/ignored``
    /// when it is about an item of another save.
    public mutating func answered(_ answer: Answer, canMerge: Bool, at now: Double) -> Outcome {
        switch answer {
        case .stopped(let error, let waits, let stopped):
            guard !items.isEmpty, stopped == items else { return .ignored }
            items = []
            enter(waits ? .queued : .editing, at: now)
            return waits ? .queue(error) : .failed(error)
        case .unanswered(let waiting):
            guard !items.isEmpty, waiting == items else { return .ignored }
            items = []
            enter(.queued, at: now)
            return .waits
        case .report(let report):
            guard let index = items.firstIndex(of: report.item.id) else { return .ignored }
            let outcome = Self.outcome(of: report, last: index == items.count - 1, canMerge: canMerge)
            switch outcome {
            case .moved, .ignored: return outcome
            case .saved, .merged: enter(.saved, at: now)
            case .merge: enter(.merge, at: now)
            case .conflict, .deleted, .nameTaken: enter(.conflict, at: now)
            case .queue, .waits: enter(.queued, at: now)
            case .failed, .refused: enter(.editing, at: now)
            }
            items = []
            return outcome
        }
    }

    /// A write made at once (the conflict dialog's Overwrite or Save as copy) is under way.
    public mutating func writing(at now: Double) {
        items = []
        enter(.sending, at: now)
    }

    /// A merge of theirs and ours is under way (after a save found their change, or asked for).
    public mutating func merging(at now: Double) {
        items = []
        enter(.merge, at: now)
    }

    /// Editing again after a conflict or a merge was dealt with.
    public mutating func resumed(at now: Double) {
        items = []
        enter(.editing, at: now)
    }

    private mutating func enter(_ phase: Phase, at now: Double) {
        self.phase = phase
        since = now
    }

    /// What one item's report comes to: `last` is the save's final item (a rename before it
    /// only moves the note).
    public static func outcome(of report: OutboxReport, last: Bool, canMerge: Bool) -> Outcome {
        let reason: String
        switch report.result {
        case .sent(let moved?) where !last && report.item.kind == .rename: return .moved(moved, movesBase: true)
        case .merged(let moved, _) where !last && report.item.kind == .rename: return .moved(moved, movesBase: false)
        case .sent(let entry?): return .saved(entry, adoptName: false)
        case .merged(let entry, let by): return report.text.map { .merged(entry, text: $0, by: by) } ?? .saved(entry, adoptName: false)
        case .sent(nil): return .refused("the server gave no note back")
        case .conflict(_, let why), .refused(let why): reason = why
        }
        if case .failed(let error)? = report.cause { return .failed(error) }
        switch report.item.kind {
        case .rename:
            if report.cause == .nameTaken { return .nameTaken }
            if report.cause == .changed { return .conflict }
            return report.cause == .gone ? .deleted : .refused(reason)
        case .create:
            return report.cause == .nameTaken ? .conflict : .refused(reason)
        case .save:
            if report.cause == .gone { return .deleted }
            return canMerge ? .merge(report.theirs) : .conflict
        case .delete, .upload:
            return .refused(reason)
        }
    }

    /// The outcome of `reply` for a session that `canMerge` (opened at a rev, its name unchanged),
    /// in an app that `canQueue` (it has an outbox). A copy (`adoptName`) never waits in the
    /// outbox: its new name is only known once the server answers.
    public static func outcome(of reply: Reply, canMerge: Bool, canQueue: Bool, adoptName: Bool) -> Outcome {
        switch reply.result {
        case .success(let entry): return .saved(entry, adoptName: adoptName)
        case .failure where reply.nameTaken: return .nameTaken
        case .failure where reply.deleted: return .deleted
        case .failure(.conflict) where reply.moved == nil && canMerge: return .merge(nil)
        case .failure(.conflict): return .conflict
        case .failure(let error) where error.isUnreachable && canQueue && !adoptName: return .queue(error)
        case .failure(let error): return .failed(error)
        }
    }
}

/// What the outbox tells the editor that waits for its save (the app's outbox runner, or
/// `byteclub edit` sending it), each answer naming the items it is about: a save's answer never
/// reaches another save.
public enum SaveAnswer: Sendable, Equatable {
    /// One of the save's items was sent or resolved.
    case report(OutboxReport)
    /// The send of `items` stopped on `error`; `waits`: they stay in the outbox (the server
    /// cannot be reached and the user has an outbox), else they were taken back out.
    case stopped(RemoteError, waits: Bool, items: [String])
    /// No answer for `items` in time (the app's runner waits a grace, as a server that stalls
    /// answers nothing for the whole idle limit; the command line, while another byteclub sends
    /// the outbox): they wait in the user's outbox, and their results come as any queued item's.
    case unanswered(items: [String])
}

/// The answer to one save: the upload's result, where a rename moved the note first, and
/// whether a new title's name belongs to another note.
public struct SaveReply: Sendable {
    public var moved: RemoteEntry?
    public var result: Result<RemoteEntry, RemoteError>
    /// The new title's file name belongs to another note.
    public var nameTaken = false
    /// The note is gone from the server (found so before a rename): nothing was written.
    public var deleted = false

    public init(moved: RemoteEntry? = nil, result: Result<RemoteEntry, RemoteError>, nameTaken: Bool = false, deleted: Bool = false) {
        self.moved = moved
        self.result = result
        self.nameTaken = nameTaken
        self.deleted = deleted
    }
}

/// Where a save ends, in both shells (``NoteSaveMachine``).
public enum SaveOutcome: Equatable, Sendable {
    /// The server has the text: the baseline moves to `entry`. `adoptName`: the title
    /// becomes the name the server gave (a copy).
    case saved(RemoteEntry, adoptName: Bool)
    /// The new title names another note: nothing was written, the title is to change.
    case nameTaken
    /// Another member deleted the note: nothing was written (never "changed on the server").
    /// The app asks whether to save it again as a new note or to discard it; the command line
    /// keeps it as a draft that `byteclub new` of its title makes again.
    case deleted
    /// Another member saved since it was opened: their change and ours are merged. `theirs`:
    /// the texts the outbox's sender read to merge, when it did (nothing is read again).
    case merge(OutboxTheirs?)
    /// The note changed (or a new note's name exists) and cannot be merged: the dialog asks.
    case conflict
    /// The server cannot be reached: the outbox keeps the text and sends it when it is back.
    case queue(RemoteError)
    /// The server has not answered yet: the items wait in the outbox, which goes on sending
    /// them; the editor goes on as after a save made offline.
    case waits
    /// Any other failure: the draft keeps the text, and Ctrl-S retries.
    case failed(RemoteError)
    /// A rename went first: the note is at `entry` now (its base rev too, unless someone
    /// else's change came with it); the save after it is still to come.
    case moved(RemoteEntry, movesBase: Bool)
    /// The sender merged ours with another member's change and saved it (`by`: their account).
    case merged(RemoteEntry, text: String, by: String?)
    /// Not done, for `reason`, which the status bar says; the draft keeps the text.
    case refused(String)
    /// About another save.
    case ignored
}
