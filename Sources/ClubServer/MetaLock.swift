import Foundation

/// The one lock for what every server over a club folder rewrites in `.byteclub/`: the change
/// journal, `ids.json` and `content-hashes`.
///
/// Two servers may serve one folder (the app's embedded server and the background agent's). Each
/// used to write these files from its own memory, so the last writer silently won: ids the other
/// had handed out vanished, and journal records of both took the same numbers (the next start
/// then read the journal only up to the first repeated number). Under this lock a server reads
/// what the other wrote since, merges it, and writes; `flock` belongs to the open file, so the
/// lock holds between two servers of one process as between two processes, and a killed server's
/// lock goes with it. It is held only for a read, a merge and a write: never across a request.
enum MetaLock {
    static let name = "meta.lock"

    /// Runs `body` holding the lock of the folder whose `.byteclub` is `metaDirectory`. Without
    /// a lock file (a read-only `.byteclub`) `body` runs unlocked: nothing could be written anyway.
    static func holding<T>(_ metaDirectory: String, _ body: () throws -> T) rethrows -> T {
        let fd = open(metaDirectory + "/" + name, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 {
            while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        }
        // Closing the descriptor lets go of the lock.
        defer { if fd >= 0 { close(fd) } }
        return try body()
    }
}
