import Foundation
import Logging
import Synchronization

/// Two servers may run over one club folder: the app's embedded server and the background
/// agent's both serve `~/…/club`. Each streams upload bodies and copies into `.byteclub/tmp/`,
/// and a server clears that folder's leftovers (of a crash) when it starts. Clearing must never
/// touch a temporary file another live server is still writing, or that server's upload fails
/// at its commit (`no_write_permission`).
///
/// So every server holds a shared `flock` on `.byteclub/servers.lock` for as long as it runs.
/// A starting server that can take the lock exclusively is alone: every file in `tmp/` is a
/// dead server's, and all are removed. Otherwise only files untouched for longer than the
/// session expiry go (a live writer touches its file with every block), and the rest are left
/// to the next server that starts alone. `flock` belongs to the open file, so this holds for
/// two servers in one process as for two processes, and a killed server's lock goes with it.
final class TemporaryFolderClaim: Sendable {
    /// The lock file's descriptor while held; -1 once released (or if it could not be opened).
    private let descriptor: Mutex<Int32>

    /// Takes the shared lock, clearing `tempDirectory` as described above first.
    init(metaDirectory: String, tempDirectory: String, expiry: Duration, logger: Logger) {
        let path = metaDirectory + "/servers.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            // Without the lock nobody can tell whose the files are: leave them all.
            logger.warning("cannot open \(path): \(String(cString: strerror(errno))); temporary files are left alone")
            descriptor = Mutex(-1)
            return
        }
        let alone = flock(fd, LOCK_EX | LOCK_NB) == 0
        let cutoff = Date().timeIntervalSince1970 - Double(expiry.components.seconds)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tempDirectory)) ?? [] {
            let file = tempDirectory + "/" + name
            var info = stat()
            guard alone || (lstat(file, &info) == 0 && Double(info.st_mtim.tv_sec) < cutoff) else { continue }
            unlink(file)
        }
        // From exclusive to shared (or shared straight away beside a live server); blocking is
        // brief: only a starting server holds the lock exclusively, and only while it clears.
        while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
        descriptor = Mutex(fd)
    }

    /// Lets go of the lock: the server has stopped, so its temporary files are leftovers now.
    func release() {
        let fd = descriptor.withLock { fd -> Int32 in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { close(fd) }
    }

    deinit { release() }
}
