import Crypto
import Foundation

/// A member's keys: one age X25519 identity (the `AGE-SECRET-KEY-1…` line that `age -d -i`
/// takes), and an Ed25519 signing key derived from it with HKDF, so one file holds both.
public struct MemberKeys: Sendable {
    public let identity: X25519Identity

    public init(identity: X25519Identity) { self.identity = identity }

    public var recipient: X25519Recipient { identity.recipient }

    public var signingKey: Curve25519.Signing.PrivateKey {
        let seed = AgeKDF.key(identity.raw, salt: Data(), info: "byteclub-signing-v1").withUnsafeBytes { Data($0) }
        return try! Curve25519.Signing.PrivateKey(rawRepresentation: seed)
    }

    /// The signing key's public half, as the signature stanza and the roster name it.
    public var signingPublic: Data { signingKey.publicKey.rawRepresentation }

    public var fingerprint: String { Self.fingerprint(recipient: recipient.text, signing: signingPublic.base64EncodedString()) }

    /// A short fingerprint to compare aloud: the first 8 bytes of SHA-256 over the recipient and
    /// the signing key (base64), in four groups of four hex digits.
    public static func fingerprint(recipient: String, signing: String) -> String {
        grouped(Data((recipient + "\n" + signing).utf8).sha256.prefix(8)).joined(separator: " ")
    }

    /// A name for the member's files: the first 8 bytes of SHA-256 over the recipient, in hex.
    public static func fileName(of recipient: X25519Recipient) -> String {
        grouped(Data(recipient.text.utf8).sha256.prefix(8)).joined()
    }

    static func grouped(_ bytes: Data) -> [String] {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        return stride(from: 0, to: hex.count, by: 4).map { start in
            String(hex[hex.index(hex.startIndex, offsetBy: start)..<hex.index(hex.startIndex, offsetBy: min(start + 4, hex.count))])
        }
    }
}

extension Data {
    /// The SHA-256 of these bytes.
    public var sha256: Data { Data(SHA256.hash(data: self)) }
}
