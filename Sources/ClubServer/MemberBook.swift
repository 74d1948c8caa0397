import Crypto
import Foundation

/// What a member may do.
public enum MemberRole: String, Codable, Sendable, CaseIterable, Comparable {
    /// Lists, downloads, searches and longpolls; every write is refused (`no_write_permission`).
    case reader
    /// Reads and writes: what every member was before roles.
    case editor
    /// An editor who also manages members (`members add|role|remove`).
    case admin

    /// "a reader", "an editor", "an admin": the role in a sentence.
    public var withArticle: String { (self == .reader ? "a " : "an ") + rawValue }

    public var canWrite: Bool { self != .reader }
    public var canManage: Bool { self == .admin }

    public static func < (lhs: MemberRole, rhs: MemberRole) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// A role from its name, with a message that lists the three.
    public init(parsing text: String) throws(MemberError) {
        guard let role = MemberRole(rawValue: text.lowercased()) else {
            throw MemberError("unknown role '\(text)': reader, editor or admin")
        }
        self = role
    }
}

/// The members and open invites of a club, as kept in `ROOT/.byteclub/members.json`.
///
/// A value with no disk and no clock: the registry reads and writes it, and every rule about
/// names, secrets and roles lives here, where a test can reach it without a server. Tokens and
/// invite secrets are kept only as SHA-256 hashes: the file leaks nothing a client could send.
public struct MemberBook: Codable, Sendable, Equatable {
    public struct Member: Codable, Sendable, Equatable {
        public var name: String
        public var role: MemberRole
        /// The hashes of the tokens that speak for this member (one per joined device).
        public var tokenHashes: [String]
        public var added: Date

        public var memberID: String { ClubMember.accountID(of: name) }

        enum CodingKeys: String, CodingKey { case name, role, tokenHashes = "token_hashes", added }
    }

    public struct Invite: Codable, Sendable, Equatable {
        public var name: String
        public var role: MemberRole
        public var secretHash: String
        public var expires: Date

        enum CodingKeys: String, CodingKey { case name, role, secretHash = "secret_hash", expires }
    }

    public var members: [Member] = []
    public var invites: [Invite] = []
    /// The names of members who were removed: their past changes still carry their account id,
    /// and `users/get_account` still answers it with the name they had.
    public var former: [String] = []
    /// The token hashes of removed members, each with the name it spoke for: such a token is
    /// refused with "You (NAME) were removed from this club", said to that member, not taken for
    /// a stranger's wrong token (which says nothing of who was asked for).
    public var removedTokens: [String: String] = [:]

    public init() {}

    enum CodingKeys: String, CodingKey { case members, invites, former, removedTokens = "removed_tokens" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        members = try container.decode([Member].self, forKey: .members)
        invites = try container.decode([Invite].self, forKey: .invites)
        // A book written before removed members were remembered has no list.
        former = try container.decodeIfPresent([String].self, forKey: .former) ?? []
        // Nor one written before removed members' tokens were kept.
        removedTokens = try container.decodeIfPresent([String: String].self, forKey: .removedTokens) ?? [:]
    }

    /// Every name the club has known: its members, then those removed (for old changes).
    public var knownNames: [String] { members.map(\.name) + former }

    public func member(named name: String) -> Member? { members.first { $0.name.lowercased() == name.lowercased() } }

    /// The member a token hash speaks for, or nil.
    public func member(forTokenHash hash: String) -> Member? { members.first { $0.tokenHashes.contains(hash) } }

    /// The name a removed member's token spoke for, or nil (a token never given, or still a
    /// member's).
    public func removedMember(forTokenHash hash: String) -> String? {
        member(forTokenHash: hash) == nil ? removedTokens[hash] : nil
    }

    /// An invite for a new member; one still open for the same name is replaced (its secret
    /// stops working), so a lost invite is fixed by asking again.
    public mutating func invite(_ name: String, role: MemberRole, secretHash: String, expires: Date) throws(MemberError) {
        try Self.checkName(name)
        if let existing = member(named: name) {
            throw MemberError("\(existing.name) is already a member (\(existing.role.rawValue)); use members role or members remove")
        }
        invites.removeAll { $0.name.lowercased() == name.lowercased() }
        invites.append(Invite(name: name, role: role, secretHash: secretHash, expires: expires))
    }

    /// Redeems an invite's secret once: the invite goes, and its member is made with the new
    /// token. An expired invite is removed and refused alike.
    public mutating func redeem(secretHash: String, tokenHash: String, now: Date) throws(MemberError) -> Member {
        dropExpired(now: now)
        guard let index = invites.firstIndex(where: { $0.secretHash == secretHash }) else {
            throw MemberError("this invite is not valid: it was used already, has expired, or was replaced; ask the club's admin for a new one")
        }
        let invite = invites.remove(at: index)
        let member = Member(name: invite.name, role: invite.role, tokenHashes: [tokenHash], added: now)
        members.append(member)
        return member
    }

    public mutating func setRole(_ name: String, _ role: MemberRole) throws(MemberError) {
        guard let index = members.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) else { throw Self.noSuchMember(name) }
        members[index].role = role
    }

    /// Removes a member (every token of theirs) or an open invite of that name.
    public mutating func remove(_ name: String) throws(MemberError) {
        let before = (members.count, invites.count)
        for member in members where member.name.lowercased() == name.lowercased() {
            if !former.contains(member.name) { former.append(member.name) }
            for hash in member.tokenHashes { removedTokens[hash] = member.name }
        }
        members.removeAll { $0.name.lowercased() == name.lowercased() }
        invites.removeAll { $0.name.lowercased() == name.lowercased() }
        guard before != (members.count, invites.count) else { throw Self.noSuchMember(name) }
    }

    public mutating func dropExpired(now: Date) {
        invites.removeAll { $0.expires <= now }
    }

    static func noSuchMember(_ name: String) -> MemberError { MemberError("no member named \(name.debugDescription) (see members list)") }

    /// Names are what revisions are recorded under and what a person types: printable, short,
    /// and not the shared token's `club`.
    static func checkName(_ name: String) throws(MemberError) {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.utf8.count <= 100,
              name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }) else {
            throw MemberError("a member's name is 1 to 100 bytes of printable text, got \(name.debugDescription)")
        }
        guard name.lowercased() != ClubMember.sharedName else { throw MemberError("\"\(ClubMember.sharedName)\" names the shared token; choose another name") }
    }

    /// The hex SHA-256 of a token or secret, as the book keeps it.
    public static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A new random secret, URL-safe base64 of `bytes` random bytes.
    public static func randomSecret(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// A one-line invite: `https://HOST:PORT/join/SECRET#sha256//PIN` (no `#…` for a plain-HTTP
/// server). The URL says where, the secret who (once), the pin which server: a client that
/// redeems it talks only to the server holding that key.
public struct Invite: Sendable, Equatable {
    public var server: URL
    public var secret: String
    public var pin: String?

    public init(server: URL, secret: String, pin: String?) {
        self.server = server
        self.secret = secret
        self.pin = pin
    }

    public var text: String {
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/join/" + secret + (pin.map { "#" + $0 } ?? "")
    }

    public init(parsing raw: String) throws(MemberError) {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let address = String(parts[0])
        let pin = parts.count > 1 ? String(parts[1]) : nil
        guard let range = address.range(of: "/join/", options: .backwards),
              let server = URL(string: String(address[..<range.lowerBound])), let scheme = server.scheme?.lowercased(),
              scheme == "https" || scheme == "http", server.host?.isEmpty == false else {
            throw MemberError("not an invite: expected https://HOST:PORT/join/SECRET#sha256//…, as `byteclub members add` prints it")
        }
        let secret = String(address[range.upperBound...])
        guard !secret.isEmpty, secret.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw MemberError("the invite's secret is missing or damaged; copy the whole line again")
        }
        if scheme == "https" {
            guard let pin, pin.hasPrefix("sha256//"), Data(base64Encoded: String(pin.dropFirst(8)))?.count == 32 else {
                throw MemberError("the invite has no valid key fingerprint (#sha256//…) after the secret; copy the whole line again")
            }
        }
        self.init(server: server, secret: secret, pin: scheme == "https" ? pin : nil)
    }
}
