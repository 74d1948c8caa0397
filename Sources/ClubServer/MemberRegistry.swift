import Foundation
import Durable
import Synchronization

/// The club's members on disk: `ROOT/.byteclub/members.json` (0600), changed under an exclusive
/// lock, every change a line in `ROOT/.byteclub/audit.log`.
///
/// The server and `byteclub members --root` share this one file, so a member added or removed
/// on the server's machine counts whether the server runs or not. A running server notices a
/// change by the file's identity (inode, size, modification time): each request checks it (one
/// `stat`), and a watcher checks it a few times a second, so a removal cuts the member's open
/// requests without waiting for their next one.
public final class MemberRegistry: Sendable {
    public let file: String
    let lockFile: String
    public let auditFile: String

    private struct Loaded {
        var book = MemberBook()
        var stamp: [Int] = []
        /// Counts the books read or written: a watcher compares it with the one it last saw, so
        /// a change a request happened to read first is still noticed.
        var generation = 0
    }
    private let loaded = Mutex(Loaded())

    /// The registry of the club served from `root` (created on first write).
    public init(root: String) {
        let directory = root + "/.byteclub"
        file = directory + "/members.json"
        lockFile = directory + "/members.lock"
        auditFile = directory + "/audit.log"
    }

    /// The book as on disk now, reread only when the file changed since the last read.
    public func current() throws -> MemberBook {
        let stamp = Self.stamp(of: file)
        if let book = loaded.withLock({ $0.stamp == stamp && $0.generation > 0 ? $0.book : nil }) { return book }
        let book = try read()
        loaded.withLock { $0 = Loaded(book: book, stamp: stamp, generation: $0.generation + 1) }
        return book
    }

    /// Goes up each time another book is read or written.
    public var generation: Int { loaded.withLock { $0.generation } }

    /// Changes the book under the lock: read, `change`, write back (temp file and rename), then
    /// one audit line per entry `change` returns. Nothing is written when `change` throws.
    @discardableResult
    public func update<T>(actor: String, _ change: (inout MemberBook) throws -> (T, [AuditEntry])) throws -> T {
        try PrivateFiles.folder((file as NSString).deletingLastPathComponent)
        let lock = PrivateFiles.open(lockFile, O_RDWR | O_CREAT)
        guard lock >= 0 else { throw MemberError("cannot open \(lockFile): \(String(cString: strerror(errno)))") }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw MemberError("cannot lock \(lockFile)") }
        var book = try read()
        let (result, entries) = try change(&book)
        try write(book)
        try appendAudit(entries, actor: actor)
        loaded.withLock { $0 = Loaded(book: book, stamp: Self.stamp(of: file), generation: $0.generation + 1) }
        return result
    }

    private func read() throws -> MemberBook {
        guard let data = FileManager.default.contents(atPath: file) else { return MemberBook() }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(MemberBook.self, from: data)
        } catch {
            // Refused rather than read as empty: an empty book would lock every member out.
            throw MemberError("\(file) is damaged (\(error)); restore it from a backup, or move it away to start with no members")
        }
    }

    private func write(_ book: MemberBook) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(book)
        do {
            try DurableFile.write(data, to: file)
        } catch {
            throw MemberError(error.description)
        }
    }

    /// One JSON line per change: when, who did it, what, to whom, with which role. Appended
    /// (O_APPEND), never rewritten; secrets and tokens never appear in it.
    private func appendAudit(_ entries: [AuditEntry], actor: String) throws {
        guard !entries.isEmpty else { return }
        let fd = open(auditFile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw MemberError("cannot append to \(auditFile): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let formatter = ISO8601DateFormatter()
        for entry in entries {
            var object: [String: String] = ["time": formatter.string(from: Date()), "actor": actor, "action": entry.action, "member": entry.member]
            if let role = entry.role { object["role"] = role.rawValue }
            let line = ((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()) + Data("\n".utf8)
            _ = line.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        }
    }

    /// Which version of the file this is: inode, size and modification time to the nanosecond.
    private static func stamp(of path: String) -> [Int] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
    }
}

/// One line of the audit log.
public struct AuditEntry: Sendable, Equatable {
    public var action: String
    public var member: String
    public var role: MemberRole?

    public init(_ action: String, member: String, role: MemberRole? = nil) {
        self.action = action
        self.member = member
        self.role = role
    }
}
