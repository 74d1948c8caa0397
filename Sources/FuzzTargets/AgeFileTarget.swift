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

/// An encrypted club's file as a download hands it over (issue 56): any bytes through
/// ``AgeStreamOpener`` in pieces cut where the bytes say (1 byte to past a chunk), which must
/// give what the whole-file reader gives: the same plaintext when it opens, a refusal when not.
/// Then the same file resumed half way from the opener's head and counter, as after a `kill -9`.
enum AgeStreamTarget {
    static func run(_ data: Data) {
        let identities: [any AgeIdentity] = [AgeFileTarget.identity, ScryptIdentity(passphrase: "fuzz", maxWorkFactor: 4)]
        let whole = try? Age.decrypt(data, identities: identities).plaintext
        var opener = AgeStreamOpener()
        var streamed = Data()
        var resumePoint: (head: Data, counter: UInt64, offset: Int64, plain: Int)?
        let opened: Data? = {
            var at = data.startIndex
            do {
                while at < data.endIndex {
                    let end = min(at + 1 + Int(data[at]) * 331 % 70_001, data.endIndex)
                    for chunk in try opener.take(data[at..<end], identities: identities, check: { _, _ in }) { streamed.append(chunk) }
                    at = end
                    if resumePoint == nil, let head = opener.head, opener.counter > 0 {
                        resumePoint = (head, opener.counter, opener.offset, streamed.count)
                    }
                }
                streamed.append(try opener.finish())
                return streamed
            } catch {
                return nil
            }
        }()
        FuzzCheck.expect(opened == whole, "the streamed reader and the whole-file reader disagree")
        guard let whole, let point = resumePoint else { return }
        FuzzCheck.expect(point.offset <= Int64(data.count) && point.plain == Int(point.counter) * Age.chunkSize, "a resume point off the chunks")
        var resumed = (try? AgeStreamOpener(resuming: point.head, at: point.counter, identities: identities, check: { _, _ in }))
        FuzzCheck.expect(resumed != nil, "a head that opened once does not open again")
        var rest = Data()
        for chunk in (try? resumed?.take(data[(data.startIndex + Int(point.offset))...], identities: identities, check: { _, _ in })) ?? [] {
            rest.append(chunk)
        }
        if let last = try? resumed?.finish() { rest.append(last) }
        FuzzCheck.expect(whole.prefix(point.plain) + rest == whole, "a resumed reader gives other bytes")
    }
}
