import DropboxWire
import Foundation
import Durable
import Logging

/// The club folder on disk, seen through Dropbox's data model.
///
/// An actor, so that every metadata change (commit, move, delete) is serialized: a rev check
/// and the rename that follows it are atomic with respect to other writers. Upload bodies are
/// streamed to temp files outside the actor; only the commit comes in here.
///
/// This file holds its state and caches; paths, metadata, listings, commits and the other
/// operations live in `FolderStore+Paths`, `+Metadata`, `+Listing`, `+Writes` and `+Operations`.
actor FolderStore {
    /// The root's real path (symlinks resolved), the confinement boundary.
    let root: String
    /// `.byteclub/` inside the root: ids, temp files and upload sessions.
    let metaDirectory: String
    let tempDirectory: String
    let sessionDirectory: String
    /// This server's share of `.byteclub/servers.lock`, so that another server starting over
    /// the same folder leaves our temporary files alone (FolderStore+TemporaryFiles).
    let temporaryClaim: TemporaryFolderClaim
    /// Ids by `path_lower`; they survive restarts and follow moves.
    var ids: [String: String] = [:]
    /// `ids.json` as this server last read or wrote it: what `ids` changed since is ours to
    /// write over what another server over the folder wrote (flushIdentifiers).
    var idsBase: [String: String] = [:]
    /// `ids.json` and `content-hashes` as this server last wrote them: a file unchanged since
    /// (no other server wrote it) need not be read again before the next write.
    var writtenStamps: [String: FileKey] = [:]
    var idsDirty = false
    var hashCache: [FileKey: String] = [:]
    /// Hashes computed since the cache file was last written, and the keys this run has used
    /// (the file keeps only those once it grows large, so stale versions do not pile up).
    var hashesDirty = false
    var hashesUsed = Set<FileKey>()
    /// The last non-recursive listing, reused while the folder's stamp is unchanged, so that
    /// paging through a big folder does not stat every file once per page.
    /// Entries are only reused for a few seconds: a file edited in place by another program
    /// does not touch the folder's mtime.
    var listingCache: (key: String, time: ContinuousClock.Instant, entries: [Metadata])?
    /// Upload sessions with an append in progress.
    var leases: Set<String> = []
    /// Upload sessions being grown right now, with the size each append will leave them at
    /// (FolderStore+SessionQuota): counted against their member's bound before the bytes land.
    var sessionClaims: [String: Int64] = [:]
    /// Histories and who made them (FolderStore+Revisions).
    var revisions = RevisionState()
    /// Tags by file id, loaded on first use (FolderStore+Tags).
    var tagIndex: [String: [String]]?
    /// Days of history kept (FolderStore+Retention); 0 keeps all.
    let historyDays: Int
    /// The change journal (`.byteclub/journal`), readable and waitable without the actor, and
    /// the tree snapshot it is fed from (FolderStore+Journal).
    let journal: ChangeJournal
    let tree: TreeSnapshot
    /// The mode of a new file: what `open(…, 0666)` would give under the process's umask, so
    /// uploads land like files any other tool writes there (temp files are 0600 until commit).
    let newFileMode: mode_t
    let logger: Logger

    /// What identifies one version of a file on disk: a write is a rename of a new inode.
    struct FileKey: Hashable, Sendable {
        var inode: UInt64
        var size: Int64
        var ctimeNanoseconds: Int64
        var mtimeNanoseconds: Int64
    }

    /// - Parameter sessionExpiry: upload sessions idle for longer are removed here, at start.
    /// - Parameter showsAuthors: file metadata carries `sharing_info` (the server has members).
    init(root rootPath: String, logger: Logger, sessionExpiry: Duration = ClubServerConfiguration.defaultSessionExpiry, showsAuthors: Bool = false,
         journalLimit: Int = 10_000, historyDays: Int = 30) throws {
        revisions.showsAuthors = showsAuthors
        self.historyDays = historyDays
        try FileManager.default.createDirectory(atPath: rootPath, withIntermediateDirectories: true)
        guard let real = realpath(rootPath, nil) else {
            throw ClubServerError.badRoot(rootPath, String(cString: strerror(errno)))
        }
        root = String(cString: real)
        free(real)
        metaDirectory = root + "/" + DropboxPath.reservedName
        tempDirectory = metaDirectory + "/tmp"
        sessionDirectory = metaDirectory + "/sessions"
        self.logger = logger
        newFileMode = 0o666 & ~Self.processUmask()
        for directory in [metaDirectory, tempDirectory, sessionDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // Leftovers of uploads cut off by a crash are never visible; clear them out, but never
        // the files of another server running over this folder.
        temporaryClaim = TemporaryFolderClaim(metaDirectory: metaDirectory, tempDirectory: tempDirectory, expiry: sessionExpiry, logger: logger)
        let expired = Self.sweepSessions(in: sessionDirectory, olderThan: sessionExpiry, now: Date(), keeping: [])
        if !expired.isEmpty { logger.info("removed \(expired.count) expired upload session file(s)") }
        ids = Self.readIdentifiers(metaDirectory)
        idsBase = ids
        hashCache = Self.readHashes(metaDirectory + "/content-hashes")
        (journal, tree) = Self.startChangeTracking(root: root, metaDirectory: metaDirectory, limit: journalLimit, logger: logger)
    }

    // MARK: - The content-hash cache

    /// Content hashes survive restarts in `.byteclub/content-hashes`, one line per file
    /// version: "inode size ctime-ns mtime-ns hash". Without it, the first listing after a start
    /// reads every file to hash it (0.75 s for 10,000 small notes). A damaged line is skipped;
    /// a file whose key changed is hashed again, so a stale line can never give a wrong hash.
    static func readHashes(_ path: String) -> [FileKey: String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        var cache: [FileKey: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let inode = UInt64(fields[0]), let size = Int64(fields[1]),
                  let ctime = Int64(fields[2]), let mtime = Int64(fields[3]), fields[4].count == 64,
                  fields[4].allSatisfy(\.isHexDigit) else { continue }
            cache[FileKey(inode: inode, size: size, ctimeNanoseconds: ctime, mtimeNanoseconds: mtime)] = String(fields[4])
        }
        return cache
    }

    /// Writes the hash cache if it changed (temp file, then rename), with the hashes another
    /// server over the folder wrote meanwhile kept (a hash is a fact about a file version, so
    /// either server's is as good; losing one only costs hashing that file again).
    func flushHashes() {
        guard hashesDirty else { return }
        hashesDirty = false
        MetaLock.holding(metaDirectory) { writeHashesLocked() }
    }

    private func writeHashesLocked() {
        let path = metaDirectory + "/content-hashes"
        if !isAsWritten(path) { hashCache.merge(Self.readHashes(path)) { mine, _ in mine } }
        if hashCache.count > 50_000 { hashCache = hashCache.filter { hashesUsed.contains($0.key) } }
        var text = ""
        text.reserveCapacity(hashCache.count * 110)
        for (key, hash) in hashCache {
            text += "\(key.inode) \(key.size) \(key.ctimeNanoseconds) \(key.mtimeNanoseconds) \(hash)\n"
        }
        let temp = tempDirectory + "/hashes-\(UUID().uuidString)"
        if FileManager.default.createFile(atPath: temp, contents: Data(text.utf8)), rename(temp, path) == 0 {
            noteWritten(path)
        }
    }

    /// Whether `path` is still as this server wrote it (MetaLock held).
    private func isAsWritten(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && writtenStamps[path] == Self.key(info)
    }

    private func noteWritten(_ path: String) {
        var info = stat()
        writtenStamps[path] = stat(path, &info) == 0 ? Self.key(info) : nil
    }

    // MARK: - Identifiers


    func identifier(for pathLower: String) -> String {
        if let id = ids[pathLower] { return id }
        let id = "id:" + Self.randomToken(bytes: 12)
        ids[pathLower] = id
        idsDirty = true
        return id
    }

    /// Writes the id index if it changed; ids survive restarts and renames.
    ///
    /// Another server over the folder may have written the index since this one read it: under
    /// MetaLock the file is read again, and only what this server changed since (`idsBase`) is
    /// written over it, where the other left that path alone. Where both gave one new path an
    /// id, the first written stands, and this server takes it too, so both answer the same id.
    func flushIdentifiers() {
        guard idsDirty else { return }
        idsDirty = false
        MetaLock.holding(metaDirectory) {
            let path = metaDirectory + "/ids.json"
            let disk = isAsWritten(path) ? idsBase : Self.readIdentifiers(metaDirectory)
            var merged = disk
            for key in Set(ids.keys).union(idsBase.keys) where ids[key] != idsBase[key] && disk[key] == idsBase[key] {
                merged[key] = ids[key]
            }
            ids = merged
            idsBase = merged
            guard let data = try? JSONEncoder().encode(merged) else { return }
            let temp = tempDirectory + "/ids-\(UUID().uuidString)"
            if FileManager.default.createFile(atPath: temp, contents: data), rename(temp, path) == 0 {
                noteWritten(path)
            }
        }
    }

    static func readIdentifiers(_ metaDirectory: String) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: metaDirectory + "/ids.json") else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
    }

    static func randomToken(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    // MARK: - Upload-session leases

    /// Claims an upload session for one append at a time; false if another append holds it.
    func lease(_ session: String) -> Bool {
        leases.insert(session).inserted
    }

    func release(_ session: String) {
        leases.remove(session)
    }

    /// The umask, read without changing it where the kernel says it (`Umask:` in
    /// /proc/self/status, Linux 4.7+); elsewhere set and put back at once, before any thread of
    /// ours creates files.
    static func processUmask() -> mode_t {
        if let status = readSmallFile("/proc/self/status"),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
           let value = mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) {
            return value
        }
        let mask = umask(0o022)
        umask(mask)
        return mask
    }

    /// A file read to its end in one go; for /proc files, whose size `stat` gives as 0.
    static func readSmallFile(_ path: String, limit: Int = 1 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let got = read(fd, &chunk, chunk.count)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            bytes += chunk[0..<got]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Replaces the file at `path` with `value` as sorted JSON (0600), durably: written to a
    /// temporary file in `temporaryDirectory`, fsynced, renamed over, and the folder synced, so
    /// a crash leaves the old file or the new one, never half of either.
    static func writeJSONDurably<Value: Encodable>(_ value: Value, to path: String, temporaryDirectory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try DurableFile.write(try encoder.encode(value), to: path, temporaryDirectory: temporaryDirectory)
    }

    static func syncDirectory(of path: String) { DurableFile.syncFolder(of: path) }
}
