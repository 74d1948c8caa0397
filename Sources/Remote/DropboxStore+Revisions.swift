import DropboxWire
import Foundation
import Synchronization

// Revisions, restores, copies and the account over Dropbox v2: `list_revisions`, `restore`,
// `copy_v2` and `users/get_current_account`. Downloads of a revision are plain downloads of the
// path `rev:<rev>` (RemoteStore+Live.swift).

extension DropboxStore {
    /// `deletedBy` comes only from a club server (``Endpoint/clubListRevisions``); Dropbox's
    /// answer names no one.
    public func revisions(_ path: String, limit: Int, before: String?) async throws(RemoteError) -> RemoteRevisions {
        var argument: [String: Any] = ["path": path, "mode": "path", "limit": max(1, min(100, limit))]
        if let before { argument["before_rev"] = before }
        let answer = try await listRevisions(argument, path: path)
        let parent = Self.parent(of: path)
        var entries: [RemoteEntry] = []
        entries.reserveCapacity(answer.entries.count)
        for revision in answer.entries {
            let entry = try RemoteEntry(revision)
            // A revision of a file lives where the file does: in its folder, never elsewhere.
            try ListingGuard.check(entry, in: parent)
            entries.append(entry)
        }
        if entries.count > 100 {
            throw .server(status: 0, detail: "the server answered \(entries.count) revisions of \(path) where at most 100 were asked for; refused")
        }
        // Only for revisions listed, at most a few names each (a hostile server's map is cut).
        let listed = Set(entries.compactMap(\.rev))
        let writtenWith = answer.writtenWith.filter { listed.contains($0.key) }.mapValues { Array($0.prefix(64)) }
        return RemoteRevisions(entries: entries, isDeleted: answer.isDeleted, serverDeleted: answer.serverDeleted,
                               deletedBy: answer.isDeleted ? answer.deletedBy : nil, hasMore: answer.hasMore, writtenWith: writtenWith)
    }

    /// `argument` (Dropbox's `ListRevisionsArg`, exactly: no field of byteclub's own goes on a
    /// Dropbox route) asked on `/2/byteclub/files/list_revisions` of a club server, else on
    /// Dropbox's `files/list_revisions`. A server that answers 404 there (a byteclub from before
    /// the route) is asked on Dropbox's route, now and from then on.
    private func listRevisions(_ argument: [String: Any], path: String) async throws(RemoteError) -> ListRevisionsResult {
        try await clubRPC(.clubListRevisions, else: .listRevisions, refused: clubRevisionsRefused, argument, path: path, decoding: ListRevisionsResult.self)
    }

    /// An idempotent call asked on the club server's own route `club`, which answers Dropbox's
    /// route `dropbox`'s fields and more, else on `dropbox`: never `club` of Dropbox
    /// (``speaksClub``), and not again once a server answered 404 there (a byteclub from before
    /// the route), which `refused` then remembers.
    func clubRPC<T: Decodable & Sendable>(_ club: Endpoint, else dropbox: Endpoint, refused: borrowing Mutex<Bool>, _ argument: [String: Any], path: String,
                                          decoding: T.Type) async throws(RemoteError) -> T {
        if speaksClub, !refused.withLock({ $0 }) {
            do {
                return try await rpc(club, argument, path: path, idempotent: true, decoding: T.self)
            } catch .server(404, _) {
                refused.withLock { $0 = true }
            }
        }
        return try await rpc(dropbox, argument, path: path, idempotent: true, decoding: T.self)
    }

    /// An unknown rev (`invalid_revision`, or a rev of another file) is `.notFound("rev R of PATH")`.
    public func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry {
        do {
            let file = try await rpc(.restore, ["path": path, "rev": rev], path: path, idempotent: false, decoding: FileMetadata.self)
            return try RemoteEntry(file)
        } catch .server(409, let summary) where summary.hasPrefix("invalid_revision") {
            throw .notFound("rev \(rev) of \(path)")
        }
    }

    /// A missing source is `.notFound(from)`; a taken destination `.conflict(to)`.
    public func copy(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        do {
            return try RemoteEntry(try await rpc(.copy, ["from_path": from, "to_path": to, "autorename": autorename], path: to,
                                                 idempotent: false, decoding: MetadataResult.self).metadata)
        } catch .notFound {
            // `from_lookup/not_found`: the destination's folders are made as needed, so only the
            // source can be missing.
            throw .notFound(from)
        }
    }

    public func currentAccount() async throws(RemoteError) -> RemoteAccount {
        // Dropbox's calls without an argument take the JSON `null` as their body.
        let answer = try await rpc(.currentAccount, body: Data("null".utf8), path: "", idempotent: true, decoding: Account.self)
        return RemoteAccount(id: answer.accountID, displayName: answer.name.displayName, email: answer.email)
    }

    public func account(id: String) async throws(RemoteError) -> RemoteAccount {
        let answer = try await rpc(.account, ["account_id": id], path: "", idempotent: true, decoding: Account.self)
        return RemoteAccount(id: answer.accountID, displayName: answer.name.displayName, email: answer.email)
    }

    /// "/a/b" of "/a/b/c.txt"; "" of "/c.txt".
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }
}
