import Foundation

/// A person's name as Dropbox spells it out: `{"given_name","surname","familiar_name",
/// "display_name","abbreviated_name"}`.
public struct AccountName: Sendable, Hashable, Codable {
    public var givenName: String
    public var surname: String
    public var familiarName: String
    public var displayName: String
    public var abbreviatedName: String

    public init(givenName: String, surname: String, familiarName: String, displayName: String, abbreviatedName: String) {
        self.givenName = givenName
        self.surname = surname
        self.familiarName = familiarName
        self.displayName = displayName
        self.abbreviatedName = abbreviatedName
    }

    /// A club member's name: one word or several; the first is the given name, the rest the
    /// surname, and the initials of the first two words the abbreviation.
    public init(displayName: String) {
        let words = displayName.split(separator: " ").map(String.init)
        let given = words.first ?? displayName
        self.init(givenName: given, surname: words.dropFirst().joined(separator: " "), familiarName: given, displayName: displayName,
                  abbreviatedName: words.prefix(2).compactMap { $0.first.map { String($0).uppercased() } }.joined())
    }

    enum CodingKeys: String, CodingKey {
        case givenName = "given_name", surname, familiarName = "familiar_name", displayName = "display_name", abbreviatedName = "abbreviated_name"
    }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        displayName = try object.decode(String.self, forKey: .displayName)
        givenName = try object.decodeIfPresent(String.self, forKey: .givenName) ?? displayName
        surname = try object.decodeIfPresent(String.self, forKey: .surname) ?? ""
        familiarName = try object.decodeIfPresent(String.self, forKey: .familiarName) ?? givenName
        abbreviatedName = try object.decodeIfPresent(String.self, forKey: .abbreviatedName) ?? ""
    }
}

/// `users/get_current_account`'s answer, the fields this project reads (Dropbox sends more:
/// locale, account_type, root_info, …; they are ignored when decoding).
public struct Account: Sendable, Hashable, Codable {
    /// "dbid:…", stable for the account.
    public var accountID: String
    public var name: AccountName
    public var email: String

    public init(accountID: String, name: AccountName, email: String) {
        self.accountID = accountID
        self.name = name
        self.email = email
    }

    enum CodingKeys: String, CodingKey { case accountID = "account_id", name, email }
}
