import DropboxWire
import Durable
import Foundation
import Remote

extension RemoteStore {
    /// ``listRecursively(_:)``, or nothing when the folder does not exist yet (a new folder:
    /// everything goes).
    public func listRecursivelyIfThere(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        do { return try await listRecursively(folder) } catch .notFound { return [] }
    }
}

/// `get -r` and `put -r`: a folder each way, as rclone's `copy --checksum` does it.
///
/// A file already the same on both sides (the same Dropbox content hash, or, where the server
/// gives no hash, the same size) is skipped, so a second run sends only what changed. Downloads
/// go one after another, each with the single-file path's streams, resume and `--bwlimit`. Uploads
/// to a store that commits in batches (Dropbox, the club server: ``BatchUploadStore``) send files
/// of at most 4 MiB as closed upload sessions, a few at a time, committed up to 1,000 per
/// `finish_batch_v2`; larger files, and every file to WebDAV, go one by one.
///
/// Progress goes to `progress` (files planned, bytes done, bytes in all); with `dryRun`, each
/// copy that would be made goes to `wouldCopy` (from, to) and nothing is copied.
public struct FolderTransfer {
    let store: any RemoteStore
    let streams: Int?
    let dryRun: Bool
    /// Resume data for downloads, per club (the CLI's `resumeIdentity`).
    public var resumeKey = ""
    let progress: @Sendable (Int, Int64, Int64) -> Void
    let wouldCopy: (String, String) -> Void
    /// The write path an upload's notes land through, in order with the outbox's queue
    /// (``OutboxSender/Direct/putFolder(_:into:mode:transfer:)``); nil: as they come.
    var writes: OutboxSender.Direct?

    public init(store: any RemoteStore, streams: Int?, dryRun: Bool, progress: @escaping @Sendable (Int, Int64, Int64) -> Void = { _, _, _ in },
                wouldCopy: @escaping (String, String) -> Void = { _, _ in }) {
        self.store = store
        self.streams = streams
        self.dryRun = dryRun
        self.progress = progress
        self.wouldCopy = wouldCopy
    }

    public struct Tally: Sendable {
        public var sent = 0
        public var skipped = 0
        public var bytes: Int64 = 0
        public var refused: [String] = []
        /// An upload's notes in the club afterwards (sent, or the same already): the local file
        /// and its path there, for their front matter's tags (``FrontMatterTags``).
        public var notes: [(local: URL, remote: String)] = []
    }

    // MARK: Download

    /// Downloads `folder` into `local` (created as needed); names the server gives that are not
    /// safe here (`..`, control characters) are refused and reported, never written elsewhere.
    public func download(_ folder: String, into local: URL) async throws -> Tally {
        let entries = try await store.listRecursively(folder).filter { $0.kind == .file }
        var tally = Tally()
        var plan: [(RemoteEntry, URL)] = []
        for entry in entries.sorted(by: { $0.pathLower < $1.pathLower }) {
            let relative = String(entry.path.dropFirst(folder.count)).split(separator: "/").map(String.init)
            guard !relative.isEmpty, relative.allSatisfy({ SafeName.problem($0) == nil }) else {
                tally.refused.append("\(entry.path): its name is not safe on this machine; skipped")
                continue
            }
            let target = relative.reduce(local) { $0.appendingPathComponent($1) }
            if Self.identical(local: target, remote: entry) {
                tally.skipped += 1
            } else {
                plan.append((entry, target))
            }
        }
        let total = plan.reduce(Int64(0)) { $0 + $1.0.size }
        let progress = self.progress, count = plan.count
        for (entry, target) in plan {
            if dryRun {
                wouldCopy(entry.path, target.path)
                tally.sent += 1
                continue
            }
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            let done = tally.bytes
            let resumeFile = Paths.resumeData.appendingPathComponent(ResumeKey.make(resumeKey + "\n" + entry.path + "\n" + target.path) + ".json")
            let saved = FileManager.default.contents(atPath: resumeFile.path)
            _ = try await DownloadCheckpoint.$current.withValue(DownloadCheckpoint { ResumeKey.save($0, to: resumeFile, flush: false) }) {
                try await store.get(entry.path, to: target, resumeData: saved, progress: { now, _ in progress(count, done + now, total) },
                                    onResumeData: { ResumeKey.save($0, to: resumeFile) }, streams: streams)
            }
            try? FileManager.default.removeItem(at: resumeFile)
            tally.sent += 1
            tally.bytes += entry.size
        }
        return tally
    }

    // MARK: Upload

    /// Uploads the files under `local` into `folder`, with `mode` for names that are taken by a
    /// file that differs (add: reported as a conflict and left alone; overwrite: replaced).
    public func upload(_ local: URL, into folder: String, mode: WriteMode) async throws -> Tally {
        var remote: [String: RemoteEntry] = [:]
        for entry in try await store.listRecursivelyIfThere(folder) where entry.kind == .file { remote[entry.pathLower] = entry }
        var tally = Tally()
        var plan: [(URL, String, Int64)] = []
        for file in Self.files(under: local) {
            let relative = String(file.path.dropFirst(local.path.count)).split(separator: "/").joined(separator: "/")
            let path = folder + "/" + relative
            let size = Int64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
            if let existing = remote[path.lowercased()] {
                if Self.identical(local: file, remote: existing) {
                    tally.skipped += 1
                    if FrontMatterTags.isNote(path) { tally.notes.append((file, path)) }
                    continue
                }
                if mode == .add {
                    tally.refused.append("\(path) already exists and differs; skipped (--mode overwrite replaces it)")
                    continue
                }
            }
            plan.append((file, path, size))
        }
        let total = plan.reduce(Int64(0)) { $0 + $1.2 }
        let progress = self.progress, count = plan.count
        var oneByOne = plan
        if !dryRun, let batcher = store as? any BatchUploadStore {
            // Small files in batches (sessions a few at a time, then up to 1,000 commits per
            // call); the larger ones after them, one by one with their streams.
            let small = plan.filter { $0.2 <= BatchUpload.maxFileSize }
            oneByOne = plan.filter { $0.2 > BatchUpload.maxFileSize }
            try await sendBatched(small, with: batcher, mode: mode, tally: &tally) { sent in progress(count, sent, total) }
        }
        for (file, path, size) in oneByOne {
            if dryRun {
                wouldCopy(file.path, path)
                tally.sent += 1
                continue
            }
            let done = tally.bytes
            let (store, streams) = (self.store, self.streams)
            let put = { () async throws(RemoteError) -> RemoteEntry in
                try await store.put(file: file, to: path, mode: mode, autorename: false,
                                    progress: { now, _ in progress(count, done + now, total) }, streams: streams)
            }
            if let writes, FrontMatterTags.isNote(path) {
                _ = try await writes.inOrderWithTheQueue(put)
            } else {
                _ = try await put()
            }
            tally.sent += 1
            tally.bytes += size
            if FrontMatterTags.isNote(path) { tally.notes.append((file, path)) }
        }
        return tally
    }

    /// Sends small files through ``BatchUploadStore/uploadBatch(_:mode:progress:)``, counting
    /// each that landed; the first failure is thrown once the batch is done, as the one-by-one
    /// path throws its first (the others in the batch stay committed, and a second run skips them).
    private func sendBatched(_ small: [(URL, String, Int64)], with batcher: any BatchUploadStore, mode: WriteMode, tally: inout Tally,
                             progress: @escaping @Sendable (Int64) -> Void) async throws {
        guard !small.isEmpty else { return }
        let items = small.map { BatchUpload.Item(source: .file($0.0), path: $0.1) }
        let results = if let writes, small.contains(where: { FrontMatterTags.isNote($0.1) }) {
            try await writes.inOrderWithTheQueue { () async -> [Result<RemoteEntry, RemoteError>] in
                await batcher.uploadBatch(items, mode: mode, progress: progress)
            }
        } else {
            await batcher.uploadBatch(items, mode: mode, progress: progress)
        }
        var failure: RemoteError?
        for ((file, path, size), result) in zip(small, results) {
            switch result {
            case .success:
                tally.sent += 1
                tally.bytes += size
                if FrontMatterTags.isNote(path) { tally.notes.append((file, path)) }
            case .failure(let error):
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// Regular files under `folder`, sorted, hidden ones (`.git`, `.DS_Store`) left out.
    public static func files(under folder: URL) -> [URL] {
        let keys: [URLResourceKey] = [.isRegularFileKey]
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles]) else { return [] }
        var files: [URL] = []
        for case let url as URL in walk where (try? url.resourceValues(forKeys: Set(keys)).isRegularFile) == true {
            files.append(url.standardizedFileURL)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Whether the local file already holds what the remote entry does: by Dropbox content
    /// hash when the server gives one, else by size.
    public static func identical(local: URL, remote: RemoteEntry) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: local.path),
              (attributes[.type] as? FileAttributeType) == .typeRegular,
              (attributes[.size] as? Int).map(Int64.init) == remote.size else { return false }
        guard let hash = remote.contentHash else { return true }
        return (try? ContentHasher.hash(fileAt: local.path)) == hash
    }
}

/// Names resume-data files after what they resume.
public enum ResumeKey {
    public static func make(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(format: "%016llx", hash)
    }

    /// `flush: false` for a checkpoint taken while the bytes still arrive (they are not flushed
    /// either): it outlives the process, which is what it is for.
    public static func save(_ data: Data, to url: URL, flush: Bool = true) {
        try? DurableFile.write(data, to: url, flush: flush)
    }
}

extension RemoteStore {
    /// An upload over `streams` connections where the store can do that, else over one.
    public func put(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?,
             streams: Int?) async throws(RemoteError) -> RemoteEntry {
        if let parallel = self as? any ParallelTransferStore {
            return try await parallel.upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress, streams: streams)
        }
        return try await upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
    }

    /// A download over `streams` connections where the store can do that, else over one.
    public func get(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
             onResumeData: (@Sendable (Data) -> Void)?, streams: Int?) async throws(RemoteError) -> RemoteEntry {
        if let parallel = self as? any ParallelTransferStore {
            return try await parallel.download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData,
                                               streams: streams)
        }
        return try await download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
    }
}
