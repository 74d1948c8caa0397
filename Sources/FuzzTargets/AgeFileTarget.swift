import ClubCrypt
import Foundation

/// An encrypted club's file as a server may serve it: any bytes through the age reader (header,
/// stanzas, MAC, STREAM), the signature stanza, and the names and keys in text form. A file
/// either opens whole or is refused with an ``AgeError``; nothing traps, and what opens is what
/// was sealed.
enum AgeFileTarget {
    /// The identity the seeds are sealed to (made for these seeds; it guards nothing).
    static let identity = try! X25519Identity("AGE-SECRET-KEY-1N3AL4G0GWTNYYFMHPVYDZWQA0QM4UJGVGCZ0AP3XJ26U4KUL8MJSG3K0M6")
    static let names = NameCipher(key: .init(data: Data(repeating: 7, count: 32)))

    static func run(_ data: Data) {
        var released = Data()
        var offset = data.startIndex
        let result = Result { () throws(AgeError) in
            try Age.decrypt(identities: [identity, ScryptIdentity(passphrase: "fuzz", maxWorkFactor: 4)], read: { count in
                let end = min(offset + count, data.endIndex)
                defer { offset = end }
                return data[offset..<end]
            }, write: { released.append($0) })
        }
        if case .success(let header) = result {
            FuzzCheck.expect(!header.stanzas.isEmpty, "a file opened with no stanza")
            _ = try? WriteSignature(header: header)
            // What opened seals again and opens to the same bytes.
            let again = try? Age.decrypt(try Age.encrypt(released, to: [identity.recipient]), identities: [identity])
            FuzzCheck.expect(again?.plaintext == released, "a round trip changed the plaintext")
        }
        if let header = try? AgeHeader.parse(data) {
            FuzzCheck.expect(header.length <= data.count && header.covered.count < header.length, "a header longer than its bytes")
        }
        let text = String(decoding: data.prefix(512), as: UTF8.self)
        _ = Bech32.decode(text)
        _ = try? X25519Recipient(text)
        _ = try? X25519Identity(text)
        if let name = names.reveal(text) { FuzzCheck.expect(names.hide(name) == text.lowercased(), "a revealed name that hides to another") }
        if let decoded = Base32.decode(text) { FuzzCheck.expect(Base32.encode(decoded) == text, "base32 that is not canonical") }
    }
}
