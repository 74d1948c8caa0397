import Crypto
import Dispatch
import Foundation

/// An age file opened as its bytes arrive (a download, issue 56): the header first, checked
/// before a byte of plaintext comes out, then each 64 KiB chunk of the payload as soon as the
/// bytes after it show it is not the last one. The last chunk is opened by ``finish()``, when
/// the caller knows the file has ended.
///
/// A chunk is released only once it authenticates, but a later chunk may still fail: the
/// caller writes what is released to a temporary place, and keeps it only when ``finish()``
/// returns. ``head`` and ``counter`` are what a resumed download needs to go on opening the same
/// file from chunk `counter` (``init(resuming:at:identities:check:)``).
public struct AgeStreamOpener: Sendable {
    /// A payload chunk as sealed: 64 KiB and its tag (the last one may be shorter).
    public static let sealedChunk = Age.chunkSize + Age.tagSize

    /// Bytes taken and not yet used: part of the header, or of the chunks not yet opened.
    private var pending = Data()
    private var header: AgeHeader?
    /// The file key's bytes, from the header's stanza, until the nonce after the header comes.
    private var fileKey: Data?
    /// The payload key's bytes (a `SymmetricKey` is not `Sendable`; each core makes its own).
    private var payloadKey: Data?
    /// The header's bytes and the payload's nonce, once all of them have come.
    public private(set) var head: Data?
    /// The counter of the next chunk to open.
    public private(set) var counter: UInt64 = 0

    public init() {}

    /// Goes on opening a file whose first `counter` chunks were opened before: `head` is that
    /// file's ``head``, checked again here (its MAC, and `check`) as a new download's would be.
    public init(resuming head: Data, at counter: UInt64, identities: [any AgeIdentity],
                check: (AgeHeader, SymmetricKey) throws -> Void) throws {
        let header = try AgeHeader.parse(head)
        guard head.count == header.length + 16 else { throw AgeError.truncated }
        let fileKey = try Age.fileKey(of: header, identities: identities)
        try check(header, fileKey)
        self.header = header
        self.head = head
        self.counter = counter
        payloadKey = AgeKDF.key(fileKey.withUnsafeBytes { Data($0) }, salt: head.suffix(16), info: "payload").withUnsafeBytes { Data($0) }
    }

    /// Where the next chunk starts in the file (once the head is known).
    public var offset: Int64 { Int64(head?.count ?? 0) + Int64(counter) * Int64(Self.sealedChunk) }

    /// The header, once it has come and been checked.
    public var openedHeader: AgeHeader? { payloadKey == nil ? nil : header }

    /// Takes the next `bytes` of the file. `check` sees the header (and its file key) once it
    /// is whole, before any plaintext; what it throws ends the file. Answers the plaintext of
    /// the chunks now known not to be the last, a chunk each, in order (often none).
    public mutating func take(_ bytes: Data, identities: [any AgeIdentity], check: (AgeHeader, SymmetricKey) throws -> Void) throws -> [Data] {
        guard let key = payloadKey else {
            pending.append(bytes)
            guard let key = try readHead(identities: identities, check: check) else { return [] }
            let rest = pending
            pending = Data()
            return try takePayload(rest, key: key)
        }
        return try takePayload(bytes, key: key)
    }

    /// Payload bytes: the chunk carried over from the last call completed from their front, the
    /// whole chunks among them opened where they lie (no copy), the rest carried to the next.
    private mutating func takePayload(_ bytes: Data, key: Data) throws -> [Data] {
        var input = bytes[...]
        var opened: [Data] = []
        if !pending.isEmpty {
            let need = Self.sealedChunk - pending.count
            // A chunk is a middle one only once a byte after it has come.
            guard input.count > need else {
                pending.append(input)
                return []
            }
            pending.append(input.prefix(need))
            input = input.dropFirst(need)
            opened = try Self.openMiddle(pending[...], count: 1, key: key, first: counter)
            counter += 1
            pending = Data()
        }
        let count = input.isEmpty ? 0 : (input.count - 1) / Self.sealedChunk
        if count > 0 {
            opened += try Self.openMiddle(input.prefix(count * Self.sealedChunk), count: count, key: key, first: counter)
            counter += UInt64(count)
        }
        pending = Data(input.dropFirst(count * Self.sealedChunk))
        return opened
    }

    /// The file has ended: the last chunk's plaintext, or why the file is not whole.
    public mutating func finish() throws -> Data {
        guard let key = payloadKey else {
            if header == nil {
                if pending.isEmpty { throw AgeError.notAge }
                _ = try AgeHeader.parse(pending)
            }
            throw AgeError.truncated
        }
        let chunk = pending
        pending = Data()
        guard chunk.count >= Age.tagSize else { throw AgeError.truncated }
        if chunk.count == Age.tagSize && counter > 0 { throw AgeError.payloadTampered(chunk: Int(counter)) }
        let symmetric = SymmetricKey(data: key)
        if let plain = Age.open(chunk, key: symmetric, counter: counter, last: true) { return plain }
        // A whole chunk that opens as a middle one: the file was cut after it.
        if chunk.count == Self.sealedChunk, Age.open(chunk, key: symmetric, counter: counter, last: false) != nil { throw AgeError.truncated }
        throw AgeError.payloadTampered(chunk: Int(counter))
    }

    /// Parses the header once it is all here, checks it, and takes the nonce after it; the
    /// payload key, or nil while bytes are still missing.
    private mutating func readHead(identities: [any AgeIdentity], check: (AgeHeader, SymmetricKey) throws -> Void) throws -> Data? {
        if header == nil {
            let parsed: Result<AgeHeader, AgeError> = Result { () throws(AgeError) in try AgeHeader.parse(pending) }
            switch parsed {
            case .success(let found):
                let fileKey = try Age.fileKey(of: found, identities: identities)
                try check(found, fileKey)
                header = found
                self.fileKey = fileKey.withUnsafeBytes { Data($0) }
            case .failure(.truncated):
                return nil
            case .failure(let error):
                throw error
            }
        }
        guard let header, let fileKey, pending.count >= header.length + 16 else { return nil }
        let end = pending.startIndex + header.length + 16
        let head = Data(pending[pending.startIndex..<end])
        self.head = head
        pending = Data(pending[end...])
        let key = AgeKDF.key(fileKey, salt: head.suffix(16), info: "payload").withUnsafeBytes { Data($0) }
        payloadKey = key
        self.fileKey = nil
        return key
    }

    /// `count` whole middle chunks, opened side by side, a plaintext each.
    static func openMiddle(_ data: Data, count: Int, key: Data, first: UInt64) throws -> [Data] {
        let opened = OpenedChunks(count: count)
        let work: @Sendable (Int) -> Void = { index in
            let start = data.startIndex + index * sealedChunk
            let counter = first + UInt64(index)
            if let plain = Age.open(data[start..<(start + sealedChunk)], key: SymmetricKey(data: key), counter: counter, last: false),
               plain.count == Age.chunkSize {
                opened.set(index, .success(plain))
            } else {
                opened.set(index, .failure(.payloadTampered(chunk: Int(counter))))
            }
        }
        if count == 1 { work(0) } else { DispatchQueue.concurrentPerform(iterations: count, execute: work) }
        return try opened.results.map { result in
            switch result {
            case .success(let plain)?: return plain
            case .failure(let error)?: throw error
            case nil: throw AgeError.truncated
            }
        }
    }
}

/// The payload of an age file made a chunk at a time, in any order and as often as asked: the
/// same chunk of the same plaintext seals to the same bytes. What a body made as it is sent
/// needs (a retried request, a session resumed in another process).
public struct AgePayloadSealer: Sendable {
    /// The payload key's bytes.
    private let key: Data
    /// The plaintext's size.
    public let plaintextSize: Int64

    /// For the file key `fileKey` and the payload's 16-byte `nonce` (the bytes after the header).
    public init(fileKey: SymmetricKey, nonce: Data, plaintextSize: Int64) {
        key = AgeKDF.key(fileKey.withUnsafeBytes { Data($0) }, salt: nonce, info: "payload").withUnsafeBytes { Data($0) }
        self.plaintextSize = plaintextSize
    }

    /// A new payload nonce.
    public static func newNonce() -> Data { Age.randomBytes(16) }

    /// How many chunks the payload has: at least one (an empty file's is empty).
    public var chunks: Int64 { max(1, (plaintextSize + Int64(Age.chunkSize) - 1) / Int64(Age.chunkSize)) }

    /// The payload's size after its nonce: the plaintext and a tag per chunk.
    public var sealedSize: Int64 { plaintextSize + chunks * Int64(Age.tagSize) }

    /// Seals chunks `first ..< first + count` of `plaintext` (their plaintext, whole chunks
    /// but the file's last) side by side: each chunk's ciphertext and tag, in order.
    public func seal(_ plaintext: UnsafeRawBufferPointer, first: Int64, count: Int) -> [Data] {
        let input = SharedInput(base: UnsafeMutableRawPointer(mutating: plaintext.baseAddress!))
        let total = plaintext.count
        let last = chunks - 1
        let key = key
        let sealed = OpenedChunks(count: count)
        let work: @Sendable (Int) -> Void = { index in
            let start = index * Age.chunkSize
            let length = min(Age.chunkSize, total - start)
            let chunk = Data(bytesNoCopy: input.base + start, count: length, deallocator: .none)
            let counter = first + Int64(index)
            let box = try! ChaChaPoly.seal(chunk, using: SymmetricKey(data: key), nonce: Age.chunkNonce(UInt64(counter), last: counter == last))
            // The box holds nonce, ciphertext and tag in one buffer: the last two without a copy.
            sealed.set(index, .success(box.combined.dropFirst(12)))
        }
        if count == 1 { work(0) } else { DispatchQueue.concurrentPerform(iterations: count, execute: work) }
        return sealed.results.map { (try? $0?.get()) ?? Data() }
    }
}

/// A batch's plaintext, read by several cores at once.
///
/// `@unchecked Sendable`: the cores only read through it (each its own chunk), and the buffer
/// outlives the `concurrentPerform` that reads it (the caller's, which waits for it).
struct SharedInput: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
}
