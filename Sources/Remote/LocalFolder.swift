import DropboxWire
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A local folder that downloads land in, held open by a descriptor.
///
/// Every file in it is created, moved, linked and removed by a single name relative to that
/// descriptor (`openat` with `O_NOFOLLOW`, `renameat`, `linkat`, `unlinkat`), never by a path
/// built from a name, and every name must pass ``SafeName/check(_:)`` first. So nothing done
/// through a `LocalFolder` can leave the folder, create a folder, or write through a symlink
/// that sits at a name: a rename replaces the link itself. The folder itself is the one the
/// user or the configuration named; it is the only folder ever created here.
public final class LocalFolder: Sendable {
    public let url: URL
    private let descriptor: Int32

    /// Opens `url`, creating it (and its parents) first when `create` is set.
    public init(_ url: URL, create: Bool = false) throws(RemoteError) {
        if create { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .local("Cannot open the folder \(url.path): \(Self.reason())") }
        self.url = url
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    /// Where the file `name` in this folder is, for messages and for callers that need a URL.
    public func url(of name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Moves `file` (from anywhere, e.g. a finished download in the temp folder) into the folder
    /// as `name`, atomically replacing what is there. It gets the usual permissions (0666 less
    /// the umask), since the temp file was private.
    public func moveIn(_ file: URL, as name: String) throws(RemoteError) {
        let name = try checked(name)
        // A fixed-length staging name: `name` may already be 255 bytes long.
        let staging = ".byteclub-\(UUID().uuidString).part"
        if renameat(AT_FDCWD, file.path, descriptor, staging) != 0 {
            guard errno == EXDEV else { throw failure("Cannot write", name) }
            try copy(file, to: staging, as: name)
        }
        let fd = openat(descriptor, staging, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 {
            _ = fchmod(fd, 0o666 & ~Self.processUmask)
            close(fd)
        }
        guard renameat(descriptor, staging, descriptor, name) == 0 else {
            let error = failure("Cannot write", name)
            unlinkat(descriptor, staging, 0)
            throw error
        }
    }

    /// Gives the file `existing` (a name in this folder) the name `name`, or `title (1).ext`,
    /// `title (2).ext` and so on when that is taken, never replacing a file. Returns the name
    /// it took.
    public func placeUnique(_ existing: String, as name: String) throws(RemoteError) -> String {
        let existing = try checked(existing)
        let name = try checked(name)
        for attempt in 0..<10_000 {
            let candidate = attempt == 0 ? name : Self.numbered(name, attempt)
            // linkat fails if the name exists, so two downloads never take the same name.
            if linkat(descriptor, existing, descriptor, candidate, 0) == 0 {
                unlinkat(descriptor, existing, 0)
                return candidate
            }
            switch errno {
            case EEXIST:
                continue
            case EPERM, ENOTSUP, EOPNOTSUPP, EXDEV:
                // No hard links here (vfat, some network mounts): rename to a name not taken.
                var info = stat()
                if fstatat(descriptor, candidate, &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT {
                    guard renameat(descriptor, existing, descriptor, candidate) == 0 else { throw failure("Cannot write", candidate) }
                    return candidate
                }
                continue
            default:
                throw failure("Cannot write", candidate)
            }
        }
        throw .local("Cannot find a free name for \(name) in \(url.path)")
    }

    /// Removes the file `name`, if it is there (never a folder).
    public func remove(_ name: String) {
        guard SafeName.problem(name) == nil else { return }
        unlinkat(descriptor, name, 0)
    }

    /// Whether something (a file, a folder, a link) has the name `name`.
    public func contains(_ name: String) -> Bool {
        guard SafeName.problem(name) == nil else { return false }
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// `title (n).ext` for `name`, cut so it still fits in 255 bytes.
    static func numbered(_ name: String, _ number: Int) -> String {
        var title = Substring(name)
        var ext = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            title = name[..<dot]
            ext = String(name[dot...])
        }
        let tag = " (\(number))"
        while !title.isEmpty, title.utf8.count + tag.utf8.count + ext.utf8.count > SafeName.maxBytes {
            title.removeLast()
        }
        return String(title) + tag + ext
    }

    private func checked(_ name: String) throws(RemoteError) -> String {
        do {
            return try SafeName.check(name)
        } catch {
            throw .local("Cannot write into \(url.path): \(error.message)")
        }
    }

    private func copy(_ file: URL, to staging: String, as name: String) throws(RemoteError) {
        let input = open(file.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .local("Cannot read \(file.path): \(Self.reason())") }
        defer { close(input) }
        let output = openat(descriptor, staging, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw failure("Cannot write", name) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var failed: RemoteError?
        while failed == nil {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                failed = .local("Cannot read \(file.path): \(Self.reason())")
                break
            }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                if step < 0 {
                    if errno == EINTR { continue }
                    failed = failure("Cannot write", name)
                    break
                }
                written += step
            }
        }
        close(output)
        if let failed {
            unlinkat(descriptor, staging, 0)
            throw failed
        }
    }

    private func failure(_ what: String, _ name: String) -> RemoteError {
        .local("\(what) \(url(of: name).path): \(Self.reason())")
    }

    private static func reason() -> String { String(cString: strerror(errno)) }

    /// The process's umask, read once: reading it means setting it, which is racy to repeat.
    private static let processUmask: mode_t = {
        let mask = umask(0)
        umask(mask)
        return mask
    }()
}
