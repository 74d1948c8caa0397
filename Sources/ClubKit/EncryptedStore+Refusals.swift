import ClubCrypt
import Foundation
import Remote
import Synchronization

/// Writes the club will refuse, refused here first; reads the club refused, answered with the
/// last version that is not.
///
/// A member removed from an encrypted club still holds a token the server takes and keys that
/// still seal: without a check here, their save would be acknowledged ("Saved") and then refused
/// by every other member's client, which would also lose sight of the note's last good text.
extension EncryptedStore: NoticingStore {
    /// Refuses a write when this member is no longer in the club's roster, with `.forbidden`,
    /// which is never queued or retried: the writer is told at once and their text stays a
    /// draft. Every write asks the server for the roster's revision (one small request); a
    /// revision other than the one last read means the roster is read and checked again. A
    /// removal, once seen, refuses every later write without asking. A roster that cannot be
    /// read now (offline) leaves the decision to the write itself.
    func confirmMembership() async throws(RemoteError) {
        if let removed = membership.withLock({ $0.removed }) { throw .forbidden(removed) }
        let rosterPath = keyring.files.roster
        let current: String?
        do {
            current = try await inner.metadata(rosterPath).rev
        } catch {
            return
        }
        if let current, current == membership.withLock({ $0.rosterRev }) { return }
        let fresh: ClubKeyring
        do {
            fresh = try await ClubKeyring.load(inner, folder: folder, key: key, me: keyring.me)
        } catch let refusal as ClubCryptError {
            if case .removed = refusal {
                let removed = "\(refusal.description): the club refuses your writes, so nothing was sent"
                membership.withLock { $0.removed = removed }
                throw .forbidden(removed)
            }
            return
        } catch {
            return
        }
        adopt(fresh)
        membership.withLock { $0.rosterRev = current }
    }

    /// Whether a refused read should fall back to an older revision: the newest version was
    /// written by a member after their removal, a write the club refuses but a member could
    /// still make. What only the server could have done (a swap, a rollback, a file no member
    /// signed) stays refused outright, as before.
    static func fallsBack(_ error: RemoteError) -> Bool {
        let message = error.message
        return message.hasPrefix("Refused ") && message.contains(" after they were removed from the club")
    }

    /// After the newest version of a file (`newest`) was refused (`refusal`): the newest older revision
    /// that opens and checks (no older than the newest this member has seen: no door to a
    /// rollback), placed at `destination`, with a notice of what was refused
    /// (``takeNotices()``). Throws `refusal` when no revision of the last ten opens.
    ///
    /// The entry keeps the newest revision's rev: a save built on what is shown replaces the
    /// refused version (an `update` at its rev), rather than conflicting with it for ever.
    func lastGoodRevision(of newest: RemoteEntry, hidden: String, to destination: URL, refusal: RemoteError) async throws(RemoteError) -> (RemoteEntry, WriteSignature, Int64) {
        guard let revisions = try? await inner.revisions(hidden, limit: 10) else { throw refusal }
        let sealed = URL(fileURLWithPath: destination.path + ".older")
        defer { try? FileManager.default.removeItem(at: sealed) }
        for revision in revisions.entries where revision.rev != newest.rev {
            guard let rev = revision.rev, let entry = try? await inner.download("rev:" + rev, to: sealed, resumeData: nil, progress: nil, onResumeData: nil),
                  var plainEntry = reveal(entry),
                  let opened = try? open(sealed: sealed, to: destination, path: plainEntry.path,
                                         minimumVersion: seen[signedPath(plainEntry.path)] ?? 0) else { continue }
            plainEntry.size = opened.1
            plainEntry.rev = newest.rev
            plainEntry.path = newest.path
            plainEntry.pathLower = newest.pathLower
            plainEntry.name = newest.name
            plainEntry.id = newest.id
            let when = plainEntry.modified.map { " of " + ISO8601DateFormatter.string(from: $0, timeZone: .gmt, formatOptions: [.withInternetDateTime]) } ?? ""
            notices.withLock {
                $0.append("\(refusal.message). Showing the last version that opens (rev \(rev)\(when)); `byteclub restore` makes it the newest again")
            }
            return (plainEntry, opened.0, opened.1)
        }
        throw refusal
    }

    /// What reads answered with less than was asked since the last call (a refused newest
    /// version, the older one shown instead), a line each for people; taking them clears them.
    public func takeNotices() -> [String] {
        notices.withLock { taken in
            defer { taken.removeAll() }
            return taken
        }
    }
}
