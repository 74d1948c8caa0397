import Crypto
import Foundation

/// Someone a file key is wrapped to: one or more stanzas of the header.
public protocol AgeRecipient: Sendable {
    func wrap(_ fileKey: SymmetricKey) throws(AgeError) -> [AgeStanza]
}

/// Something that may open a file key from a header's stanzas: nil when none is for it.
public protocol AgeIdentity: Sendable {
    func unwrap(_ stanzas: [AgeStanza]) throws(AgeError) -> SymmetricKey?
}

enum AgeKDF {
    static func key(_ secret: some DataProtocol, salt: some DataProtocol, info: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: Data(secret)), salt: Data(salt), info: Data(info.utf8), outputByteCount: 32)
    }

    static var zeroNonce: ChaChaPoly.Nonce { try! ChaChaPoly.Nonce(data: Data(repeating: 0, count: 12)) }

    /// The file key sealed under `key` with the zero nonce (each wrapping key is used once).
    static func seal(_ fileKey: SymmetricKey, with key: SymmetricKey) -> Data {
        let box = try! ChaChaPoly.seal(fileKey.withUnsafeBytes { Data($0) }, using: key, nonce: zeroNonce)
        return box.ciphertext + box.tag
    }

    static func open(_ body: Data, with key: SymmetricKey) -> SymmetricKey? {
        guard body.count == 32, let box = try? ChaChaPoly.SealedBox(nonce: zeroNonce, ciphertext: body.prefix(16), tag: body.suffix(16)),
              let key = try? ChaChaPoly.open(box, using: key) else { return nil }
        return SymmetricKey(data: key)
    }
}

/// An X25519 recipient, `age1…`.
public struct X25519Recipient: AgeRecipient, Hashable {
    public let publicKey: Data
    static let label = "age-encryption.org/v1/X25519"

    public init(publicKey: Data) { self.publicKey = publicKey }

    public init(_ text: String) throws(AgeError) {
        guard let (hrp, data) = Bech32.decode(text), hrp == "age", data.count == 32, text == text.lowercased() else {
            throw .badKey("\(text.prefix(20))… is not an age1… recipient")
        }
        publicKey = data
    }

    public var text: String { Bech32.encode(hrp: "age", data: publicKey) }

    public func wrap(_ fileKey: SymmetricKey) throws(AgeError) -> [AgeStanza] {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let share = ephemeral.publicKey.rawRepresentation
        guard let them = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: publicKey),
              let shared = try? ephemeral.sharedSecretFromKeyAgreement(with: them) else { throw .badKey("an X25519 recipient of low order") }
        let secret = shared.withUnsafeBytes { Data($0) }
        let key = AgeKDF.key(secret, salt: share + publicKey, info: Self.label)
        return [AgeStanza(type: "X25519", arguments: [Base64Raw.encode(share)], body: AgeKDF.seal(fileKey, with: key))]
    }
}

/// An X25519 identity, `AGE-SECRET-KEY-1…`.
public struct X25519Identity: AgeIdentity {
    /// The raw 32-byte scalar.
    let raw: Data
    /// The public half, computed once: a scalar multiplication each time would double the cost
    /// of opening a file.
    let publicKey: Data
    private let held: HeldKey
    var privateKey: Curve25519.KeyAgreement.PrivateKey { held.key }

    /// swift-crypto's key types are not marked Sendable.
    /// @unchecked Sendable: `key` is a `let` of a value type that is never changed after init
    /// (its BoringSSL key bytes are written once, by the initializer), so it is read-only shared.
    private final class HeldKey: @unchecked Sendable {
        let key: Curve25519.KeyAgreement.PrivateKey
        init(_ key: Curve25519.KeyAgreement.PrivateKey) { self.key = key }
    }

    init(key: Curve25519.KeyAgreement.PrivateKey) {
        raw = key.rawRepresentation
        publicKey = key.publicKey.rawRepresentation
        held = HeldKey(key)
    }

    public init() { self.init(key: Curve25519.KeyAgreement.PrivateKey()) }

    public init(_ text: String) throws(AgeError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let (hrp, data) = Bech32.decode(trimmed), hrp == "age-secret-key-", data.count == 32, trimmed == trimmed.uppercased(),
              let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: data) else {
            throw .badKey("not an AGE-SECRET-KEY-1… identity")
        }
        self.init(key: key)
    }

    public var text: String { Bech32.encode(hrp: "age-secret-key-", data: privateKey.rawRepresentation).uppercased() }
    public var recipient: X25519Recipient { X25519Recipient(publicKey: publicKey) }

    public func unwrap(_ stanzas: [AgeStanza]) throws(AgeError) -> SymmetricKey? {
        let mine = publicKey
        for stanza in stanzas where stanza.type == "X25519" {
            guard stanza.arguments.count == 1, let share = Base64Raw.decode(stanza.arguments[0]), share.count == 32, stanza.body.count == 32 else {
                throw .malformedHeader("an X25519 stanza with bad arguments")
            }
            guard let them = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: share),
                  let shared = try? privateKey.sharedSecretFromKeyAgreement(with: them) else {
                throw .malformedHeader("an X25519 stanza with a low-order share")
            }
            let secret = shared.withUnsafeBytes { Data($0) }
            // A low-order share gives an all-zero secret: the file is malformed, not merely not ours.
            guard secret.contains(where: { $0 != 0 }) else { throw .malformedHeader("an X25519 stanza with a low-order share") }
            if let fileKey = AgeKDF.open(stanza.body, with: AgeKDF.key(secret, salt: share + mine, info: X25519Recipient.label)) {
                return fileKey
            }
        }
        return nil
    }
}
