import DropboxWire
import Foundation

/// `users/get_account`: a member's name from the account id revisions carry
/// (`sharing_info.modified_by`), so a client can say "ray changed …" of another member's commit.
extension ClubAPI {
    func accountEndpoints() -> [(String, @Sendable (Arguments) async throws -> Any)] {
        [(Endpoint.account.route, account), (Endpoint.accountBatch.route, accountBatch)]
    }

    /// The name every member the server knows goes by: `--member` flags, the shared token's
    /// `club`, the registry's members (`members add`, invites), and removed members, whose
    /// past changes still carry their ids.
    private func knownName(ofAccount id: String) -> String? {
        var names = configuration.members.map(\.name) + (configuration.token.isEmpty ? [] : [ClubMember.sharedName])
        if let book = try? authenticator.registry?.current() { names += book.knownNames }
        return names.first { ClubMember.isAccountID(id, of: $0) }
    }

    /// `users/get_account_batch`: `{"account_ids": [...]}` answered with a `BasicAccount` each, in
    /// order; one unknown id fails the call with `no_account` naming it, as Dropbox does.
    private func accountBatch(_ arguments: Arguments) async throws -> Any {
        guard let ids = arguments.object["account_ids"] as? [String] else { throw APIError.badRequest("account_ids: expected a list of account ids") }
        guard (1...300).contains(ids.count) else { throw APIError.badRequest("account_ids: 1 to 300 ids, got \(ids.count)") }
        return try ids.map { id -> [String: Any] in
            guard let name = knownName(ofAccount: id) else { throw APIError.endpoint([.noAccount]) }
            return Self.accountObject(of: name).merging(["is_teammate": false]) { _, new in new }
        }
    }

    /// Answers Dropbox's `BasicAccount` for a member of this club (or the shared token's
    /// `club`); any other id is `no_account` (Dropbox's `GetAccountError`), as no one outside the
    /// club is known here. A 37-character id an older server gave is still the member's, and is
    /// answered with the member's 40-character id.
    private func account(_ arguments: Arguments) async throws -> Any {
        let id = try arguments.string("account_id")
        guard let name = knownName(ofAccount: id) else { throw APIError.endpoint([.noAccount]) }
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
