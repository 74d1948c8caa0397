import Foundation
import Logging
import ServiceLifecycle

/// Upload sessions that expire: their files in `.byteclub/sessions/` are removed once nothing
/// has been appended for longer than the expiry (48 hours unless configured).
///
/// Dropbox keeps a session for a week; a club server on someone's laptop keeps less, since every
/// interrupted `put` leaves one behind. Age is counted from the last append (the file's mtime),
/// so a slow upload that keeps appending never expires under its client.
extension FolderStore {
    /// Removes expired sessions now, except those with an append in progress.
    @discardableResult
    func sweepSessions(olderThan expiry: Duration, now: Date = Date()) -> [String] {
        let swept = Self.sweepSessions(in: sessionDirectory, olderThan: expiry, now: now, keeping: leases)
        if !swept.isEmpty { logger.info("removed \(swept.count) expired upload session file(s)") }
        return swept
    }

    /// The sweep itself, callable before the actor exists (at start, when nothing is leased).
    /// Returns the names removed: session files, their `.closed` markers, and any other file
    /// that has sat there for longer than the expiry.
    static func sweepSessions(in directory: String, olderThan expiry: Duration, now: Date, keeping leased: Set<String>) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let present = Set(names)
        let seconds = Double(expiry.components.seconds) + Double(expiry.components.attoseconds) / 1e18
        let cutoff = now.timeIntervalSince1970 - seconds
        func isExpired(_ name: String) -> Bool {
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0 else { return false }
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            return modified < cutoff
        }
        var removed: [String] = []
        // Markers: `.closed`, a concurrent session's ledger (`.concurrent`), its member (`.owner`).
        let markerSuffixes = [".closed", ConcurrentSessionLedger.suffix, ownerSuffix]
        func sessionOf(marker name: String) -> String? {
            markerSuffixes.first(where: { name.hasSuffix($0) }).map { String(name.dropLast($0.count)) }
        }
        for name in names.sorted() where sessionOf(marker: name) == nil {
            // A concurrent session's appends lease `<session>@<offset>`.
            let full = directory + "/" + name
            guard !leased.contains(where: { $0 == full || $0.hasPrefix(full + "@") }), isExpired(name) else { continue }
            if unlink(directory + "/" + name) == 0 { removed.append(name) }
        }
        let removedSessions = Set(removed)
        for marker in names.sorted() {
            // A marker goes with its session; alone, it goes once it is old itself.
            guard let session = sessionOf(marker: marker) else { continue }
            guard removedSessions.contains(session) || (!present.contains(session) && isExpired(marker)) else { continue }
            if unlink(directory + "/" + marker) == 0 { removed.append(marker) }
        }
        return removed
    }

    /// How often a running server sweeps: hourly, or more often for a short expiry (a quarter of
    /// it, at least a second), so a session never outlives its expiry by more than that.
    static func sweepInterval(for expiry: Duration) -> Duration {
        let quarter: Duration = expiry / 4
        return min(Duration.seconds(3600), max(Duration.seconds(1), quarter))
    }
}

/// Sweeps expired upload sessions while the server runs; ends with the server.
struct SessionSweeper: Service {
    let store: FolderStore
    let expiry: Duration

    func run() async throws {
        let interval = FolderStore.sweepInterval(for: expiry)
        // Cancelled (or told to shut down gracefully) in its sleep: nothing to finish.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await store.sweepSessions(olderThan: expiry)
            }
        }
    }
}
