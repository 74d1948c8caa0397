import Foundation

/// A bound on what one member's open upload sessions hold, so that no member can fill the
/// server's disk (or leave files of terabytes, sparse or not) with sessions never finished.
///
/// Each session knows its member from `<session>.owner`, written at its start. Before any bytes
/// land, an append claims the size it will leave its session at; the claim and the sum over the
/// member's other sessions (their files' apparent sizes, or a larger claim in flight) are taken
/// in one turn of this actor, so appends racing on different sessions cannot both slip under the
/// bound. Sessions from before owners were recorded belong to nobody and count for nobody.
extension FolderStore {
    static let ownerSuffix = ".owner"

    /// Limits on one member's open sessions (ClubServerConfiguration).
    struct SessionQuota: Sendable {
        var maxSessions: Int
        var maxBytes: Int64
    }

    /// Why a session may not open or grow.
    enum QuotaRefusal: Error, Equatable {
        case tooManySessions(open: Int)
        /// What the member's sessions would hold with the growth asked for.
        case tooManyBytes(wanted: Int64)
    }

    /// Records who opened a session; false if the marker cannot be written.
    static func recordOwner(_ member: String, of session: String) -> Bool {
        FileManager.default.createFile(atPath: session + ownerSuffix, contents: Data(member.utf8), attributes: [.posixPermissions: 0o600])
    }

    /// Checks that `member` may open one more session.
    func admitSession(of member: String, quota: SessionQuota) throws(QuotaRefusal) {
        let open = ownedSessions(of: member)
        guard open.count < quota.maxSessions else { throw .tooManySessions(open: open.count) }
    }

    /// Claims growth of `session` to `size` bytes for `member`, refused when the member's open
    /// sessions would then hold more than the quota. Release the claim when the append ends.
    /// Returns the most the member's sessions leave this one (what a body of unknown length may
    /// bring it to).
    @discardableResult
    func claimGrowth(of session: String, to size: Int64, member: String, quota: SessionQuota) throws(QuotaRefusal) -> Int64 {
        var held: Int64 = 0
        for other in ownedSessions(of: member) where other != session {
            // Each term is at most a session's largest file, so the sum of a few thousand fits.
            held += max(Self.apparentSize(other), sessionClaims[other] ?? 0)
        }
        let mine = max(size, Self.apparentSize(session))
        guard mine <= quota.maxBytes - held else { throw .tooManyBytes(wanted: held + mine) }
        sessionClaims[session] = max(sessionClaims[session] ?? 0, size)
        return quota.maxBytes - held
    }

    func releaseGrowth(of session: String) {
        sessionClaims[session] = nil
    }

    /// Removes a session's owner marker (the session itself was committed or removed).
    static func forgetOwner(of session: String) {
        unlink(session + ownerSuffix)
    }

    /// The sessions `member` has open (their paths).
    private func ownedSessions(of member: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sessionDirectory)) ?? []
        let wanted = Data(member.utf8)
        return names.filter { $0.hasSuffix(Self.ownerSuffix) }.compactMap { name in
            let session = sessionDirectory + "/" + String(name.dropLast(Self.ownerSuffix.count))
            guard FileManager.default.contents(atPath: sessionDirectory + "/" + name) == wanted,
                  FileManager.default.fileExists(atPath: session) else { return nil }
            return session
        }
    }

    private static func apparentSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
