import Foundation

/// What `byteclub members` does, the same whether it works on the folder (`--root`) or asks a
/// running server (`--remote`, ClubAPI+Invites): one definition of each change and its audit line.
extension MemberRegistry {
    /// How long an invite works unless told otherwise: a day.
    public static let defaultInviteHours: Double = 24

    /// Makes a one-time invite for `name` and returns it; only its secret's hash is kept.
    public func invite(_ name: String, role: MemberRole, hours: Double, server: URL, pin: String?, actor: String, now: Date = Date()) throws -> Invite {
        guard hours > 0, hours <= 24 * 365 else { throw MemberError("an invite lasts between a minute and a year (--expires in hours), not \(hours)") }
        let secret = MemberBook.randomSecret(bytes: 24)
        try update(actor: actor) { book in
            book.dropExpired(now: now)
            try book.invite(name, role: role, secretHash: MemberBook.hash(secret), expires: now.addingTimeInterval(hours * 3600))
            return ((), [AuditEntry("invite", member: name, role: role)])
        }
        return Invite(server: server, secret: secret, pin: pin)
    }

    /// Redeems an invite's secret for a new token of the member's own (returned once, kept hashed).
    public func redeem(secret: String, now: Date = Date()) throws -> (token: String, member: MemberBook.Member) {
        let token = MemberBook.randomSecret(bytes: 32)
        let member = try update(actor: "invite") { book in
            let member = try book.redeem(secretHash: MemberBook.hash(secret), tokenHash: MemberBook.hash(token), now: now)
            return (member, [AuditEntry("join", member: member.name, role: member.role)])
        }
        return (token, member)
    }

    public func setRole(_ name: String, _ role: MemberRole, actor: String) throws {
        try update(actor: actor) { book in
            try book.setRole(name, role)
            return ((), [AuditEntry("role", member: name, role: role)])
        }
    }

    public func remove(_ name: String, actor: String) throws {
        try update(actor: actor) { book in
            try book.remove(name)
            return ((), [AuditEntry("remove", member: name)])
        }
    }

    /// `members list --json`'s object, snake_case as every `--json` is: the members, then the
    /// invites still open (no secrets, no token hashes).
    public static func listing(_ book: MemberBook, now: Date = Date()) -> [String: Any] {
        let formatter = ISO8601DateFormatter()
        return [
            "members": book.members.sorted { $0.name.lowercased() < $1.name.lowercased() }.map { member in
                ["name": member.name, "role": member.role.rawValue, "member_id": member.memberID, "devices": member.tokenHashes.count,
                 "added": formatter.string(from: member.added)] as [String: Any]
            },
            "invites": book.invites.filter { $0.expires > now }.map { invite in
                ["name": invite.name, "role": invite.role.rawValue, "expires": formatter.string(from: invite.expires)]
            },
        ]
    }
}
