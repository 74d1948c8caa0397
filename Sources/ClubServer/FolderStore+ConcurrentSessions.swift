import Foundation
import Durable

/// The server's side of concurrent upload sessions: their ledgers and their leases.
///
/// Appends to one concurrent session run at the same time, each holding a lease on its own
/// block (`<session>@<offset>`), so the same block sent twice at once is refused with a
/// retry-after while different blocks go ahead. A finish leases the whole session and waits
/// for no append. Ledger updates go through this actor, one at a time, so two appends that
/// complete together cannot lose each other's line.
extension FolderStore {
    static func ledgerPath(_ session: String) -> String { session + ConcurrentSessionLedger.suffix }

    /// The session's ledger; nil for a sequential session (or one that is gone).
    static func readLedger(_ session: String) -> ConcurrentSessionLedger? {
        guard let data = FileManager.default.contents(atPath: ledgerPath(session)) else { return nil }
        return ConcurrentSessionLedger(text: String(decoding: data, as: UTF8.self))
    }

    /// Creates an empty concurrent session's file and ledger.
    func createConcurrentSession(_ session: String) -> Bool {
        guard FileManager.default.createFile(atPath: session, contents: nil, attributes: [.posixPermissions: 0o600]) else { return false }
        guard writeLedger(ConcurrentSessionLedger(), for: session) else {
            unlink(session)
            return false
        }
        return true
    }

    /// Adds a completed append to the session's ledger.
    func recordConcurrentAppend(_ session: String, offset: Int64, length: Int64, closing: Bool) throws(APIError) {
        guard var ledger = Self.readLedger(session) else { throw .endpoint([.notFound]) }
        do throws(ConcurrentSessionLedger.Refusal) {
            try ledger.record(offset: offset, length: length, closing: closing)
        } catch {
            throw ClubAPI.concurrentError(error, nested: false)
        }
        // No member of append_v2's union says the server's disk failed.
        guard writeLedger(ledger, for: session) else { throw .serverFailure("the server could not record the block (its disk is full or not writable)") }
    }

    /// Replaces the ledger whole and durably (``DurableFile``): a block it records as written
    /// stays recorded after a crash, as the block's bytes do.
    private func writeLedger(_ ledger: ConcurrentSessionLedger, for session: String) -> Bool {
        (try? DurableFile.write(Data(ledger.text.utf8), to: Self.ledgerPath(session), permissions: 0o600,
                                temporaryDirectory: tempDirectory)) != nil
    }

    /// Claims one block of a concurrent session for an append; false while the same block is
    /// being written by another request or the session is being finished.
    func leaseBlock(_ session: String, offset: Int64) -> Bool {
        guard !leases.contains(session) else { return false }
        return leases.insert(session + "@\(offset)").inserted
    }

    /// Claims a whole session (a finish); false while any append to it runs.
    func leaseSession(_ session: String) -> Bool {
        let prefix = session + "@"
        guard !leases.contains(where: { $0 == session || $0.hasPrefix(prefix) }) else { return false }
        return leases.insert(session).inserted
    }
}
