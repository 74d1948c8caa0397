import Foundation

/// The upload sessions being grown right now, as a value: which appends hold which sessions
/// (leases), the size each append will leave its session at (claims), and whether a member's
/// open sessions stay within their bounds.
///
/// The ``FolderStore`` actor keeps one, so a lease, or a claim and the sum it is checked
/// against, is taken in one turn: appends racing on different sessions of one member cannot
/// both slip under the bound. The actor reads the sessions' files (``UploadSessionFiles``) and
/// passes their sizes in; the rules live here, with tests that need no disk.
struct UploadSessionLedger: Sendable, Equatable {
    /// Limits on one member's open sessions (ClubServerConfiguration).
    struct Quota: Sendable, Equatable {
        var maxSessions: Int
        var maxBytes: Int64
    }

    /// Why a session may not open or grow.
    enum Refusal: Error, Equatable {
        case tooManySessions(open: Int)
        /// What the member's sessions would hold with the growth asked for.
        case tooManyBytes(wanted: Int64)
    }

    /// Appends in progress: a session's path for a sequential append or a finish, or
    /// `<session>@<offset>` for one block of a concurrent session.
    private(set) var leases: Set<String> = []
    /// Sessions being grown, with the size each append will leave them at: counted against
    /// their member's bound before the bytes land.
    private(set) var claims: [String: Int64] = [:]

    // MARK: - Leases

    /// Claims a sequential session for one append at a time; false if another append holds it.
    mutating func lease(_ session: String) -> Bool {
        leases.insert(session).inserted
    }

    /// Ends a lease: a session's path, or a block's `<session>@<offset>`.
    mutating func release(_ lease: String) {
        leases.remove(lease)
    }

    /// Claims one block of a concurrent session; false while the same block is being written by
    /// another request or the session is being finished. Different blocks go ahead together.
    mutating func leaseBlock(_ session: String, offset: Int64) -> Bool {
        guard !leases.contains(session) else { return false }
        return leases.insert(session + "@\(offset)").inserted
    }

    /// Claims a whole session (a finish); false while any append to it runs.
    mutating func leaseSession(_ session: String) -> Bool {
        guard !isLeased(session) else { return false }
        return leases.insert(session).inserted
    }

    /// Whether any append or finish holds the session file at `path` (a sweep leaves it alone).
    func isLeased(_ path: String) -> Bool {
        leases.contains { $0 == path || $0.hasPrefix(path + "@") }
    }

    // MARK: - The member's bound

    /// Checks that a member with `open` sessions may open one more.
    func admit(open: Int, quota: Quota) throws(Refusal) {
        guard open < quota.maxSessions else { throw .tooManySessions(open: open) }
    }

    /// Claims growth of `session` to `size` bytes, refused when the member's open sessions would
    /// then hold more than the quota. `current` is the session's size on disk, `owned` the
    /// member's sessions with theirs (a larger claim in flight counts instead). Release the
    /// claim when the append ends. Returns the most the member's sessions leave this one (what
    /// a body of unknown length may bring it to).
    @discardableResult
    mutating func claimGrowth(of session: String, to size: Int64, current: Int64, owned: [String: Int64], quota: Quota) throws(Refusal) -> Int64 {
        var held: Int64 = 0
        for (other, apparent) in owned where other != session {
            // Each term is at most a session's largest file, so the sum of a few thousand fits.
            held += max(apparent, claims[other] ?? 0)
        }
        let mine = max(size, current)
        guard mine <= quota.maxBytes - held else { throw .tooManyBytes(wanted: held + mine) }
        claims[session] = max(claims[session] ?? 0, size)
        return quota.maxBytes - held
    }

    mutating func releaseGrowth(of session: String) {
        claims[session] = nil
    }
}

/// Which files of `.byteclub/sessions/` an expiry sweep removes, from their names and times.
///
/// Dropbox keeps a session for a week; a club server on someone's laptop keeps less (48 hours
/// unless configured), since every interrupted `put` leaves one behind. Age is counted from the
/// last append (the file's mtime), so a slow upload that keeps appending never expires.
enum SessionSweep {
    /// A session's markers: `.closed`, a concurrent session's ledger, its member (`.owner`).
    static let markerSuffixes = [".closed", ConcurrentSessionLedger.suffix, UploadSessionFiles.ownerSuffix]

    /// The session a marker belongs to; nil for a name that is no marker.
    static func session(ofMarker name: String) -> String? {
        markerSuffixes.first(where: { name.hasSuffix($0) }).map { String(name.dropLast($0.count)) }
    }

    /// The cutoff, in seconds since 1970: what was last modified before it has expired.
    static func cutoff(expiry: Duration, now: Date) -> Double {
        now.timeIntervalSince1970 - (Double(expiry.components.seconds) + Double(expiry.components.attoseconds) / 1e18)
    }

    /// The files that go, in name order: sessions (and any other file that has sat there too
    /// long) not leased and modified before `cutoff`. `modified` has every name in the folder
    /// with its mtime (`.infinity` when it could not be read: that file stays).
    static func expired(_ modified: [String: Double], cutoff: Double, isLeased: (String) -> Bool) -> [String] {
        modified.keys.sorted().filter { name in
            session(ofMarker: name) == nil && !isLeased(name) && modified[name, default: .infinity] < cutoff
        }
    }

    /// The markers that go once the sessions named `removed` went: a marker goes with its
    /// session; alone, it goes once it is old itself.
    static func markers(_ modified: [String: Double], removed: Set<String>, cutoff: Double) -> [String] {
        modified.keys.sorted().filter { name in
            guard let session = session(ofMarker: name) else { return false }
            return removed.contains(session) || (modified[session] == nil && modified[name, default: .infinity] < cutoff)
        }
    }

    /// How often a running server sweeps: hourly, or more often for a short expiry (a quarter of
    /// it, at least a second), so a session never outlives its expiry by more than that.
    static func interval(for expiry: Duration) -> Duration {
        let quarter: Duration = expiry / 4
        return min(Duration.seconds(3600), max(Duration.seconds(1), quarter))
    }
}
