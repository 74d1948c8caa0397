import Crypto
import Foundation

/// The account ids a club server gives the names it knows, one definition for the server that
/// answers them and the clients that read them.
///
/// "dbid:" and 35 characters from a hash of the name: stable across restarts and servers, the
/// same for a member with two tokens (two devices), and revealing nothing of the token. Forty
/// characters in all, as Dropbox's spec (`users_common.AccountId`) fixes them: the SDKs validate
/// every answer against it.
public enum ClubAccount {
    /// Who a club's shared token speaks for (`serve --token`, or the token a club with no
    /// members yet keeps): whoever holds the token, no one person.
    public static let sharedName = "club"

    /// Dropbox's account ids are exactly this long.
    public static let idLength = 40

    /// The account id of the name `name`.
    public static func id(of name: String) -> String {
        let digest = SHA256.hash(data: Data(("byteclub member " + name).utf8))
        let text = Data(digest).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "dbid:" + text.prefix(idLength - 5)
    }

    /// The shared token's account id.
    public static let sharedID = id(of: sharedName)

    /// Whether `id` is the shared token's account: a name for a token, not for a person, so a
    /// template's `{{author}}` or "you" in a log asks the member's own name elsewhere.
    public static func isShared(_ id: String) -> Bool { id == sharedID }
}
