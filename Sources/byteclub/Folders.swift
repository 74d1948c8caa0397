import ClubKit
import DropboxWire
import Foundation
import LocalClub
import Remote

/// Everything under a club folder, subfolders included (``RemoteStore/listRecursively(_:)``).
func listRecursively(_ store: any RemoteStore, _ folder: String) async throws(RemoteError) -> [RemoteEntry] {
    try await store.listRecursively(folder)
}

/// ``listRecursively(_:_:)``, or nothing when the folder does not exist yet (a new folder: everything goes).
func listRecursivelyIfThere(_ store: any RemoteStore, _ folder: String) async throws(RemoteError) -> [RemoteEntry] {
    do { return try await listRecursively(store, folder) } catch .notFound { return [] }
}

/// `get -r` and `put -r`: a folder each way, as rclone's `copy --checksum` does it.
///
/// A file already the same on both sides (the same Dropbox content hash, or, where the server
/// gives no hash, the same size) is skipped, so a second run sends only what changed. Downloads
/// go one after another, each with the single-file path's streams, resume and `--bwlimit`. Uploads
/// to a store that commits in batches (Dropbox, the club server: ``BatchUploadStore``) send files
/// of at most 4 MiB as closed upload sessions, a few at a time, committed up to 1,000 per
/// `finish_batch_v2`; larger files, and every file to WebDAV, go one by one.
struct FolderTransfer {
    let store: any RemoteStore
    let streams: Int?
    let dryRun: Bool
    /// Resume data for downloads, per club (``BackendOptions/resumeIdentity``).
    var resumeKey = ""

    struct Tally {
        var sent = 0
        var skipped = 0
        var bytes: Int64 = 0
        var refused: [String] = []
        /// An upload's notes in the club afterwards (sent, or the same already): the local file
        /// and its path there, for their front matter's tags (``FrontMatterTags``).
        var notes: [(local: URL, remote: String)] = []
    }

    /// One planned copy: a path relative to both folders, and its size.
    struct Item {
        var relative: String
        var size: Int64
    }

    // MARK: Download

    /// Downloads `folder` into `local` (created as needed); names the server gives that are not
    /// safe here (`..`, control characters) are refused and reported, never written elsewhere.
    func download(_ folder: String, into local: URL) async throws -> Tally {
        let entries = try await listRecursively(store, folder).filter { $0.kind == .file }
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
        let progress = ProgressLine("\(plan.count) file\(plan.count == 1 ? "" : "s")")
        for (entry, target) in plan {
            if dryRun {
                FileHandle.standardOutput.write(Data("would get \(TerminalSafe.escape(entry.path)) → \(TerminalSafe.escape(target.path))\n".utf8))
                tally.sent += 1
                continue
            }
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            let done = tally.bytes
            let resumeFile = Paths.resumeData.appendingPathComponent(ResumeKey.make(resumeKey + "\n" + entry.path + "\n" + target.path) + ".json")
            let saved = FileManager.default.contents(atPath: resumeFile.path)
            _ = try await DownloadCheckpoint.$current.withValue(DownloadCheckpoint { ResumeKey.save($0, to: resumeFile, flush: false) }) {
                try await store.get(entry.path, to: target, resumeData: saved, progress: { now, _ in progress.update(done + now, total) },
                                    onResumeData: { ResumeKey.save($0, to: resumeFile) }, streams: streams)
            }
            try? FileManager.default.removeItem(at: resumeFile)
            tally.sent += 1
            tally.bytes += entry.size
        }
        progress.finish()
        return tally
    }

    // MARK: Upload

    /// Uploads the files under `local` into `folder`, with `mode` for names that are taken by a
    /// file that differs (add: reported as a conflict and left alone; overwrite: replaced).
    func upload(_ local: URL, into folder: String, mode: WriteMode) async throws -> Tally {
        var remote: [String: RemoteEntry] = [:]
        for entry in try await listRecursivelyIfThere(store, folder) where entry.kind == .file { remote[entry.pathLower] = entry }
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
        let progress = ProgressLine("\(plan.count) file\(plan.count == 1 ? "" : "s")")
        var oneByOne = plan
        if !dryRun, let batcher = store as? any BatchUploadStore {
            // Small files in batches (sessions a few at a time, then up to 1,000 commits per
            // call); the larger ones after them, one by one with their streams.
            let small = plan.filter { $0.2 <= BatchUpload.maxFileSize }
            oneByOne = plan.filter { $0.2 > BatchUpload.maxFileSize }
            try await sendBatched(small, with: batcher, mode: mode, tally: &tally) { sent in progress.update(sent, total) }
        }
        for (file, path, size) in oneByOne {
            if dryRun {
                FileHandle.standardOutput.write(Data("would put \(TerminalSafe.escape(file.path)) → \(TerminalSafe.escape(path))\n".utf8))
                tally.sent += 1
                continue
            }
            let done = tally.bytes
            _ = try await store.put(file: file, to: path, mode: mode, autorename: false,
                                    progress: { now, _ in progress.update(done + now, total) }, streams: streams)
            tally.sent += 1
            tally.bytes += size
            if FrontMatterTags.isNote(path) { tally.notes.append((file, path)) }
        }
        progress.finish()
        return tally
    }

    /// Sends small files through ``BatchUploadStore/uploadBatch(_:mode:progress:)``, counting
    /// each that landed; the first failure is thrown once the batch is done, as the one-by-one
    /// path throws its first (the others in the batch stay committed, and a second run skips them).
    private func sendBatched(_ small: [(URL, String, Int64)], with batcher: any BatchUploadStore, mode: WriteMode, tally: inout Tally,
                             progress: @escaping @Sendable (Int64) -> Void) async throws {
        guard !small.isEmpty else { return }
        let results = await batcher.uploadBatch(small.map { BatchUpload.Item(source: .file($0.0), path: $0.1) }, mode: mode, progress: progress)
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
    static func files(under folder: URL) -> [URL] {
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
    static func identical(local: URL, remote: RemoteEntry) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: local.path),
              (attributes[.type] as? FileAttributeType) == .typeRegular,
              (attributes[.size] as? Int).map(Int64.init) == remote.size else { return false }
        guard let hash = remote.contentHash else { return true }
        return (try? ContentHasher.hash(fileAt: local.path)) == hash
    }

    /// "3 sent (1.2 MiB), 197 already the same" on stderr, and the names refused.
    static func report(_ tally: Tally, verb: String, dryRun: Bool) {
        for refusal in tally.refused { say(refusal) }
        let sent = dryRun ? "\(tally.sent) would be \(verb)" : "\(tally.sent) \(verb) (\(ProgressLine.bytes(tally.bytes)))"
        say("\(sent), \(tally.skipped) already the same")
    }
}
