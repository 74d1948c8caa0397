import _CryptoExtras
import Crypto
import Foundation

/// A passphrase, as an age recipient (age's scrypt stanza, which must be alone in its header).
public struct ScryptRecipient: AgeRecipient {
    public let passphrase: String
    /// log2 of scrypt's N: age's own default is 18 (about a second).
    public let workFactor: Int
    static let label = "age-encryption.org/v1/scrypt"

    public init(passphrase: String, workFactor: Int = 18) {
        self.passphrase = passphrase
        self.workFactor = workFactor
    }

    static func key(_ passphrase: String, salt: Data, workFactor: Int) throws(AgeError) -> SymmetricKey {
        do {
            return try KDF.Scrypt.deriveKey(from: Data(passphrase.utf8), salt: Data(label.utf8) + salt, outputByteCount: 32,
                                            rounds: 1 << workFactor, blockSize: 8, parallelism: 1, maxMemory: 1 << 31)
        } catch {
            throw .io("scrypt failed: \(error)")
        }
    }

    public func wrap(_ fileKey: SymmetricKey) throws(AgeError) -> [AgeStanza] {
        var salt = Data(count: 16)
        salt.withUnsafeMutableBytes { buffer in
            for index in buffer.indices { buffer[index] = UInt8.random(in: 0...255) }
        }
        let key = try Self.key(passphrase, salt: salt, workFactor: workFactor)
        return [AgeStanza(type: "scrypt", arguments: [Base64Raw.encode(salt), String(workFactor)], body: AgeKDF.seal(fileKey, with: key))]
    }
}

/// A passphrase, as an age identity.
public struct ScryptIdentity: AgeIdentity {
    public let passphrase: String
    /// The highest work factor taken (age's own limit is 22).
    public let maxWorkFactor: Int

    public init(passphrase: String, maxWorkFactor: Int = 22) {
        self.passphrase = passphrase
        self.maxWorkFactor = maxWorkFactor
    }

    public func unwrap(_ stanzas: [AgeStanza]) throws(AgeError) -> SymmetricKey? {
        guard let stanza = stanzas.first(where: { $0.type == "scrypt" }) else { return nil }
        guard stanzas.count == 1 else { throw .malformedHeader("an scrypt stanza beside others") }
        guard stanza.arguments.count == 2, let salt = Base64Raw.decode(stanza.arguments[0]), salt.count == 16,
              let factor = Int(stanza.arguments[1]), String(factor) == stanza.arguments[1], factor > 0, stanza.body.count == 32 else {
            throw .malformedHeader("an scrypt stanza with bad arguments")
        }
        guard factor <= maxWorkFactor else { throw .workFactorTooHigh(factor, limit: maxWorkFactor) }
        let key = try ScryptRecipient.key(passphrase, salt: salt, workFactor: factor)
        guard let fileKey = AgeKDF.open(stanza.body, with: key) else { throw .wrongPassphrase }
        return fileKey
    }
}
