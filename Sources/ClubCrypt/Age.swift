import Crypto
import Foundation

/// The age v1 format (C2SP age): a header that wraps a random 16-byte file key to each
/// recipient, authenticated by an HMAC under that key, then the payload in 64 KiB chunks of
/// ChaCha20-Poly1305 (the STREAM construction), each with a counter nonce and a last-chunk flag.
public enum Age {
    public static let chunkSize = 64 * 1024
    static let tagSize = 16

    /// Stanza types a header may carry here; any other is refused by name.
    public static let knownStanzas: Set<String> = ["X25519", "scrypt", WriteSignature.stanzaType]

    static func randomBytes(_ count: Int) -> Data {
        var bytes = Data(count: count)
        bytes.withUnsafeMutableBytes { buffer in
            var generator = SystemRandomNumberGenerator()
            for index in buffer.indices { buffer[index] = generator.next() }
        }
        return bytes
    }

    static func headerMAC(_ covered: Data, fileKey: SymmetricKey) -> Data {
        let key = AgeKDF.key(fileKey.withUnsafeBytes { Data($0) }, salt: Data(), info: "header")
        return Data(HMAC<SHA256>.authenticationCode(for: covered, using: key))
    }

    /// A whole header, through the newline after its MAC.
    public static func header(fileKey: SymmetricKey, stanzas: [AgeStanza]) -> Data {
        let covered = AgeHeader.coveredBytes(stanzas)
        return covered + Data((" " + Base64Raw.encode(headerMAC(covered, fileKey: fileKey)) + "\n").utf8)
    }

    public static func newFileKey() -> SymmetricKey { SymmetricKey(data: randomBytes(16)) }

    // MARK: Whole files in memory

    public static func encrypt(_ plaintext: Data, to recipients: [any AgeRecipient], extra: [AgeStanza] = [],
                               fileKey: SymmetricKey = newFileKey()) throws(AgeError) -> Data {
        var out = Data()
        var offset = plaintext.startIndex
        try encrypt(to: recipients, extra: extra, fileKey: fileKey, read: { count in
            let end = min(offset + count, plaintext.endIndex)
            defer { offset = end }
            return plaintext[offset..<end]
        }, write: { out.append($0) })
        return out
    }

    public static func decrypt(_ file: Data, identities: [any AgeIdentity]) throws(AgeError) -> (plaintext: Data, header: AgeHeader) {
        var out = Data()
        var offset = file.startIndex
        let header = try decrypt(identities: identities, read: { count in
            let end = min(offset + count, file.endIndex)
            defer { offset = end }
            return file[offset..<end]
        }, write: { out.append($0) })
        return (out, header)
    }

    // MARK: Streams

    /// Encrypts what `read` hands over (up to the count asked; less only at the end) to `write`.
    public static func encrypt(to recipients: [any AgeRecipient], extra: [AgeStanza] = [], fileKey: SymmetricKey = newFileKey(),
                               read: (Int) throws -> Data, write: (Data) throws -> Void) throws(AgeError) {
        var stanzas: [AgeStanza] = []
        for recipient in recipients { stanzas += try recipient.wrap(fileKey) }
        if stanzas.contains(where: { $0.type == "scrypt" }) && stanzas.count > 1 {
            throw .malformedHeader("a passphrase must be the only recipient")
        }
        do {
            try write(header(fileKey: fileKey, stanzas: stanzas + extra))
        } catch {
            throw .io("cannot write the encrypted file: \(error.localizedDescription)")
        }
        try encryptPayload(fileKey: fileKey, read: read, write: write)
    }

    /// The payload alone (its nonce and chunks), for a caller that writes the header itself
    /// (after the payload, when a stanza depends on the plaintext).
    public static func encryptPayload(fileKey: SymmetricKey, read: (Int) throws -> Data, write: (Data) throws -> Void) throws(AgeError) {
        let nonce = randomBytes(16)
        let key = AgeKDF.key(fileKey.withUnsafeBytes { Data($0) }, salt: nonce, info: "payload")
        do {
            try write(nonce)
            var counter: UInt64 = 0
            var current = try read(chunkSize)
            while true {
                let next = current.count == chunkSize ? try read(chunkSize) : Data()
                let last = next.isEmpty
                let box = try ChaChaPoly.seal(current, using: key, nonce: chunkNonce(counter, last: last))
                try write(box.ciphertext + box.tag)
                if last { break }
                counter += 1
                current = next
            }
        } catch let error as AgeError {
            throw error
        } catch {
            throw .io("cannot write the encrypted file: \(error.localizedDescription)")
        }
    }

    static func open(_ chunk: Data, key: SymmetricKey, counter: UInt64, last: Bool) -> Data? {
        guard let box = try? ChaChaPoly.SealedBox(nonce: chunkNonce(counter, last: last), ciphertext: chunk.dropLast(tagSize),
                                                  tag: chunk.suffix(tagSize)) else { return nil }
        return try? ChaChaPoly.open(box, using: key)
    }

    static func chunkNonce(_ counter: UInt64, last: Bool) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { bytes[10 - index] = UInt8(truncatingIfNeeded: counter >> (8 * UInt64(index))) }
        bytes[11] = last ? 1 : 0
        return try! ChaChaPoly.Nonce(data: bytes)
    }

    /// Opens the file key of a header (checking its MAC) with the first identity that can.
    public static func fileKey(of header: AgeHeader, identities: [any AgeIdentity]) throws(AgeError) -> SymmetricKey {
        let types = header.stanzas.map(\.type)
        if types.contains("scrypt") && types.count > 1 { throw .malformedHeader("an scrypt stanza beside others") }
        var found: SymmetricKey?
        for identity in identities {
            if let key = try identity.unwrap(header.stanzas) {
                found = key
                break
            }
        }
        guard let fileKey = found else {
            if let unknown = types.first(where: { !knownStanzas.contains($0) }) { throw .unknownStanza(unknown) }
            throw .noMatchingIdentity
        }
        guard headerMAC(header.covered, fileKey: fileKey) == header.mac else { throw .headerTampered }
        return fileKey
    }

    /// Decrypts what `read` hands over to `write`, a chunk at a time. `check` sees the header
    /// before any plaintext is written (to refuse a file early). Nothing is written for a chunk
    /// that does not authenticate, but earlier chunks have been: write to a temporary place.
    @discardableResult
    public static func decrypt(identities: [any AgeIdentity], read: (Int) throws -> Data, write: (Data) throws -> Void,
                               check: (AgeHeader, SymmetricKey) throws -> Void = { _, _ in }) throws(AgeError) -> AgeHeader {
        do {
            var buffer = Data()
            let header = try readHeader(&buffer, read: read)
            let fileKey = try fileKey(of: header, identities: identities)
            try check(header, fileKey)
            buffer = Data(buffer.dropFirst(header.length))
            try decryptPayload(&buffer, fileKey: fileKey, read: read, write: write)
            return header
        } catch let error as AgeError {
            throw error
        } catch {
            throw .io("cannot read the encrypted file: \(error.localizedDescription)")
        }
    }

    /// Reads until `buffer` holds a whole header, and parses it.
    static func readHeader(_ buffer: inout Data, read: (Int) throws -> Data) throws -> AgeHeader {
        while true {
            let parsed: Result<AgeHeader, AgeError> = Result { () throws(AgeError) in try AgeHeader.parse(buffer) }
            switch parsed {
            case .success(let header):
                return header
            case .failure(.truncated):
                let more = try read(4096)
                if more.isEmpty { throw buffer.isEmpty ? AgeError.notAge : AgeError.truncated }
                buffer.append(more)
            case .failure(let error):
                throw error
            }
        }
    }

    static func decryptPayload(_ buffer: inout Data, fileKey: SymmetricKey, read: (Int) throws -> Data, write: (Data) throws -> Void) throws {
        func fill(_ count: Int, _ buffer: inout Data) throws {
            while buffer.count < count {
                let more = try read(max(count - buffer.count, chunkSize))
                if more.isEmpty { return }
                buffer.append(more)
            }
        }
        try fill(16, &buffer)
        guard buffer.count >= 16 else { throw AgeError.truncated }
        let key = AgeKDF.key(fileKey.withUnsafeBytes { Data($0) }, salt: buffer.prefix(16), info: "payload")
        buffer = Data(buffer.dropFirst(16))
        let sealed = chunkSize + tagSize
        var counter: UInt64 = 0
        while true {
            try fill(sealed + 1, &buffer)
            let last = buffer.count <= sealed
            let chunk = buffer.prefix(sealed)
            guard chunk.count >= tagSize else { throw AgeError.truncated }
            if last && chunk.count == tagSize && counter > 0 { throw AgeError.payloadTampered(chunk: Int(counter)) }
            guard let plain = open(chunk, key: key, counter: counter, last: last) else {
                // A full last chunk that opens as a middle one: the file was cut after it. A
                // chunk that opens as the last with more after it: bytes were added. Either way
                // the chunk itself is genuine, and is released before the error, as age does.
                if let genuine = open(chunk, key: key, counter: counter, last: !last), last ? chunk.count == sealed : !genuine.isEmpty || counter == 0 {
                    try write(genuine)
                    throw last ? AgeError.truncated : AgeError.trailingData
                }
                throw AgeError.payloadTampered(chunk: Int(counter))
            }
            if !last, plain.isEmpty { throw AgeError.payloadTampered(chunk: Int(counter)) }
            try write(plain)
            if last { return }
            buffer = Data(buffer.dropFirst(sealed))
            counter += 1
        }
    }
}
