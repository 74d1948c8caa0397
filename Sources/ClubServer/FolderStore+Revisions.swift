import DropboxWire
import Durable
import Foundation

/// One revision in a file's history: one line of its log.
struct RevisionRecord: Codable, Sendable, Hashable {
    var rev: String
    var size: Int64
    /// The content hash, which also names the revision's copy of the bytes.
    var hash: String
    /// server_modified and client_modified, in seconds since 1970.
    var server: Int64
    var client: Int64
    /// Where the file was when this revision was made.
    var path: String
    /// The member who made it; nil for a change made on disk behind the server's back.
    var by: String?
}

/// A deleted file whose history is kept: found again by its id, or by its old path (the file
/// deleted there last).
struct Tombstone: Codable, Sendable {
    var id: String
    var path: String
    var deleted: Int64
    /// When, in nanoseconds: orders two deletes at one path within a second (nil in tombstones
    /// written before issue 23, which never shared a path).
    var deletedNanoseconds: Int64?
    /// Deleted longer ago than the history kept (`--history-days`): its history is gone, and
    /// the tombstone stays a while only so that asking for it says so (FolderStore+Retention).
    var expired: Bool?
    /// The member who deleted it (nil in tombstones written before issue 43, or by a change on
    /// disk), so an app with the note open can say `Deleted by ann`.
    var by: String?
}

/// What the server knows of histories, beyond the files under `.byteclub/revisions/`.
struct RevisionState: Sendable {
    /// Whether file metadata carries `sharing_info` (the server has members).
    var showsAuthors = false
    /// The newest record of each history looked at (nil: none), for `sharing_info`.
    var newest: [String: RevisionRecord?] = [:]
    /// Deleted files by id; loaded on first use. By id, not by path: two files deleted in turn
    /// at one path (the second moved there, so with an id of its own) both stay restorable.
    var tombstones: [String: Tombstone]?
    /// Tombstone ids by `path_lower`, built when first needed after `tombstones` changed (every
    /// change goes through `saveTombstones`), so a commit of a new file looks up its path
    /// without a scan.
    var tombstonePaths: [String: [String]]?
    /// The deleted file a restore is committing, for the length of that commit.
    var restoring: (pathLower: String, id: String)?
}

/// Revisions: every commit of a file is recorded in its history, kept under
/// `.byteclub/revisions/<id>/`: a `log` (one JSON line per revision, oldest first) and copies of
/// the revisions' bytes named by content hash (revisions with equal content share one).
///
/// The newest revision's bytes are the live file itself until it is replaced or deleted; only
/// then is it linked into the history (a hard link of a file about to go: no copy, and no
/// second name for a live file that an editor might then write in place). Notes (`.txt`,
/// `.md`) are small and are also copied at commit, so a note edited on disk behind the
/// server's back keeps its previous text. `.byteclub/revisions/revs/<rev>` is a symlink to the
/// history holding `rev`, so `rev:` downloads find it without an index in memory.
///
/// A change made on disk is recorded, without an author, the next time the server looks at
/// that file's history (a commit over it, a delete, `list_revisions`).
extension FolderStore {
    /// Revisions kept per note; other files keep fewer, their bytes being larger.
    static let noteRevisionLimit = 100
    static let otherRevisionLimit = 3

    nonisolated var revisionsDirectory: String { metaDirectory + "/revisions" }
    var revLinksDirectory: String { revisionsDirectory + "/revs" }

    static func isNote(_ name: String) -> Bool {
        let ext = (name as NSString).pathExtension.lowercased()
        return ext == "txt" || ext == "md"
    }

    static func revisionLimit(for name: String) -> Int { isNote(name) ? noteRevisionLimit : otherRevisionLimit }

    /// The history folder's name for a file id ("id:abc" → "abc"); nil for ids that are not ours.
    static func historyKey(_ id: String) -> String? {
        guard id.hasPrefix("id:") else { return nil }
        let key = String(id.dropFirst(3))
        guard !key.isEmpty, key.count <= 64, key != "revs", key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        return key
    }

    /// A rev as we hand them out: hex digits (Dropbox's are at least 9).
    static func isWellFormedRev(_ rev: String) -> Bool {
        (9...64).contains(rev.count) && rev.allSatisfy(\.isHexDigit)
    }

    // MARK: - Logs

    /// Every record of a history, oldest first; damaged lines are skipped.
    func records(_ key: String) -> [RevisionRecord] {
        guard let text = FolderFiles.readSmallFile(revisionsDirectory + "/" + key + "/log", limit: 16 << 20) else { return [] }
        let decoder = JSONDecoder()
        return text.split(separator: "\n").compactMap { try? decoder.decode(RevisionRecord.self, from: Data($0.utf8)) }
    }

    /// Appends a record, then prunes the oldest beyond `limit` (their bytes with them, unless a
    /// kept record has the same content).
    func append(_ record: RevisionRecord, to key: String, limit: Int) {
        let directory = revisionsDirectory + "/" + key
        try? FileManager.default.createDirectory(atPath: revLinksDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var all = records(key)
        all.append(record)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let line = try? encoder.encode(record) else { return }
        unlink(revLinksDirectory + "/" + record.rev)
        symlink(key, revLinksDirectory + "/" + record.rev)
        if all.count > limit {
            let dropped = Array(all.prefix(all.count - limit))
            all.removeFirst(all.count - limit)
            rewriteLog(key, keeping: all, dropping: dropped)
        } else {
            let fd = open(directory + "/log", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return }
            defer { close(fd) }
            let bytes = line + Data("\n".utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
        revisions.newest[key] = .some(record)
    }

    /// Rewrites a history's log as `kept` (DurableFile), removing the bytes and rev
    /// links of `dropped` that no kept record shares.
    func rewriteLog(_ key: String, keeping kept: [RevisionRecord], dropping dropped: [RevisionRecord]) {
        let directory = revisionsDirectory + "/" + key
        let keptHashes = Set(kept.map(\.hash))
        let keptRevs = Set(kept.map(\.rev))
        for old in dropped {
            if !keptHashes.contains(old.hash) { unlink(directory + "/" + old.hash) }
            if !keptRevs.contains(old.rev) { unlink(revLinksDirectory + "/" + old.rev) }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var text = Data()
        for record in kept { if let encoded = try? encoder.encode(record) { text += encoded + Data("\n".utf8) } }
        try? DurableFile.write(text, to: directory + "/log", temporaryDirectory: tempDirectory)
    }

    /// The history holding `rev`, from its link under `revs/`.
    func historyKey(ofRev rev: String) -> String? {
        guard Self.isWellFormedRev(rev) else { return nil }
        var buffer = [CChar](repeating: 0, count: 128)
        let count = readlink(revLinksDirectory + "/" + rev, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let key = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Self.historyKey("id:" + key) == key ? key : nil
    }

    // MARK: - Recording

    /// Makes sure the history's newest record is the live file's version (a change made on
    /// disk is recorded then, by nobody known); `member` is who made it, if we know.
    func reconcile(_ file: FileMetadata, member: String?) {
        guard let key = Self.historyKey(file.id), let hash = file.contentHash, !hash.isEmpty else { return }
        if newestRecord(key)?.rev == file.rev { return }
        let record = RevisionRecord(rev: file.rev, size: file.size, hash: hash, server: Int64(file.serverModified.timeIntervalSince1970),
                                    client: Int64(file.clientModified.timeIntervalSince1970), path: file.pathDisplay ?? "", by: member)
        append(record, to: key, limit: Self.revisionLimit(for: file.name))
    }

    /// After a commit placed `file` at `host`: records it for the caller, and keeps a copy of
    /// a note's bytes (cheap, and safe from edits made on disk later).
    func recordCommit(_ file: FileMetadata, at host: String) {
        reconcile(file, member: Caller.member ?? ClubMember.sharedName)
        guard Self.isNote(file.name), let key = Self.historyKey(file.id), let hash = file.contentHash else { return }
        let blob = revisionsDirectory + "/" + key + "/" + hash
        if access(blob, F_OK) != 0 { _ = Self.copyFile(from: host, to: blob, temp: tempDirectory) }
    }

    /// Before the live file at `target` is replaced or deleted: records its version if it was
    /// changed on disk, and keeps its bytes (a hard link: the file is about to go).
    func retire(_ target: Resolved) {
        var info = stat()
        guard target.exists, !target.isDirectory, lstat(target.host, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              case .file(let file)? = try? metadata(target, info: info) else { return }
        reconcile(file, member: nil)
        guard let key = Self.historyKey(file.id), let hash = file.contentHash, !hash.isEmpty else { return }
        let blob = revisionsDirectory + "/" + key + "/" + hash
        if access(blob, F_OK) != 0, link(target.host, blob) != 0 {
            _ = Self.copyFile(from: target.host, to: blob, temp: tempDirectory)
        }
    }

    /// Before a delete: keeps the history of every file under `target` and remembers where
    /// each was, so `list_revisions` and `restore` still find it by id and by path.
    func retireForDelete(_ target: Resolved) {
        let clock = Date().timeIntervalSince1970
        let now = Int64(clock)
        loadTombstones()
        let prefix = target.path.lower
        for (pathLower, id) in identifiers.entries(under: prefix) {
            guard let path = try? DropboxPath.checked(pathLower), let entry = try? resolve(path), entry.exists, !entry.isDirectory else { continue }
            retire(entry)
            revisions.tombstones?[id] = Tombstone(id: id, path: entry.path.display, deleted: now, deletedNanoseconds: Int64(clock * 1e9),
                                                  by: Caller.member ?? ClubMember.sharedName)
        }
        saveTombstones()
    }

    /// A new file at a deleted file's path takes up the id of the file deleted there last, so
    /// its history goes on.
    /// A restore names which deleted file it brings back (`revisions.restoring`): that one's id,
    /// whichever was deleted there last.
    func reclaimIdentifier(for pathLower: String) {
        guard identifiers[pathLower] == nil else { return }
        loadTombstones()
        let restoring = revisions.restoring.flatMap { $0.pathLower == pathLower ? revisions.tombstones?[$0.id] : nil }
        guard let tombstone = restoring ?? tombstone(at: pathLower) else { return }
        revisions.tombstones?[tombstone.id] = nil
        identifiers.assign(tombstone.id, to: pathLower)
        saveTombstones()
    }

    /// The file deleted last at `pathLower` (exact ties go to the greater id, so the answer
    /// does not depend on the dictionary's order).
    func tombstone(at pathLower: String, expired: Bool = false) -> Tombstone? {
        if revisions.tombstonePaths == nil {
            var paths: [String: [String]] = [:]
            for tombstone in (revisions.tombstones ?? [:]).values { paths[tombstone.path.lowercased(), default: []].append(tombstone.id) }
            revisions.tombstonePaths = paths
        }
        return (revisions.tombstonePaths?[pathLower] ?? []).compactMap { revisions.tombstones?[$0] }
            .filter { ($0.expired ?? false) == expired }
            .max { ($0.deleted, $0.deletedNanoseconds ?? 0, $0.id) < ($1.deleted, $1.deletedNanoseconds ?? 0, $1.id) }
    }

    /// Loads `deleted.json`. Servers before issue 23 keyed it by `path_lower`; the values are
    /// the same, so both read by re-keying each tombstone by its id.
    func loadTombstones() {
        guard revisions.tombstones == nil else { return }
        if let data = FileManager.default.contents(atPath: revisionsDirectory + "/deleted.json"),
           let stored = try? JSONDecoder().decode([String: Tombstone].self, from: data) {
            revisions.tombstones = Dictionary(stored.values.map { ($0.id, $0) }) { $0.deleted >= $1.deleted ? $0 : $1 }
        } else {
            revisions.tombstones = [:]
        }
    }

    func saveTombstones() {
        revisions.tombstonePaths = nil
        guard let tombstones = revisions.tombstones, let data = try? JSONEncoder().encode(tombstones) else { return }
        try? FileManager.default.createDirectory(atPath: revisionsDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? DurableFile.write(data, to: revisionsDirectory + "/deleted.json", temporaryDirectory: tempDirectory)
    }

    // MARK: - Authors

    /// The newest record of a history, cached (listings ask once per file).
    func newestRecord(_ key: String) -> RevisionRecord? {
        if let cached = revisions.newest[key] { return cached }
        let newest = records(key).last
        revisions.newest[key] = .some(newest)
        return newest
    }

    /// From now on file metadata says who made each revision: the first member joined.
    func showAuthors() { revisions.showsAuthors = true }

    /// `sharing_info` for a file's version, when the server has members and knows who made it.
    func sharingInfo(id: String, rev: String) -> FileSharingInfo? {
        guard revisions.showsAuthors, let key = Self.historyKey(id) else { return nil }
        return Self.sharingInfo(newestRecord(key).flatMap { $0.rev == rev ? $0 : nil }, shows: true)
    }

    static func sharingInfo(_ record: RevisionRecord?, shows: Bool) -> FileSharingInfo? {
        guard shows else { return nil }
        // A reader's answers say the folder is read-only to them, as Dropbox's do for a viewer.
        return FileSharingInfo(readOnly: CallerRole.readsOnly, parentSharedFolderID: sharedFolderID, modifiedBy: record?.by.map(ClubMember.accountID(of:)))
    }

    /// The club folder's id as a shared folder, constant: a server shares exactly one.
    static let sharedFolderID = "1"

    // MARK: - Copying bytes

    /// Copies a file's bytes into `destination` (through a temp file, then a rename), in the
    /// kernel (`sendfile`), so no buffer passes through the server.
    @discardableResult
    static func copyFile(from source: String, to destination: String, temp directory: String) -> Bool {
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard input >= 0 else { return false }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        do {
            try DurableFile.write(to: destination, temporaryDirectory: directory) { output in
                copyBytes(from: input, to: output, count: Int64(info.st_size))
            }
            return true
        } catch {
            return false
        }
    }

    /// Copies `count` bytes between open files from their current offsets; false on any failure.
    static func copyBytes(from input: Int32, to output: Int32, count: Int64) -> Bool {
        var remaining = count
        while remaining > 0 {
            let copied = sendfile(output, input, nil, Int(min(remaining, 1 << 30)))
            if copied < 0 && errno == EINTR { continue }
            guard copied > 0 else { return false }
            remaining -= Int64(copied)
        }
        return true
    }
}
