import ClubCrypt
import Crypto
import Durable
import Foundation
import Remote

/// Files: sealed before they leave, opened and checked when they come back.
extension EncryptedStore {
    /// `file` as an age file signed for `path` at `version`, in a temporary file the caller removes.
    func seal(file: URL, path: String, version: UInt64) throws(RemoteError) -> URL {
        if let signed = try signAgeFile(file, path: path, version: version) { return signed }
        let sealed = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-sealed-\(UUID().uuidString)")
        do {
            // One pass over the plaintext: the payload is written after room for the header,
            // hashing as it goes; the header, signed once the hash is known, fills the room.
            let fileKey = Age.newFileKey()
            let wrapped = try keyring.recipient.wrap(fileKey)
            let room = Age.header(fileKey: fileKey, stanzas: wrapped + [WriteSignature.placeholder(version: version).stanza]).count
            let input = try FileHandle(forReadingFrom: file)
            defer { try? input.close() }
            guard (try? PrivateFiles.file(sealed.path)) != nil else {
                throw RemoteError.local("cannot make a temporary file in \(sealed.deletingLastPathComponent().path)")
            }
            let output = try FileHandle(forWritingTo: sealed)
            defer { try? output.close() }
            try output.seek(toOffset: UInt64(room))
            let hashing = PlaintextHash()
            try Age.encryptPayload(fileKey: fileKey, read: {
                let block = try input.read(upToCount: $0) ?? Data()
                hashing.add(block)
                return block
            }, write: { try output.write(contentsOf: $0) })
            let signature = WriteSignature(signing: signedPath(path), version: version, contentHash: hashing.finish(), with: keyring.me.signingKey)
            let header = Age.header(fileKey: fileKey, stanzas: wrapped + [signature.stanza])
            guard header.count == room else { throw RemoteError.local("a header of \(header.count) bytes where \(room) were kept for it") }
            try output.seek(toOffset: 0)
            try output.write(contentsOf: header)
            return sealed
        } catch {
            try? FileManager.default.removeItem(at: sealed)
            if let remote = error as? RemoteError { throw remote }
            throw .local("cannot encrypt \(path): \(error)")
        }
    }

    /// A file already in age format for the club's key (written with `age -r`): signed as it
    /// is, its payload untouched (a new header: its stanzas, the signature, a new MAC). Nil for
    /// any other file, which is then encrypted.
    func signAgeFile(_ file: URL, path: String, version: UInt64) throws(RemoteError) -> URL? {
        guard let input = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? input.close() }
        guard let start = try? input.read(upToCount: 22), start == Data((AgeHeader.intro + "\n").utf8) else { return nil }
        try? input.seek(toOffset: 0)
        var hasher = SHA256()
        var found: (AgeHeader, SymmetricKey)?
        do {
            try Age.decrypt(identities: identities, read: { try input.read(upToCount: $0) ?? Data() }, write: { hasher.update(data: $0) },
                            check: { header, key in found = (header, key) })
        } catch .noMatchingIdentity {
            return nil
        } catch {
            throw ClubCryptError.refused(path: path, reason: "an age file that does not open: \(error)").remote
        }
        guard let (header, fileKey) = found else { return nil }
        let signature = WriteSignature(signing: signedPath(path), version: version, contentHash: Data(hasher.finalize()), with: keyring.me.signingKey)
        let stanzas = header.stanzas.filter { $0.type != WriteSignature.stanzaType } + [signature.stanza]
        let signed = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-signed-\(UUID().uuidString)")
        do {
            try? input.seek(toOffset: UInt64(header.length))
            guard (try? PrivateFiles.file(signed.path)) != nil else {
                throw RemoteError.local("cannot make a temporary file")
            }
            let output = try FileHandle(forWritingTo: signed)
            defer { try? output.close() }
            try output.write(contentsOf: Age.header(fileKey: fileKey, stanzas: stanzas))
            while let block = try input.read(upToCount: 1 << 20), !block.isEmpty { try output.write(contentsOf: block) }
            return signed
        } catch {
            try? FileManager.default.removeItem(at: signed)
            throw Self.remote(error, path: path)
        }
    }

    /// Opens the age file at `sealed` into `destination` (replaced only once all of it has been
    /// checked), refusing it unless a member signed it for `path`, no older than `minimumVersion`.
    ///
    /// The plaintext is written over the ciphertext in the same file (``Age/decryptInPlace(_:identities:check:hash:)``:
    /// a window of chunks at a time, opened on every core), then the file is renamed onto
    /// `destination`: no second file as large, whose new pages cost more than the decryption.
    /// The hash runs beside the decryption, on a queue of its own.
    func open(sealed: URL, to destination: URL, path: String, minimumVersion: UInt64) throws(RemoteError) -> (WriteSignature, Int64) {
        do {
            let hashing = PlaintextHash()
            var checked: WriteSignature?
            let roster = keyring.roster
            let signed = signedPath(path)
            let (_, size) = try Age.decryptInPlace(sealed, identities: identities, check: { header in
                checked = try ClubSeal.check(header, path: signed, shown: path, roster: roster, minimumVersion: minimumVersion).0
            }, hash: hashing.add)
            guard let signature = checked, signature.contentHash == hashing.finish() else {
                throw ClubCryptError.refused(path: path, reason: "its content does not match its signature")
            }
            do {
                try DurableFile.place(sealed.path, at: destination.path)
            } catch {
                throw RemoteError.local("cannot write \(destination.path): \(error)")
            }
            return (signature, size)
        } catch {
            throw Self.remote(error, path: path)
        }
    }

    static func remote(_ error: any Error, path: String) -> RemoteError {
        switch error {
        case let remote as RemoteError: remote
        case let refusal as ClubCryptError: refusal.remote
        case let age as AgeError: ClubCryptError.refused(path: path, reason: age.description).remote
        default: .local("\(path): \(error)")
        }
    }

    public func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                         onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        let isRevision = path.hasPrefix("rev:")
        let hidden = isRevision ? path : try hide(path)
        if let streaming = inner as? any StreamingDownloadStore {
            return try await downloadInOnePass(streaming, hidden: hidden, asked: path, to: destination, resumeData: resumeData, progress: progress,
                                               onResumeData: onResumeData)
        }
        // A store that cannot hand its bytes over as they come: the sealed file whole, then opened.
        let sealed = URL(fileURLWithPath: destination.path + ".sealed")
        // Gone however the download ends: one cut after its first bytes left them behind (a
        // simulated history's reads left thousands in the temporary folder).
        defer { try? FileManager.default.removeItem(at: sealed) }
        let entry: RemoteEntry
        do {
            entry = try await inner.download(hidden, to: sealed, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
        } catch {
            throw plain(error, path, hidden)
        }
        var plainEntry = try revealed(entry, asked: path)
        let signed = signedPath(plainEntry.path)
        let minimum = isRevision ? 0 : seen[signed] ?? 0
        let opened: (WriteSignature, Int64)
        do throws(RemoteError) {
            do throws(RemoteError) {
                opened = try open(sealed: sealed, to: destination, path: plainEntry.path, minimumVersion: minimum)
            } catch where Self.mayBeStale(error) {
                // A refusal that a roster changed since this store began explains: read the keys
                // again and try once more. Such a refusal comes from the header, before any
                // plaintext is written, so the file is still the one downloaded.
                guard await refreshKeyring() else { throw error }
                opened = try open(sealed: sealed, to: destination, path: plainEntry.path, minimumVersion: minimum)
            }
        } catch where !isRevision && Self.fallsBack(error) {
            // The newest version's writer is at fault: the members still read the last good one.
            let (older, _, size) = try await lastGoodRevision(of: plainEntry, hidden: hidden, to: destination, refusal: error)
            var shown = older
            shown.size = size
            return shown
        }
        let (signature, size) = opened
        if !isRevision { seen.saw(signature.version, at: signed) }
        plainEntry.size = size
        return plainEntry
    }

    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        try await upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress, renaming: nil)
    }

    /// `renaming`: the file this write moves here, which may be the same name in another case
    /// (a rename of `plan.md` to `Plan.md`), never a name taken.
    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?,
                renaming: String?) async throws(RemoteError) -> RemoteEntry {
        try await upload(.file(file), to: path, mode: mode, autorename: autorename, progress: progress, renaming: renaming)
    }

    /// What a write sends, before it is sealed.
    enum Plaintext {
        case file(URL)
        /// A note's bytes in memory: sealed in memory and sent in one request.
        case data(Data)
    }

    private func upload(_ plaintext: Plaintext, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?,
                        renaming: String?) async throws(RemoteError) -> RemoteEntry {
        // The server must not rename: a name it made up would not decode, nor match the
        // signature. A taken name is renamed here instead, "Note (1).md" as Dropbox would.
        try await confirmMembership()
        let adding: Bool
        if case .add = mode { adding = true } else { adding = false }
        for attempt in 0..<(autorename ? 50 : 1) {
            let candidate = attempt == 0 ? path : Self.renamed(path, attempt)
            // Taken in another case: as the club server answers for a plain name (an update
            // writes over the same file, whose name the caller had from a listing).
            if case .update = mode {} else if let twin = try await caseTwin(of: candidate), twin.lowercased() != renaming?.lowercased() {
                if autorename { continue }
                throw .conflict(twin)
            }
            let hidden = try hide(candidate)
            let signed = signedPath(candidate)
            let version = ClubSeal.nextVersion(after: seen[signed])
            do {
                var entry = try revealed(try await sendSealed(plaintext, to: hidden, path: candidate, version: version,
                                                              mode: attempt == 0 ? mode : .add, progress: progress), asked: candidate)
                seen.saw(version, at: signed)
                noteName(entry.path)
                switch plaintext {
                case .file(let file):
                    await uploadThumbnail(from: file, for: candidate)
                    entry.size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int).flatMap { $0.map(Int64.init) } ?? entry.size
                case .data(let data):
                    await uploadThumbnail(from: data, for: candidate)
                    entry.size = Int64(data.count)
                }
                return entry
            } catch .conflict(let taken) where adding && attempt == 0 {
                if let there = await holding(plaintext, at: candidate) { return there }
                if autorename { continue }
                throw plain(.conflict(taken), candidate, hidden)
            } catch .conflict where autorename {
                continue
            } catch {
                throw plain(error, candidate, hidden)
            }
        }
        throw .conflict(path)
    }

    /// The file at `path` when it holds `plaintext`'s bytes already, else nil (issue 69): an add
    /// of them writes nothing, as a club server and Dropbox answer an identical add. The server
    /// cannot tell, since the sealed bytes differ every time, so the file is fetched, opened (its
    /// signature checked) and compared; a file that cannot be read is no match.
    private func holding(_ plaintext: Plaintext, at path: String) async -> RemoteEntry? {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-same-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        guard var there = try? await download(path, to: copy, resumeData: nil, progress: nil, onResumeData: nil) else { return nil }
        switch plaintext {
        case .data(let data):
            guard (try? Data(contentsOf: copy)) == data else { return nil }
            there.size = Int64(data.count)
        case .file(let file):
            guard FileManager.default.contentsEqual(atPath: file.path, andPath: copy.path) else { return nil }
            there.size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? there.size
        }
        return (try? await metadata(path)).map { entry in
            var entry = entry
            entry.size = there.size
            return entry
        } ?? there
    }

    public func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await upload(data: data, to: path, mode: mode, autorename: autorename, renaming: nil)
    }

    private func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool, renaming: String?) async throws(RemoteError) -> RemoteEntry {
        try await upload(.data(data), to: path, mode: mode, autorename: autorename, progress: nil, renaming: renaming)
    }

    /// `plaintext` sealed for `path` at `version` and written at `hidden`: a note in memory
    /// sealed there and sent in one request; a file sealed as it is sent (EncryptedStore+SealedUpload)
    /// where the store can send such a body; an age file (one to sign as it is), or a file for
    /// a store that cannot, sealed to a temporary file first.
    func sendSealed(_ plaintext: Plaintext, to hidden: String, path: String, version: UInt64, mode: WriteMode,
                    progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let intro = Data((AgeHeader.intro + "\n").utf8)
        switch plaintext {
        case .data(let data) where !data.starts(with: intro):
            let sealed: Data
            do {
                sealed = try ClubSeal.seal(data, path: signedPath(path), version: version, to: [keyring.recipient], by: keyring.me)
            } catch {
                throw Self.remote(error, path: path)
            }
            return try await inner.upload(data: sealed, to: hidden, mode: mode, autorename: false)
        case .file(let file) where !Self.looksLikeAge(file):
            if let sources = inner as? any SourceUploadStore {
                let source = try sealedUpload(file: file, path: path, version: version)
                return try await sources.upload(source: source, to: hidden, mode: mode, autorename: false, resuming: nil, streams: nil,
                                                onSession: nil, progress: progress)
            }
            fallthrough
        default:
            var plainFile: URL?
            defer { if let plainFile { try? FileManager.default.removeItem(at: plainFile) } }
            let file: URL
            switch plaintext {
            case .file(let given):
                file = given
            case .data(let data):
                let made = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-plain-\(UUID().uuidString)")
                guard (try? DurableFile.write(data, to: made, flush: false)) != nil else {
                    throw .local("cannot make a temporary file in \(made.deletingLastPathComponent().path)")
                }
                plainFile = made
                file = made
            }
            let sealed = try seal(file: file, path: path, version: version)
            defer { try? FileManager.default.removeItem(at: sealed) }
            return try await inner.upload(file: sealed, to: hidden, mode: mode, autorename: false, progress: progress)
        }
    }

    /// "Note (2).md" for "Note.md".
    static func renamed(_ path: String, _ number: Int) -> String {
        let ns = path as NSString
        let ext = ns.pathExtension
        let stem = (ns.lastPathComponent as NSString).deletingPathExtension
        return ns.deletingLastPathComponent + "/" + stem + " (\(number))" + (ext.isEmpty ? "" : "." + ext)
    }

    /// Reads a file through this store into memory and writes it again at `to`, signed for its
    /// new path (a server-side copy or move would keep the old path's signature).
    func copyResigned(from: String, to: String, autorename: Bool, renaming: Bool = false) async throws(RemoteError) -> RemoteEntry {
        let (data, _) = try await read(from)
        return try await upload(data: data, to: to, mode: .add, autorename: autorename, renaming: renaming ? from : nil)
    }

    public func copy(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await transfer(from: from, to: to, autorename: autorename, removing: false)
    }

    public func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await transfer(from: from, to: to, autorename: autorename, removing: true)
    }

    /// A copy or move, a file at a time (a folder's files each signed for their new path).
    func transfer(from: String, to: String, autorename: Bool, removing: Bool) async throws(RemoteError) -> RemoteEntry {
        let source = try await metadata(from)
        guard source.kind == .folder else {
            // A move onto the very same path is done with nothing written, as the club server
            // answers it. Copied, it would be an add of the same bytes, which is done without a
            // write too (``holding(_:at:)``), and the delete below would then remove the note
            // itself (a generated history lost notes so: `mv NOTE FOLDER/` where it already was).
            if removing, to.lowercased() == source.pathLower, (to as NSString).lastPathComponent == source.name { return source }
            let entry = try await copyResigned(from: from, to: to, autorename: autorename, renaming: removing)
            if removing {
                guard entry.pathLower != source.pathLower || entry.name != source.name else { return entry }
                // A moved file keeps its tags (EncryptedStore+Tags); a copy starts without.
                await carryTags(from: from, to: entry.path)
                _ = try await delete(from)
            }
            return entry
        }
        let made = try await createFolder(to)
        let fromLower = source.pathLower
        for entry in try await listRecursively(from).sorted(by: { $0.pathLower < $1.pathLower }) {
            let target = made.path + entry.path.dropFirst(fromLower.count)
            if entry.kind == .folder {
                _ = try? await createFolder(target)
            } else {
                let copied = try await copyResigned(from: entry.path, to: target, autorename: false)
                if removing { await carryTags(from: entry.path, to: copied.path) }
            }
        }
        if removing { _ = try await delete(from) }
        return made
    }

    /// Makes an older revision the newest again, written anew (signed now, at a new version):
    /// the server's own restore would bring back the old signature, which readers refuse as a rollback.
    public func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry {
        let (data, entry) = try await read("rev:" + rev)
        guard entry.pathLower == path.lowercased() else { throw .local("revision \(rev) is of \(entry.path), not \(path)") }
        return try await upload(data: data, to: path, mode: .overwrite, autorename: false)
    }
}

extension EncryptedStore: BatchReadingStore {
    public var readsInBatches: Bool { (inner as? any BatchReadingStore)?.readsInBatches ?? false }

    public func readBatch(_ paths: [String]) async throws(RemoteError) -> [BatchRead] {
        guard let batches = inner as? any BatchReadingStore else { throw .notSupported("batch reads") }
        var hiding: [String] = []
        for path in paths { hiding.append(try hide(path)) }
        let hidden = hiding
        let reads = try await batches.readBatch(hidden)
        // Opening a file is an X25519 agreement, a signature check and a hash: a first sync of
        // many notes spreads them over the cores, a slice each.
        let count = min(reads.count, paths.count)
        let slices = min(max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, count / 64))
        let opened = await withTaskGroup(of: [(Int, BatchRead, UInt64?)].self) { group in
            for slice in 0..<slices {
                let range = (count * slice / slices)..<(count * (slice + 1) / slices)
                group.addTask {
                    range.map { index in
                        let (read, version) = self.open(reads[index], path: paths[index], hidden: hidden[index])
                        return (index, read, version)
                    }
                }
            }
            var all: [(Int, BatchRead, UInt64?)] = []
            for await part in group { all += part }
            return all.sorted { $0.0 < $1.0 }
        }
        if opened.contains(where: { if case .failed(_, let error) = $0.1 { Self.mayBeStale(error) } else { false } }), await refreshKeyring() {
            return try await readBatch(paths)
        }
        // A note whose newest version was refused for its writer is read alone, through
        // `download`, which falls back to its last good version.
        var answered = opened
        for (position, item) in opened.enumerated() {
            guard case .failed(let path, let error) = item.1, Self.fallsBack(error) else { continue }
            if let got = try? await read(path) { answered[position].1 = .file(got.entry, got.data) }
        }
        seen.saw(opened.compactMap { index, read, version in
            guard case .file(let entry, _) = read, let version else { return nil }
            _ = index
            return (version, signedPath(entry.path))
        })
        return answered.map(\.1)
    }

    /// One file of a batch, opened and checked; the version its signature carries.
    func open(_ read: BatchRead, path: String, hidden: String) -> (BatchRead, UInt64?) {
        switch read {
        case .failed(_, let error):
            return (.failed(path: path, plain(error, path, hidden)), nil)
        case .file(let entry, let data):
            guard var plainEntry = reveal(entry) else { return (.failed(path: path, .local("\(path): a name this club's key did not hide")), nil) }
            let signed = signedPath(plainEntry.path)
            do {
                let opened = try ClubSeal.open(data, path: signed, shown: plainEntry.path, identities: identities, roster: keyring.roster,
                                               minimumVersion: seen[signed] ?? 0)
                plainEntry.size = Int64(opened.plaintext.count)
                return (.file(plainEntry, opened.plaintext), opened.signature.version)
            } catch {
                return (.failed(path: path, Self.remote(error, path: plainEntry.path)), nil)
            }
        }
    }
}

/// SHA-256 of a plaintext as its chunks come, on a serial queue of its own, so a large file's
/// hash runs beside its decryption. At most 16 batches wait for it: a producer faster than the
/// hash waits for it, rather than the waiting chunks growing in memory.
final class PlaintextHash: @unchecked Sendable {
    // @unchecked Sendable: `hasher` is touched only on `queue` (add's blocks, finish's sync).
    private var hasher = SHA256()
    private let queue = DispatchQueue(label: "byteclub.plaintext-hash")
    private let room = DispatchSemaphore(value: 16)

    func add(_ chunk: Data) { add(contentsOf: [chunk]) }

    func add(contentsOf chunks: [Data]) {
        room.wait()
        queue.async {
            for chunk in chunks { self.hasher.update(data: chunk) }
            self.room.signal()
        }
    }

    func finish() -> Data { queue.sync { Data(hasher.finalize()) } }
}
