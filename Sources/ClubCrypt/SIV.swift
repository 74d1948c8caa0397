import _CryptoExtras
import Crypto
import Foundation

/// AES-GCM-SIV with a fixed nonce: deterministic, and still authenticated (RFC 8452's
/// nonce-misuse resistance makes the fixed nonce leak only equal inputs).
enum SIV {
    static var nonce: AES.GCM._SIV.Nonce { try! AES.GCM._SIV.Nonce(data: Data(repeating: 0, count: 12)) }

    static func seal(_ plain: Data, key: SymmetricKey, context: Data) throws -> Data {
        let box = try AES.GCM._SIV.seal(plain, using: key, nonce: nonce, authenticating: context)
        return box.ciphertext + box.tag
    }

    static func open(_ sealed: Data, key: SymmetricKey, context: Data) throws -> Data {
        let box = try AES.GCM._SIV.SealedBox(nonce: nonce, ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
        return try AES.GCM._SIV.open(box, using: key, authenticating: context)
    }
}
