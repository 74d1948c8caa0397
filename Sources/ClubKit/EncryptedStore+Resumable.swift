import ClubCrypt
import Crypto
import Durable
import Foundation
import Remote

/// Uploads that outlive their process (the background agent's, after a `kill -9`): what the
/// sealed file is made from is kept where the next try finds it (its head, for a body sealed
/// as it is sent; the whole sealed copy, for a store that cannot take such a body), so the
/// upload session's bytes and the bytes sent after a resume are the same. A new seal would be
/// another file key and another nonce stream, which the session's first part would not match.
extension EncryptedStore: ResumableUploadStore {
    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?, streams: Int?,
                       onSession: @escaping @Sendable (UploadSessionMark) -> Void, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        // A name picked here when the one asked for is taken cannot be resumed under: as before.
        guard let resumable = inner as? any ResumableUploadStore, !autorename else {
            return try await upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
        }
        try await confirmMembership()
        if case .update = mode {} else if let twin = try await caseTwin(of: path) { throw .conflict(twin) }
        let hidden = try hide(path)
        let signed = signedPath(path)
        let kept = try keptSeal(of: file, path: path)
        if let sources = inner as? any SourceUploadStore, !Self.looksLikeAge(file) {
            return try await uploadSealedAsSent(sources, file: file, to: path, hidden: hidden, mode: mode, resuming: resuming, streams: streams,
                                                kept: kept, onSession: onSession, progress: progress)
        }
        var resuming = resuming
        let sealed: URL, version: UInt64
        if resuming != nil, let found = kept.found {
            (sealed, version) = found
        } else {
            // Nothing sealed kept (or no session to continue): seal now, and start a new session.
            resuming = nil
            if let stale = kept.found { try? FileManager.default.removeItem(at: stale.0) }
            version = ClubSeal.nextVersion(after: seen[signed])
            let fresh = try seal(file: file, path: path, version: version)
            sealed = kept.place(version)
            do {
                try? FileManager.default.removeItem(at: sealed)
                try FileManager.default.moveItem(at: fresh, to: sealed)
            } catch {
                try? FileManager.default.removeItem(at: fresh)
                throw .local("cannot keep the sealed file at \(sealed.path): \(error)")
            }
        }
        do {
            var entry = try revealed(try await resumable.upload(file: sealed, to: hidden, mode: mode, autorename: false, resuming: resuming,
                                                                streams: streams, onSession: onSession, progress: progress), asked: path)
            try? FileManager.default.removeItem(at: sealed)
            seen.saw(version, at: signed)
            noteName(entry.path)
            await uploadThumbnail(from: file, for: path)
            entry.size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int).flatMap { $0.map(Int64.init) } ?? entry.size
            return entry
        } catch {
            // Cancelled or cut off, the sealed file stays for the resume; refused, it goes.
            if error != .cancelled, !error.isTransient { try? FileManager.default.removeItem(at: sealed) }
            throw plain(error, path, hidden)
        }
    }

    /// Sealed as it is sent: what is kept between tries is only the head (the header and the
    /// payload's nonce, a few hundred bytes of what the server gets anyway), from which the same
    /// sealed bytes are made again for the session to go on with.
    private func uploadSealedAsSent(_ sources: any SourceUploadStore, file: URL, to path: String, hidden: String, mode: WriteMode,
                                    resuming: UploadSessionMark?, streams: Int?, kept: (found: (URL, UInt64)?, place: (UInt64) -> URL),
                                    onSession: @escaping @Sendable (UploadSessionMark) -> Void,
                                    progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let signed = signedPath(path)
        var resuming = resuming
        var made: (SealedUpload, UInt64, URL)?
        if resuming != nil, let (keptHead, version) = kept.found, let head = try? Data(contentsOf: keptHead),
           let source = sealedUpload(file: file, head: head) {
            made = (source, version, keptHead)
        }
        if made == nil {
            // No head kept that still fits the file (or no session to continue): a new seal, a new session.
            resuming = nil
            if let stale = kept.found { try? FileManager.default.removeItem(at: stale.0) }
            let version = ClubSeal.nextVersion(after: seen[signed])
            let source = try sealedUpload(file: file, path: path, version: version)
            let place = kept.place(version)
            do {
                try DurableFile.write(source.head, to: place)
            } catch {
                throw .local("cannot keep the sealed file's header at \(place.path): \(error)")
            }
            made = (source, version, place)
        }
        guard let (source, version, keptHead) = made else { throw .local("cannot seal \(path)") }
        do {
            var entry = try revealed(try await sources.upload(source: source, to: hidden, mode: mode, autorename: false, resuming: resuming,
                                                              streams: streams, onSession: onSession, progress: progress), asked: path)
            try? FileManager.default.removeItem(at: keptHead)
            seen.saw(version, at: signed)
            noteName(entry.path)
            await uploadThumbnail(from: file, for: path)
            entry.size = source.sealer.plaintextSize
            return entry
        } catch {
            // Cancelled or cut off, the head stays for the resume; refused, it goes.
            if error != .cancelled, !error.isTransient { try? FileManager.default.removeItem(at: keptHead) }
            throw plain(error, path, hidden)
        }
    }

    /// Where `file`'s sealed copy for `path` is kept between tries: named by the file (its path,
    /// size and modification time, so an edited file is sealed again) and the path, with the
    /// version it was signed at in its name.
    private func keptSeal(of file: URL, path: String) throws(RemoteError) -> (found: (URL, UInt64)?, place: (UInt64) -> URL) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path) else {
            throw .local("cannot read \(file.path)")
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let name = "byteclub-sealing-" + SHA256.hash(data: Data("\(file.standardizedFileURL.path)\n\(size)\n\(modified)\n\(path.lowercased())".utf8))
            .prefix(12).map { String(format: "%02x", $0) }.joined()
        let folder = FileManager.default.temporaryDirectory
        let place = { (version: UInt64) in folder.appendingPathComponent("\(name)-v\(version)") }
        let found = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).lazy
            .filter { $0.hasPrefix(name + "-v") }
            .compactMap { entry in UInt64(entry.dropFirst(name.count + 2)).map { (folder.appendingPathComponent(entry), $0) } }
            .first
        return (found, place)
    }
}
