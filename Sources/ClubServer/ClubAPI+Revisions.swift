import DropboxWire
import Foundation

/// `list_revisions`, `restore` and `copy_v2` (the histories live in FolderStore+Revisions), and
/// byteclub's own `/2/byteclub/files/list_revisions`, which also says who deleted a file.
extension ClubAPI {
    func revisionEndpoints() -> [(String, @Sendable (Arguments) async throws -> Any)] {
        [
            (Endpoint.listRevisions.route, { arguments in try await self.listRevisions(arguments, namingDeleter: false) }),
            (Endpoint.clubListRevisions.route, { arguments in try await self.listRevisions(arguments, namingDeleter: true) }),
            (Endpoint.restore.route, restore),
            (Endpoint.copy.route, copy),
        ]
    }

    /// Dropbox's answer exactly on Dropbox's route (`include_deleted_by`, which older byteclubs
    /// sent there, is ignored as any unknown field is); `namingDeleter` (the club's own route)
    /// adds `deleted_by` for a deleted file whose deleter is known, and `written_with`: for
    /// each revision that others wrote in live beside its author, their account ids.
    private func listRevisions(_ arguments: Arguments, namingDeleter: Bool) async throws -> Any {
        // `mode` is a union: decoded as the wire type, in either form.
        let argument = try arguments.decode(ListRevisionsArg.self)
        guard (1...100).contains(argument.limit) else { throw APIError.badRequest("list_revisions: 'limit' must be between 1 and 100") }
        let (target, entries, with, hasMore) = try await store.listRevisions(argument.path, limit: argument.limit, beforeRev: argument.beforeRev)
        // Written by hand like listings, keys sorted.
        var text = "{\"entries\":["
        for (index, entry) in entries.enumerated() {
            if index > 0 { text += "," }
            Metadata.file(entry).appendJSON(to: &text)
        }
        text += "],\"has_more\":" + (hasMore ? "true" : "false")
        text += ",\"is_deleted\":" + (target.live == nil ? "true" : "false")
        if target.live == nil, let tombstone = target.tombstone {
            text += ",\"server_deleted\":\"" + DropboxTimestamp.format(Date(timeIntervalSince1970: TimeInterval(tombstone.deleted))) + "\""
            // Not Dropbox's (it names no one): the member who deleted it, as `modified_by` names
            // who made a revision. Only on the club's own route: Dropbox's SDKs refuse a field
            // their spec does not have, and a Dropbox route answers as Dropbox does.
            if namingDeleter, let by = tombstone.by { text += ",\"deleted_by\":\"" + ClubMember.accountID(of: by) + "\"" }
        }
        if namingDeleter, !with.isEmpty {
            text += ",\"written_with\":{" + with.sorted { $0.key < $1.key }.map { rev, members in
                DropboxJSON.quoted(rev) + ":[" + members.map { DropboxJSON.quoted(ClubMember.accountID(of: $0)) }.joined(separator: ",") + "]"
            }.joined(separator: ",") + "}"
        }
        return RawJSON(text: text + "}")
    }

    private func restore(_ arguments: Arguments) async throws -> Any {
        let argument = try arguments.decode(RestoreArg.self)
        return RawJSON(text: try await store.restore(argument.path, rev: argument.rev).jsonText)
    }

    /// Checks and commits on the folder's actor; the bytes are copied between the two, off it
    /// and off the cooperative pool (``CopyPlan``), so a big copy holds up no other commit.
    private func copy(_ arguments: Arguments) async throws -> Any {
        let (from, to, autorename) = try relocation(arguments)
        let plan = try await store.planCopy(from: from, to: to, autorename: autorename)
        let limit = configuration.maxFileBytes
        try await FileCopier.offPool { cancel in plan.copyBytes(streamLimit: limit, cancel: cancel) }.get()
        return JSON.metadataResult(try await store.finishCopy(plan))
    }

    /// What `download` serves: a path, `rev:<rev>`, or a path with the (deprecated) `rev` field.
    func openForDownload(_ arguments: Arguments) async throws -> OpenedFile {
        let text = try arguments.string("path")
        if text.hasPrefix("rev:") {
            let rev = String(text.dropFirst(4))
            guard RevisionLog.isWellFormedRev(rev) else { throw APIError.malformedPath() }
            return try await store.openRevision(rev, path: nil)
        }
        if let rev = try arguments.optionalString("rev") {
            guard RevisionLog.isWellFormedRev(rev) else { throw APIError.malformedPath() }
            return try await store.openRevision(rev, path: text)
        }
        let target = try DropboxPath.checked(text)
        guard !target.isRoot else { throw APIError.endpoint([.path, .notFile]) }
        return try await store.openForReading(target)
    }
}
