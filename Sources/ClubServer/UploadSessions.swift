import Foundation
import Logging

/// Upload sessions, one turn at a time: leases, claims against a member's bound, concurrent
/// sessions' ledgers, and the expiry sweep. The rules are ``UploadSessionLedger``'s and
/// ``SessionSweep``'s; the files ``UploadSessionFiles``'.
///
/// An actor of its own, beside ``FolderStore``: a session is bytes in `.byteclub/sessions`, not
/// yet anything in the folder, so its bookkeeping never waits for a commit or a listing. Only
/// the session's finish (its commit) goes through the folder's actor.
actor UploadSessions {
    /// `.byteclub/sessions`.
    nonisolated let directory: String
    let temporaryDirectory: String
    private var sessions = UploadSessionLedger()
    private let logger: Logger

    /// Removes the sessions idle past `expiry` left from before (none is leased yet).
    init(directory: String, temporaryDirectory: String, expiry: Duration, logger: Logger) {
        self.directory = directory
        self.temporaryDirectory = temporaryDirectory
        self.logger = logger
        let expired = UploadSessionFiles.sweep(directory, olderThan: expiry, now: Date()) { _ in false }
        if !expired.isEmpty { logger.info("removed \(expired.count) expired upload session file(s)") }
    }

    /// Removes expired sessions now, except those with an append in progress.
    @discardableResult
    func sweepSessions(olderThan expiry: Duration, now: Date = Date()) -> [String] {
        let ledger = sessions
        let swept = UploadSessionFiles.sweep(directory, olderThan: expiry, now: now) { ledger.isLeased($0) }
        if !swept.isEmpty { logger.info("removed \(swept.count) expired upload session file(s)") }
        return swept
    }

    func lease(_ session: String) -> Bool { sessions.lease(session) }
    func release(_ lease: String) { sessions.release(lease) }
    func leaseBlock(_ session: String, offset: Int64) -> Bool { sessions.leaseBlock(session, offset: offset) }
    func leaseSession(_ session: String) -> Bool { sessions.leaseSession(session) }

    /// Checks that `member` may open one more session.
    func admitSession(of member: String, quota: UploadSessionLedger.Quota) throws(UploadSessionLedger.Refusal) {
        try sessions.admit(open: UploadSessionFiles.owned(by: member, in: directory).count, quota: quota)
    }

    /// Claims growth of `session` to `size` bytes for `member` (``UploadSessionLedger/claimGrowth(of:to:current:owned:quota:)``).
    @discardableResult
    func claimGrowth(of session: String, to size: Int64, member: String, quota: UploadSessionLedger.Quota) throws(UploadSessionLedger.Refusal) -> Int64 {
        try sessions.claimGrowth(of: session, to: size, current: UploadSessionFiles.apparentSize(session),
                                 owned: UploadSessionFiles.owned(by: member, in: directory), quota: quota)
    }

    func releaseGrowth(of session: String) {
        // The size the append left, before its claim goes: the quota never counts it short.
        UploadSessionFiles.noteSize(of: session)
        sessions.releaseGrowth(of: session)
    }

    func createConcurrentSession(_ session: String) -> Bool {
        UploadSessionFiles.createConcurrent(session, temporaryDirectory: temporaryDirectory)
    }

    /// Adds a completed append to a concurrent session's ledger: on the actor, so two appends
    /// that complete together cannot lose each other's line.
    func recordConcurrentAppend(_ session: String, offset: Int64, length: Int64, closing: Bool) throws(APIError) {
        guard var ledger = UploadSessionFiles.readLedger(session) else { throw .endpoint([.notFound]) }
        do throws(ConcurrentSessionLedger.Refusal) {
            try ledger.record(offset: offset, length: length, closing: closing)
        } catch {
            throw ClubAPI.concurrentError(error, nested: false)
        }
        // No member of append_v2's union says the server's disk failed.
        guard UploadSessionFiles.writeLedger(ledger, for: session, temporaryDirectory: temporaryDirectory) else {
            throw .serverFailure("the server could not record the block (its disk is full or not writable)")
        }
    }
}
