import ClubCrypt
import Crypto
import Durable
import Foundation
import Remote
import Synchronization

/// Downloads opened as they arrive (issue 56): each chunk of the age file is opened as soon as
/// its bytes are in, and its plaintext written to a partial file beside the destination; no
/// sealed copy is made and nothing is read twice. The header comes first, so the writer's
/// signature is checked before a byte of plaintext is written; the plaintext's hash, taken
/// beside it, is compared with the signature's at the end, and only then is the partial file
/// renamed onto the destination.
///
/// A download cut off (Ctrl-C, a lost connection, `kill -9`) resumes at the first chunk not yet
/// written: its resume data (``OnePassResume``) holds the file's head (the header and the
/// payload's nonce, ciphertext the server holds anyway), the partial file and how much of it is
/// written, every 4 MiB as ``DownloadCheckpoint`` asks.
extension EncryptedStore {
    func downloadInOnePass(_ streaming: any StreamingDownloadStore, hidden: String, asked path: String, to destination: URL,
                           resumeData: Data?, progress: ProgressHandler?, onResumeData: (@Sendable (Data) -> Void)?,
                           refreshed: Bool = false) async throws(RemoteError) -> RemoteEntry {
        let isRevision = path.hasPrefix("rev:")
        let partial = URL(fileURLWithPath: destination.path + ".partial")
        let checkpoint = DownloadCheckpoint.current?.sink
        let resume = resumeData.flatMap(OnePassResume.decode)
        let opening: OnePassOpening
        do {
            opening = try OnePassOpening(store: self, resume: resume, partial: partial, checkpoint: checkpoint)
        } catch {
            throw Self.remote(error, path: path)
        }
        let entry: RemoteEntry
        do {
            entry = try await streaming.stream(hidden, from: opening.offset, rev: resume?.rev, progress: progress, began: { entry in
                try opening.began(entry, path: isRevision ? nil : path)
            }, receive: { data in try opening.take(data) })
        } catch let failure {
            opening.close()
            if failure is StreamingDownloadChanged {
                // Changed since the part already here was written: from the first byte again.
                try? FileManager.default.removeItem(at: partial)
                guard resume != nil else { throw .network("\(path) changed while it was downloaded; try again") }
                return try await downloadInOnePass(streaming, hidden: hidden, asked: path, to: destination, resumeData: nil, progress: progress,
                                                   onResumeData: onResumeData, refreshed: refreshed)
            }
            let error = failure as? RemoteError ?? Self.remote(failure, path: opening.shownPath ?? path)
            if error == .cancelled || error.isTransient, let data = opening.resumeData() {
                onResumeData?(data)
                throw error == .cancelled ? error : plain(error, path, hidden)
            }
            try? FileManager.default.removeItem(at: partial)
            if !refreshed, Self.mayBeStale(error), await refreshKeyring() {
                // A refusal a roster changed since this store began explains: the header came
                // first, so nothing was written; read the keys again and try once more.
                return try await downloadInOnePass(streaming, hidden: hidden, asked: path, to: destination, resumeData: nil, progress: progress,
                                                   onResumeData: onResumeData, refreshed: true)
            }
            if !isRevision, Self.fallsBack(error), let plainEntry = reveal(entry: opening.entry) {
                // The newest version's writer is at fault: the members still read the last good one.
                let (older, _, size) = try await lastGoodRevision(of: plainEntry, hidden: hidden, to: destination, refusal: error)
                var shown = older
                shown.size = size
                return shown
            }
            throw plain(error, path, hidden)
        }
        let (signature, size): (WriteSignature, Int64)
        do {
            (signature, size) = try opening.finish()
            try DurableFile.place(partial.path, at: destination.path)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw Self.remote(error, path: opening.shownPath ?? path)
        }
        var plainEntry = try revealed(entry, asked: path)
        if !isRevision { seen.saw(signature.version, at: signedPath(plainEntry.path)) }
        plainEntry.size = size
        return plainEntry
    }

    private func reveal(entry: RemoteEntry?) -> RemoteEntry? { entry.flatMap { reveal($0) } }
}

/// What a one-pass download of an encrypted file resumes from: JSON, with `offset` (the
/// ciphertext's bytes done) where Transfer's resume data has it, so `DownloadResume.offset(of:)`
/// reads both.
struct OnePassResume: Codable, Sendable {
    static let kind = "byteclub-age-one-pass-v1"
    var kind = OnePassResume.kind
    /// Bytes of the sealed file done: the head and the chunks written.
    var offset: Int64
    /// The partial plaintext file, and its bytes that are written and checked.
    var partial: String
    var written: Int64
    /// The revision the bytes are of.
    var rev: String?
    /// The sealed file's header and payload nonce.
    var head: Data

    static func decode(_ data: Data) -> OnePassResume? {
        guard let value = try? JSONDecoder().decode(OnePassResume.self, from: data), value.kind == kind,
              value.written >= 0, value.written % Int64(Age.chunkSize) == 0 else { return nil }
        return value
    }

    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }
}

/// One one-pass download's opening: the age stream, the partial file, the hash. Its calls come
/// one at a time from the store's callback queue; the lock keeps them apart from a resume data
/// asked for on another thread.
final class OnePassOpening: Sendable {
    private struct State {
        var opener: AgeStreamOpener
        var fd: Int32
        var written: Int64
        var signature: WriteSignature?
        var entry: RemoteEntry?
        var shown: String?
        var minimumVersion: UInt64 = 0
        var lastCheckpoint: Int64
    }

    private let state: Mutex<State>
    private let store: EncryptedStore
    private let partial: URL
    private let hashing = PlaintextHash()
    private let checkpoint: (@Sendable (Data) -> Void)?
    /// Where the stream starts: 0, or the resumed chunk's offset.
    let offset: Int64

    /// Opens the partial file: a new one, or the one `resume` names, cut to its checked part
    /// and hashed again (the hash covers the whole plaintext).
    init(store: EncryptedStore, resume: OnePassResume?, partial: URL, checkpoint: (@Sendable (Data) -> Void)?) throws {
        self.store = store
        self.checkpoint = checkpoint
        var resumed: (AgeStreamOpener, Int32, Int64, URL)?
        if let resume, resume.written > 0 || resume.offset > 0 {
            let fd = open(resume.partial, O_RDWR | O_CLOEXEC)
            var info = stat()
            if fd >= 0, fstat(fd, &info) == 0, Int64(info.st_size) >= resume.written, ftruncate(fd, off_t(resume.written)) == 0 {
                let counter = UInt64(resume.written / Int64(Age.chunkSize))
                // The header is checked again below (in `began`, once the server names the file).
                if let opener = try? AgeStreamOpener(resuming: resume.head, at: counter, identities: store.identities, check: { _, _ in }),
                   opener.offset == resume.offset, Self.rehash(fd, upTo: resume.written, into: hashing) {
                    resumed = (opener, fd, resume.written, URL(fileURLWithPath: resume.partial))
                } else {
                    Glibc.close(fd)
                }
            } else if fd >= 0 {
                Glibc.close(fd)
            }
        }
        if let (opener, fd, written, path) = resumed {
            self.partial = path
            state = Mutex(State(opener: opener, fd: fd, written: written, lastCheckpoint: written))
            offset = opener.offset
        } else {
            try? FileManager.default.removeItem(at: partial)
            let fd = open(partial.path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw RemoteError.local("cannot write \(partial.path): \(String(cString: strerror(errno)))") }
            self.partial = partial
            state = Mutex(State(opener: AgeStreamOpener(), fd: fd, written: 0, lastCheckpoint: 0))
            offset = 0
        }
    }

    /// Hashes the partial file's first `count` bytes.
    private static func rehash(_ fd: Int32, upTo count: Int64, into hashing: PlaintextHash) -> Bool {
        var done: Int64 = 0
        while done < count {
            var block = Data(count: Int(min(count - done, 4 << 20)))
            let got = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(done)) }
            guard got > 0 else { return false }
            block.count = got
            hashing.add(block)
            done += Int64(got)
        }
        return true
    }

    var entry: RemoteEntry? { state.withLock { $0.entry } }
    /// The file's name as the user knows it, once the server named it.
    var shownPath: String? { state.withLock { $0.shown } }

    /// The server named the file: what a refusal calls it, and the version it must reach. A
    /// resumed download checks its kept header here, as a new one checks it when it arrives.
    func began(_ entry: RemoteEntry, path: String?) throws {
        let plainEntry = store.reveal(entry)
        let shown = plainEntry?.path ?? path ?? entry.path
        let signed = store.signedPath(shown)
        let minimum = path == nil ? 0 : store.seen[signed] ?? 0
        let head = state.withLock { state in
            state.entry = entry
            state.shown = shown
            state.minimumVersion = minimum
            return state.opener.openedHeader
        }
        if let head {
            let signature = try ClubSeal.check(head, path: signed, shown: shown, roster: store.keyring.roster, minimumVersion: minimum).0
            state.withLock { $0.signature = signature }
        }
    }

    /// The next bytes of the sealed file: the header checked when it is whole, every chunk
    /// known not to be the last opened, written and hashed.
    func take(_ data: Data) throws {
        let identities = store.identities
        let roster = store.keyring.roster
        let due: Data? = try state.withLock { state in
            let (shown, minimum) = (state.shown ?? "", state.minimumVersion)
            var signature = state.signature
            let plain = try state.opener.take(data, identities: identities) { header, _ in
                signature = try ClubSeal.check(header, path: store.signedPath(shown), shown: shown, roster: roster, minimumVersion: minimum).0
            }
            state.signature = signature
            guard !plain.isEmpty else { return nil }
            for chunk in plain {
                try Self.write(chunk, fd: state.fd, at: state.written, path: partial.path)
                state.written += Int64(chunk.count)
            }
            hashing.add(contentsOf: plain)
            guard state.written >= state.lastCheckpoint + (4 << 20), checkpoint != nil else { return nil }
            state.lastCheckpoint = state.written
            return resumeData(state)
        }
        if let due { checkpoint?(due) }
    }

    /// The end of the file: the last chunk, then the hash against the signature's. Answers the
    /// signature and the plaintext's size; the partial file is whole and closed.
    func finish() throws -> (WriteSignature, Int64) {
        let (signature, size, shown) = try state.withLock { state -> (WriteSignature?, Int64, String) in
            let last = try state.opener.finish()
            try Self.write(last, fd: state.fd, at: state.written, path: partial.path)
            hashing.add(last)
            state.written += Int64(last.count)
            Glibc.close(state.fd)
            state.fd = -1
            return (state.signature, state.written, state.shown ?? "")
        }
        guard let signature, signature.contentHash == hashing.finish() else {
            throw ClubCryptError.refused(path: shown, reason: "its content does not match its signature")
        }
        return (signature, size)
    }

    func close() {
        state.withLock { state in
            if state.fd >= 0 { Glibc.close(state.fd) }
            state.fd = -1
        }
    }

    /// Resume data for what is written, or nil before the head is in.
    func resumeData() -> Data? {
        state.withLock { resumeData($0) }
    }

    private func resumeData(_ state: State) -> Data? {
        guard let head = state.opener.head else { return nil }
        return OnePassResume(offset: state.opener.offset, partial: partial.path, written: state.written, rev: state.entry?.rev, head: head).encoded()
    }

    private static func write(_ data: Data, fd: Int32, at offset: Int64, path: String) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var done = 0
            while done < bytes.count {
                let count = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done)))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw RemoteError.local("cannot write \(path): \(String(cString: strerror(errno)))")
                }
                done += count
            }
        }
    }
}
