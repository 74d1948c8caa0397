import Durable
import Foundation

/// `.byteclub/revisions/`, read and written: each history's folder `<key>/` with its `log`
/// (``RevisionLog``) and copies of the revisions' bytes named by content hash (revisions with
/// equal content share one); `revs/<rev>`, a symlink to the history holding `rev`, so `rev:`
/// downloads find it without an index in memory; `deleted.json` (``RevisionState``'s
/// tombstones); and `pruned`, what retention removed (``HistoryRetention``).
///
/// Files only, called from the ``FolderStore`` actor, which decides what to write.
struct HistoryFiles: Sendable {
    let directory: String
    let temporaryDirectory: String
    var revLinks: String { directory + "/revs" }
    var prunedFile: String { directory + "/pruned" }

    /// Where the copy of a history's bytes with `hash` is.
    func blob(_ key: String, _ hash: String) -> String { directory + "/" + key + "/" + hash }

    /// Every record of a history, oldest first.
    func records(_ key: String) -> [RevisionRecord] {
        FolderFiles.readSmallFile(directory + "/" + key + "/log", limit: 16 << 20).map(RevisionLog.records) ?? []
    }

    /// Appends a record and links its rev, then prunes the oldest beyond `limit` (their bytes
    /// with them, unless a kept record has the same content). False if the record could not
    /// be written.
    @discardableResult
    func append(_ record: RevisionRecord, to key: String, limit: Int) -> Bool {
        let folder = directory + "/" + key
        // mkdir first: Foundation's createDirectory looked at every folder on the way for each
        // commit (2.4% of the server's time in a `put -r`).
        for made in [revLinks, folder] where mkdir(made, 0o700) != 0 && errno != EEXIST {
            try? PrivateFiles.folder(made)
        }
        let all = records(key)
        guard let line = RevisionLog.line(record) else { return false }
        unlink(revLinks + "/" + record.rev)
        symlink(key, revLinks + "/" + record.rev)
        let (kept, dropped) = RevisionLog.appending(record, to: all, limit: limit)
        guard dropped.isEmpty else {
            rewriteLog(key, keeping: kept, dropping: dropped)
            return true
        }
        let fd = open(folder + "/log", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return true
    }

    /// Rewrites a history's log as `kept` (DurableFile), removing the bytes and rev links of
    /// `dropped` that no kept record shares.
    func rewriteLog(_ key: String, keeping kept: [RevisionRecord], dropping dropped: [RevisionRecord]) {
        let (hashes, revs) = RevisionLog.orphans(dropping: dropped, keeping: kept)
        for hash in hashes { unlink(blob(key, hash)) }
        for rev in revs { unlink(revLinks + "/" + rev) }
        try? DurableFile.write(RevisionLog.text(kept), to: directory + "/" + key + "/log", temporaryDirectory: temporaryDirectory)
    }

    /// Where a revision's bytes are: its kept copy, or the live file if that still holds them.
    func bytes(of record: RevisionRecord, for target: HistoryTarget) -> String? {
        let copy = blob(target.key, record.hash)
        return target.contentPath(of: record, copy: copy, hasCopy: access(copy, R_OK) == 0)
    }

    /// Prunes what of a history ``HistoryRetention`` says goes at `cutoff`; the records pruned.
    func prune(_ key: String, cutoff: Int64) -> [RevisionRecord] {
        // Most histories have nothing to prune: read their times without decoding them.
        guard let text = FolderFiles.readSmallFile(directory + "/" + key + "/log", limit: 16 << 20),
              HistoryRetention.replacedTimes(text).contains(where: { $0 < cutoff }) else { return [] }
        let (kept, dropped) = HistoryRetention.split(RevisionLog.records(text), cutoff: cutoff)
        if !dropped.isEmpty { rewriteLog(key, keeping: kept, dropping: dropped) }
        return dropped
    }

    /// The history holding `rev`, from its link under `revs/`.
    func historyKey(ofRev rev: String) -> String? {
        guard RevisionLog.isWellFormedRev(rev) else { return nil }
        var buffer = [CChar](repeating: 0, count: 128)
        let count = readlink(revLinks + "/" + rev, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let key = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return RevisionLog.historyKey("id:" + key) == key ? key : nil
    }

    /// Keeps a copy of a history's bytes from `host`, if it has none (0600, as everything in
    /// `.byteclub/` is). Without `flush` the copy is written and renamed into place unflushed,
    /// and its path returned for the caller to flush (``PendingSync``).
    @discardableResult
    func keepBytes(of host: String, in key: String, hash: String, flush: Bool = true) -> String? {
        let blob = blob(key, hash)
        guard access(blob, F_OK) != 0 else { return nil }
        let copied = FileCopier.copyFile(from: host, to: blob, temporaryDirectory: temporaryDirectory, flush: flush)
        return copied && !flush ? blob : nil
    }

    /// Keeps the bytes of the file at `host`, which is about to go (replaced or deleted), if the
    /// history has none: a hard link (no copy), or a copy when linking fails. Answers the link
    /// made: it is the club file's inode, with the club file's mode, until the file goes; then
    /// ``makePrivate(retired:)`` makes it 0600.
    func retireBytes(of host: String, in key: String, hash: String) -> String? {
        let blob = blob(key, hash)
        guard access(blob, F_OK) != 0 else { return nil }
        if link(host, blob) == 0 { return blob }
        FileCopier.copyFile(from: host, to: blob, temporaryDirectory: temporaryDirectory, flush: true)
        return nil
    }

    /// Makes the links ``retireBytes(of:in:hash:)`` made private once their club files are gone:
    /// the history's name is then the inode's only one, and `.byteclub/` is private. A link
    /// whose inode has another name still (the file was not replaced after all, or the club
    /// holds a hard link of its own to it) keeps the club's mode: a club file's mode is the
    /// club's.
    static func makePrivate(retired links: [String]) {
        for link in links {
            var info = stat()
            guard lstat(link, &info) == 0, info.st_nlink == 1 else { continue }
            PrivateFiles.protect(link)
        }
    }

    /// Removes a history whole: its log, its bytes and the rev links pointing at it. Returns
    /// the records it held.
    @discardableResult
    func removeHistory(_ key: String) -> [RevisionRecord] {
        let all = records(key)
        for record in all where historyKey(ofRev: record.rev) == key { unlink(revLinks + "/" + record.rev) }
        try? FileManager.default.removeItem(atPath: directory + "/" + key)
        return all
    }

    /// The histories on disk, by key.
    func keys() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { RevisionLog.historyKey("id:" + $0) == $0 }
    }

    // MARK: - deleted.json and pruned

    func readTombstones() -> [String: Tombstone] {
        RevisionState.tombstones(stored: FileManager.default.contents(atPath: directory + "/deleted.json"))
    }

    func writeTombstones(_ tombstones: [String: Tombstone]) {
        guard let data = try? JSONEncoder().encode(tombstones) else { return }
        try? PrivateFiles.folder(directory)
        try? DurableFile.write(data, to: directory + "/deleted.json", temporaryDirectory: temporaryDirectory)
    }

    /// Adds pruned revs' lines (`<rev> <history>`) to `pruned`, keeping the newest.
    func rememberPruned(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        let all = HistoryRetention.remembered(FolderFiles.readSmallFile(prunedFile, limit: 64 << 20) ?? "", adding: lines)
        try? DurableFile.write(Data((all.joined(separator: "\n") + "\n").utf8), to: prunedFile, temporaryDirectory: temporaryDirectory)
    }

    /// The history a pruned `rev` belonged to, if it was pruned (read only on the error path).
    func prunedHistoryKey(ofRev rev: String) -> String? {
        guard RevisionLog.isWellFormedRev(rev), let text = FolderFiles.readSmallFile(prunedFile, limit: 64 << 20) else { return nil }
        return HistoryRetention.prunedHistory(ofRev: rev, in: text)
    }

    /// Whether retention pruned `rev` from the history `key`.
    func isPruned(_ rev: String, of key: String) -> Bool {
        prunedHistoryKey(ofRev: rev) == key
    }
}
