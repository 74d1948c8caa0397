import DropboxWire
import Foundation

/// A club member: a name and the bearer token that proves it (`serve --member NAME=TOKEN`).
///
/// Members are who revisions are recorded for and what `users/get_current_account` answers.
/// With only a shared token (`--token`), every caller is the one member `club`.
public struct ClubMember: Sendable, Hashable {
    public var name: String
    public var token: String

    /// Who a shared token speaks for.
    public static let sharedName = ClubAccount.sharedName

    public init(name: String, token: String) {
        self.name = name
        self.token = token
    }

    /// Parses `NAME=TOKEN` (the name may hold spaces; the token is everything after the first
    /// `=`), throwing a message fit for a command-line error.
    public init(parsing text: String) throws(MemberError) {
        guard let equals = text.firstIndex(of: "=") else { throw MemberError("--member must look like NAME=TOKEN, got '\(text)'") }
        let name = text[..<equals].trimmingCharacters(in: .whitespaces)
        let token = String(text[text.index(after: equals)...])
        guard !name.isEmpty else { throw MemberError("--member needs a name before '='") }
        guard !token.isEmpty else { throw MemberError("--member \(name) needs a token after '='") }
        guard name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }), name.utf8.count <= 100 else {
            throw MemberError("--member \(name.debugDescription): a name is at most 100 bytes of printable text")
        }
        guard token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw MemberError("--member \(name): a token is printable ASCII without spaces (it travels in an HTTP header)")
        }
        self.init(name: name, token: token)
    }

    /// Checks a whole list: every token distinct (a token names exactly one member), and none
    /// equal to the shared token.
    public static func validate(_ members: [ClubMember], sharedToken: String?) throws(MemberError) {
        var seen = Set<String>()
        for member in members {
            guard seen.insert(member.token).inserted else { throw MemberError("two members share the token of --member \(member.name); each needs its own") }
            if let sharedToken, member.token == sharedToken { throw MemberError("--member \(member.name) uses the same token as --token") }
        }
    }

    /// "dbid:" and 35 characters from a hash of the name: stable across restarts and servers,
    /// the same for a member with two tokens (two devices), and revealing nothing of the token.
    ///
    /// Forty characters in all, as Dropbox's spec (`users_common.AccountId`) fixes them: the SDKs
    /// validate every answer against it, and the official Python SDK refused the 37-character ids
    /// this server gave before. Those old ids are this one cut short (`legacyAccountIDLength`), so
    /// a client that cached one can still name its member (`isAccountID(_:of:)`).
    public static func accountID(of name: String) -> String { ClubAccount.id(of: name) }

    /// Dropbox's account ids are exactly this long.
    public static let accountIDLength = ClubAccount.idLength
    /// The length of the ids servers before issue 23 answered ("dbid:" and 32 characters).
    public static let legacyAccountIDLength = 37

    /// Whether `id` names member `name`: its id, or the shorter id an older server gave it.
    public static func isAccountID(_ id: String, of name: String) -> Bool {
        let current = accountID(of: name)
        return id == current || (id.count == legacyAccountIDLength && current.hasPrefix(id))
    }

    /// What `get_current_account` says of a member.
    public static func account(of name: String) -> Account {
        let local = name.lowercased().unicodeScalars.map { scalar -> String in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII ? String(scalar) : "."
        }.joined()
        return Account(accountID: accountID(of: name), name: AccountName(displayName: name), email: "\(local.isEmpty ? "member" : local)@club.local")
    }
}

/// A bad `--member` value or list.
public struct MemberError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The member making the current request, set by `BearerAuth` (ClubAuth) around the handler, so a commit
/// deep inside `FolderStore` can record who made it without every call passing it along.
enum Caller {
    @TaskLocal static var member: String?
}
