import Crypto
import Foundation
import Remote

/// Uploads that outlive their process (the background agent's, after a `kill -9`): the sealed
/// file is kept where the next try finds it, so the upload session's bytes and the file sent
/// after a resume are the same bytes. A new seal would be another file key and another nonce
/// stream, which the session's first part would not match.
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
