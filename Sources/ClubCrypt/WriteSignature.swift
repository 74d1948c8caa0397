import Crypto
import Foundation

/// A member's signature on one write, carried in the file's own age header as a stanza of its
/// own type (`-> byteclub-sig KEY VERSION HASH`, the signature as body). age passes over a
/// stanza it does not know, so `age -d` still reads the file; the header's MAC binds the stanza
/// to the file key.
///
/// It signs `byteclub-sig-v1`, the file's path in the club (lower case), the per-file version
/// and the SHA-256 of the plaintext: a file moved to another path, an older version served
/// again, or a file signed by no member is refused by the reader.
public struct WriteSignature: Sendable, Equatable {
    public static let stanzaType = "byteclub-sig"

    /// The signer's Ed25519 public key.
    public var signer: Data
    public var version: UInt64
    /// SHA-256 of the plaintext.
    public var contentHash: Data
    public var signature: Data

    static func message(path: String, version: UInt64, contentHash: Data) -> Data {
        Data("byteclub-sig-v1\n\(path.lowercased())\n\(version)\n".utf8) + contentHash
    }

    public init(signing path: String, version: UInt64, contentHash: Data, with key: Curve25519.Signing.PrivateKey) {
        signer = key.publicKey.rawRepresentation
        self.version = version
        self.contentHash = contentHash
        signature = (try? key.signature(for: Self.message(path: path, version: version, contentHash: contentHash))) ?? Data()
    }

    /// A signature of the same shape and length as a real one, all zeros: to size a header
    /// before the plaintext's hash is known.
    public static func placeholder(version: UInt64) -> WriteSignature {
        WriteSignature(signer: Data(count: 32), version: version, contentHash: Data(count: 32), signature: Data(count: 64))
    }

    init(signer: Data, version: UInt64, contentHash: Data, signature: Data) {
        self.signer = signer
        self.version = version
        self.contentHash = contentHash
        self.signature = signature
    }

    public var stanza: AgeStanza {
        AgeStanza(type: Self.stanzaType, arguments: [Base64Raw.encode(signer), String(version), Base64Raw.encode(contentHash)], body: signature)
    }

    /// The signature in a header: nil when there is none; throws for one that is malformed.
    public init?(header: AgeHeader) throws(AgeError) {
        let found = header.stanzas.filter { $0.type == Self.stanzaType }
        guard let stanza = found.first else { return nil }
        guard found.count == 1, stanza.arguments.count == 3, let signer = Base64Raw.decode(stanza.arguments[0]), signer.count == 32,
              let version = UInt64(stanza.arguments[1]), String(version) == stanza.arguments[1],
              let hash = Base64Raw.decode(stanza.arguments[2]), hash.count == 32, stanza.body.count == 64 else {
            throw .malformedHeader("a bad byteclub signature stanza")
        }
        self.signer = signer
        self.version = version
        contentHash = hash
        signature = stanza.body
    }

    /// Whether the signature is the signer's, over this path.
    public func isValid(for path: String) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: signer) else { return false }
        return key.isValidSignature(signature, for: Self.message(path: path, version: version, contentHash: contentHash))
    }
}

/// Hides a name: AES-GCM-SIV under the club's names key with a fixed nonce, so one name always
/// encrypts to the same text (a folder keeps one name for every member), then base32 in lower
/// case, which a case-insensitive server keeps apart. Each path component is hidden alone.
public struct NameCipher: Sendable {
    let keyBytes: Data
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    static let nonceBytes = Data(repeating: 0, count: 12)
    static let context = Data("byteclub-name-v1".utf8)
    /// The longest name (UTF-8 bytes) that fits in a 255-byte component once hidden.
    public static let maxNameBytes = 255 * 5 / 8 - 16

    public init(key: SymmetricKey) { keyBytes = key.withUnsafeBytes { Data($0) } }

    public func hide(_ name: String) -> String? {
        guard name.utf8.count <= Self.maxNameBytes, let sealed = try? SIV.seal(Data(name.utf8), key: key, context: Self.context) else { return nil }
        return Base32.encode(sealed)
    }

    /// The name, or nil for a component that no key of this club made.
    public func reveal(_ hidden: String) -> String? {
        guard let data = Base32.decode(hidden), data.count >= 16, let plain = try? SIV.open(data, key: key, context: Self.context) else { return nil }
        return String(data: plain, encoding: .utf8)
    }
}

/// RFC 4648 base32 in lower case, without padding.
public enum Base32 {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    public static func encode(_ data: Data) -> String {
        String(decoding: (Bech32.regroup(Array(data), from: 8, to: 5, pad: true) ?? []).map { alphabet[Int($0)] }, as: UTF8.self)
    }

    public static func decode(_ text: String) -> Data? {
        var values: [UInt8] = []
        for byte in text.utf8 {
            guard let index = alphabet.firstIndex(of: byte) else { return nil }
            values.append(UInt8(index))
        }
        guard let bytes = Bech32.regroup(values, from: 5, to: 8, pad: false) else { return nil }
        return Data(bytes)
    }
}
