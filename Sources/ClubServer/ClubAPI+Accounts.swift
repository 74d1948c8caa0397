import DropboxWire
import Foundation

/// `users/get_account`: a member's name from the account id revisions carry
/// (`sharing_info.modified_by`), so a client can say "ray changed …" of another member's commit.
extension ClubAPI {
    func accountEndpoints() -> [(String, @Sendable (Arguments) async throws -> Any)] {
        [(Endpoint.account.route, account)]
    }

    /// Answers Dropbox's `BasicAccount` for a member of this club (or the shared token's
    /// `club`); any other id is `no_account` (Dropbox's `GetAccountError`), as no one outside the
    /// club is known here. A 37-character id an older server gave is still the member's, and is
    /// answered with the member's 40-character id.
    private func account(_ arguments: Arguments) async throws -> Any {
        let id = try arguments.string("account_id")
        let names = configuration.members.map(\.name) + (configuration.token.isEmpty ? [] : [ClubMember.sharedName])
        guard let name = names.first(where: { ClubMember.isAccountID(id, of: $0) }) else { throw APIError.endpoint([.noAccount]) }
        return Self.accountObject(of: name).merging(["is_teammate": false]) { _, new in new }
    }

    /// The fields Dropbox's `BasicAccount` and `FullAccount` share, for member `name`; each
    /// endpoint adds its own.
    static func accountObject(of name: String) -> [String: Any] {
        let account = ClubMember.account(of: name)
        return [
            "account_id": account.accountID,
            "name": [
                "given_name": account.name.givenName, "surname": account.name.surname, "familiar_name": account.name.familiarName,
                "display_name": account.name.displayName, "abbreviated_name": account.name.abbreviatedName,
            ],
            "email": account.email,
            "email_verified": true,
            "disabled": false,
        ]
    }
}
