import ClubCrypt
import Crypto
import Foundation
import Remote

/// Uploads sealed as they are sent (issue 56): the plaintext is hashed in one quick read (the
/// signature in the header needs its hash, and the header goes first), then each chunk is
/// sealed as the upload reaches it. No sealed copy of the file is written.
///
/// The sealed file is a function of the plaintext and its head (the header, with the file key
/// wrapped to the club, and the payload's nonce): a retried request, or an upload session
/// another process continues, gets the same bytes again from the same head.
extension EncryptedStore {
    /// `file` as a body that seals it for `path` at `version` as it is sent.
    func sealedUpload(file: URL, path: String, version: UInt64) throws(RemoteError) -> SealedUpload {
        do {
            let (hash, size) = try SealedUpload.plaintextHash(file)
            let fileKey = Age.newFileKey()
            let signature = WriteSignature(signing: signedPath(path), version: version, contentHash: hash, with: keyring.me.signingKey)
            let nonce = AgePayloadSealer.newNonce()
            let head = Age.header(fileKey: fileKey, stanzas: try keyring.recipient.wrap(fileKey) + [signature.stanza]) + nonce
            return SealedUpload(plaintext: file, head: head, sealer: AgePayloadSealer(fileKey: fileKey, nonce: nonce, plaintextSize: size))
        } catch {
            throw Self.remote(error, path: path)
        }
    }

    /// The body a kept `head` began (a session to continue after a `kill -9`), or nil when the
    /// head does not open, or the file is no longer the one its signature hashed.
    func sealedUpload(file: URL, head: Data) -> SealedUpload? {
        guard let header = try? AgeHeader.parse(head), head.count == header.length + 16,
              let fileKey = try? Age.fileKey(of: header, identities: identities),
              let signature = try? WriteSignature(header: header),
              let (hash, size) = try? SealedUpload.plaintextHash(file), hash == signature.contentHash else { return nil }
        return SealedUpload(plaintext: file, head: head, sealer: AgePayloadSealer(fileKey: fileKey, nonce: head.suffix(16), plaintextSize: size))
    }

    /// Whether `file` starts as an age file does (one to sign as it is, ``signAgeFile(_:path:version:)``).
    static func looksLikeAge(_ file: URL) -> Bool {
        guard let input = try? FileHandle(forReadingFrom: file) else { return false }
        defer { try? input.close() }
        return (try? input.read(upToCount: 22)) == Data((AgeHeader.intro + "\n").utf8)
    }
}

/// A sealed file made from its plaintext as it is read: the head, then the payload's chunks,
/// sealed a batch at a time on every core.
final class SealedUpload: UploadSource {
    let plaintext: URL
    let head: Data
    let sealer: AgePayloadSealer

    init(plaintext: URL, head: Data, sealer: AgePayloadSealer) {
        self.plaintext = plaintext
        self.head = head
        self.sealer = sealer
    }

    var length: Int64 { Int64(head.count) + sealer.sealedSize }

    func reader(offset: Int64, length: Int64) throws -> any UploadSourceReader {
        try SealedUploadReader(self, start: offset, length: length)
    }

    /// The SHA-256 of the file's bytes, and their count.
    static func plaintextHash(_ file: URL) throws -> (Data, Int64) {
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RemoteError.local("cannot read \(file.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var hasher = SHA256()
        var size: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw RemoteError.local("cannot read \(file.path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        return (Data(hasher.finalize()), size)
    }
}

/// One request's bytes of a ``SealedUpload``. Used on one thread at a time (the session's
/// queue); each batch of chunks is sealed on every core.
final class SealedUploadReader: UploadSourceReader {
    /// Chunks sealed at a time: 2 MiB, what curl asks for at most.
    static let batch = 32

    private let source: SealedUpload
    private let fd: Int32
    private let start: Int64
    private let length: Int64
    private var position: Int64 = 0
    private let plain: UnsafeMutableRawBufferPointer
    /// The sealed chunks of the batch from chunk `first`.
    private var first: Int64 = -1
    private var sealed: [Data] = []

    init(_ source: SealedUpload, start: Int64, length: Int64) throws {
        self.source = source
        self.start = start
        self.length = length
        fd = open(source.plaintext.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RemoteError.local("cannot read \(source.plaintext.path): \(String(cString: strerror(errno)))") }
        plain = .allocate(byteCount: Self.batch * Age.chunkSize, alignment: 64)
    }

    deinit {
        close(fd)
        plain.deallocate()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        let head = source.head
        let size = Int64(AgeStreamOpener.sealedChunk)
        while filled < buffer.count, position < length {
            let at = start + position
            let room = Int(min(Int64(buffer.count - filled), length - position))
            let count: Int
            if at < Int64(head.count) {
                count = min(room, head.count - Int(at))
                head.withUnsafeBytes { (buffer.baseAddress! + filled).copyMemory(from: $0.baseAddress! + Int(at), byteCount: count) }
            } else {
                let payload = at - Int64(head.count)
                let index = payload / size
                if first < 0 || index < first || index >= first + Int64(sealed.count) { try seal(from: index) }
                let chunk = sealed[Int(index - first)]
                let within = Int(payload - index * size)
                count = min(room, chunk.count - within)
                guard count > 0 else { throw RemoteError.local("\(source.plaintext.path) changed during the upload") }
                chunk.withUnsafeBytes { (buffer.baseAddress! + filled).copyMemory(from: $0.baseAddress! + within, byteCount: count) }
            }
            filled += count
            position += Int64(count)
        }
        return filled
    }

    func seek(to offset: Int64) -> Bool {
        guard offset >= 0, offset <= length else { return false }
        position = offset
        return true
    }

    /// Seals the batch of chunks from `index`.
    private func seal(from index: Int64) throws {
        let sealer = source.sealer
        let count = Int(min(Int64(Self.batch), sealer.chunks - index))
        let offset = index * Int64(Age.chunkSize)
        let want = Int(min(Int64(count * Age.chunkSize), sealer.plaintextSize - offset))
        var got = 0
        while got < want {
            let read = pread(fd, plain.baseAddress! + got, want - got, off_t(offset + Int64(got)))
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { throw RemoteError.local("\(source.plaintext.path) changed during the upload") }
            got += read
        }
        sealed = sealer.seal(UnsafeRawBufferPointer(rebasing: plain[0..<want]), first: index, count: count)
        first = index
    }
}
