import Foundation
import Remote

/// What a save's answer leads to, as a value: `saving` → `saved`, or → `conflict` (which a
/// merge resolves when the note can be merged, or the conflict dialog otherwise), or the text
/// waits in the outbox, or the save failed and the draft keeps the text. The notes controller
/// carries the outcome out; this decides it, with no server, no screen and no clock.
enum NoteSave {
    /// The answer to one save: the upload's result, where a rename moved the note first, and
    /// whether a new title's name belongs to another note.
    struct Reply: Sendable {
        var moved: RemoteEntry?
        var result: Result<RemoteEntry, RemoteError>
        /// The new title's file name belongs to another note.
        var nameTaken = false
        /// The note is gone from the server (found so before a rename): nothing was written.
        var deleted = false
    }

    /// Where the save ends.
    enum Outcome: Equatable {
        /// The server has the text: the baseline moves to `entry`. `adoptName`: the title
        /// becomes the name the server gave (a copy).
        case saved(RemoteEntry, adoptName: Bool)
        /// The new title names another note: nothing was written, the title is to change.
        case nameTaken
        /// Another member deleted the note: nothing was written, and the user chooses to save
        /// it again as a new note or to discard it (never "changed on the server").
        case deleted
        /// Another member saved since it was opened: their change and ours are merged.
        case merge
        /// The note changed (or a new note's name exists) and cannot be merged: the dialog asks.
        case conflict
        /// The server cannot be reached: the outbox keeps the text and sends it when it is back.
        case queue(RemoteError)
        /// Any other failure: the draft keeps the text, and Ctrl-S retries.
        case failed(RemoteError)
    }

    /// The outcome of `reply` for a session that `canMerge` (opened at a rev, its name unchanged),
    /// in an app that `canQueue` (it has an outbox). A copy (`adoptName`) never waits in the
    /// outbox: its new name is only known once the server answers.
    static func outcome(of reply: Reply, canMerge: Bool, canQueue: Bool, adoptName: Bool) -> Outcome {
        switch reply.result {
        case .success(let entry): return .saved(entry, adoptName: adoptName)
        case .failure where reply.nameTaken: return .nameTaken
        case .failure where reply.deleted: return .deleted
        case .failure(.conflict) where reply.moved == nil && canMerge: return .merge
        case .failure(.conflict): return .conflict
        case .failure(let error) where error.isUnreachable && canQueue && !adoptName: return .queue(error)
        case .failure(let error): return .failed(error)
        }
    }

    /// The session as the answer leaves it, before its outcome is carried out: editing again,
    /// and at the new name when a rename went through, whatever the upload did.
    static func answered(_ session: NoteSession, by reply: Reply) -> NoteSession {
        var session = session
        session.phase = .editing
        if let moved = reply.moved {
            session.entry = moved
            session.baseRev = moved.rev
        }
        return session
    }
}
