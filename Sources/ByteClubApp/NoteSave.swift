import ClubKit

/// The open note's save: the core's machine (``NoteSaveMachine``), which `byteclub edit` drives
/// too, holding the app's merge view while a merge is under way.
typealias NoteSave = NoteSaveMachine<MergeSession>

extension NoteSaveMachine where Merge == MergeSession {
    /// The session as the answer leaves it, before its outcome is carried out: editing again,
    /// and at the new name when a rename went through, whatever the upload did.
    static func answered(_ session: NoteSession, by reply: Reply, at now: Double) -> NoteSession {
        var session = session
        session.save.resumed(at: now)
        if let moved = reply.moved {
            session.entry = moved
            session.baseRev = moved.rev
        }
        return session
    }
}
