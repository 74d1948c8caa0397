import DropboxWire
import Foundation
import ServiceLifecycle

/// Listings, deltas and longpolls: `list_folder`, `list_folder/continue`,
/// `list_folder/get_latest_cursor` and `list_folder/longpoll`, over the change journal.
///
/// A first listing pages through the folder by key; its last page hands out a cursor at the
/// journal position taken before the listing began, so nothing that changed meanwhile is missed.
/// From then on `continue` answers what changed since the cursor (see `ListingDelta`).
extension ClubAPI {
    /// The folder and options a listing's arguments name (list_folder and get_latest_cursor).
    private func listArguments(_ arguments: Arguments) throws(APIError) -> (DropboxPath, Bool, Bool, Int) {
        let folder = try DropboxPath.checked(try arguments.string("path"))
        let recursive = try arguments.bool("recursive", default: false)
        let includeDeleted = try arguments.bool("include_deleted", default: false)
        let limit = try arguments.int("limit", default: 2000, range: 1...2000) ?? 2000
        return (folder, recursive, includeDeleted, limit)
    }

    func listFolder(_ arguments: Arguments) async throws -> Any {
        let (folder, recursive, includeDeleted, limit) = try listArguments(arguments)
        // Taken before the folder is read: whatever changes while the pages go out is in the
        // journal after this, and comes in the first delta.
        let head = store.journal.position.head
        return try await listingPage(ListCursor(path: folder.display, recursive: recursive, includeDeleted: includeDeleted, limit: limit,
                                                seq: head, listingAfter: ""))
    }

    func listFolderContinue(_ arguments: Arguments) async throws -> Any {
        let cursor = try decodeListCursor(try arguments.string("cursor"), what: "list_folder/continue")
        return cursor.listingAfter != nil ? try await listingPage(cursor) : try await deltaPage(cursor)
    }

    func getLatestCursor(_ arguments: Arguments) async throws -> Any {
        let (folder, recursive, includeDeleted, limit) = try listArguments(arguments)
        let head = store.journal.position.head
        if !folder.isRoot, case .file = try await store.metadata(folder) { throw APIError.notFolder }
        let cursor = ListCursor(path: folder.display, recursive: recursive, includeDeleted: includeDeleted, limit: limit, seq: head)
        var text = "{\"cursor\":"
        DropboxJSON.appendQuoted(cursor.encoded(signedBy: store.journal), to: &text)
        return RawJSON(text: text + "}")
    }

    /// Waits (holding no thread) until something changes under the cursor's folder, or for
    /// `timeout` seconds. Needs no token, like Dropbox's notify host.
    func longpoll(_ arguments: Arguments) async throws -> Any {
        let what = "list_folder/longpoll"
        let text = try arguments.string("cursor")
        let timeout = try arguments.int("timeout", default: 30, range: 30...480) ?? 30
        let cursor = try decodeListCursor(text, what: what)
        // A cursor still paging has entries waiting for it already.
        guard cursor.listingAfter == nil, cursor.through == nil else { return ["changes": true] }
        let folder = try DropboxPath.checked(cursor.path)
        let journal = store.journal
        let outcome: ChangeJournal.Outcome
        switch journal.register(after: cursor.seq, folder: folder.lower, recursive: cursor.recursive, cap: configuration.maxLongpolls) {
        case .now(let now):
            outcome = now
        case .waiting(let id):
            let wait = configuration.longpollTimeUnit * timeout
            let timer = Task {
                try? await Task.sleep(for: wait)
                journal.resolve(id, .timedOut)
            }
            defer { timer.cancel() }
            // A server shutting down answers its longpolls at once instead of waiting them out.
            outcome = await withGracefulShutdownHandler {
                await journal.wait(id)
            } onGracefulShutdown: {
                journal.resolve(id, .timedOut)
            }
        }
        switch outcome {
        case .changed:
            // In a burst of batch commits (another member's `put -r`) the watcher is asked to
            // come back in a second: it takes the burst a page a second, not a longpoll, a page
            // and the reads after it for each file committed (which slowed the `put` by 40 %).
            let answer: [String: Any] = store.batchCommits.isBusy ? ["changes": true, "backoff": BatchCommits.backoff] : ["changes": true]
            return answer
        case .timedOut: return ["changes": false]
        case .reset: throw APIError.endpoint([.reset])
        case .busy: return ["changes": false, "backoff": configuration.longpollBackoff]
        }
    }

    // MARK: - Pages

    /// A page of the first listing: entries after the cursor's key, then (on the last page) a
    /// cursor into the journal.
    private func listingPage(_ cursor: ListCursor) async throws -> Any {
        let folder = try DropboxPath.checked(cursor.path)
        // A recursive listing's later pages reuse its first page's walk (a file changed in place
        // below the folder leaves the folder's stamp as it was, so the first page walks afresh).
        let page = try await store.listPage(folder, recursive: cursor.recursive, after: cursor.listingAfter, limit: cursor.limit)
        var next = cursor
        next.listingAfter = page.hasMore ? page.last : nil
        return pageJSON(page.entries.lazy.map { $0 }, cursor: next, hasMore: page.hasMore)
    }

    /// A page of a delta: the changes after the cursor's position, up to the head when the delta
    /// began (kept in the cursor while it pages).
    private func deltaPage(_ cursor: ListCursor) async throws -> Any {
        let journal = store.journal
        let through = cursor.through ?? journal.position.head
        guard let records = journal.records(after: cursor.seq, through: through) else { throw APIError.endpoint([.reset]) }
        let folder = try DropboxPath.checked(cursor.path)
        let entries = records.isEmpty ? [] : await store.delta(of: folder, recursive: cursor.recursive, records: records)
        let remaining = entries.drop { entry in
            guard let after = cursor.after else { return false }
            return entry.pathLower != after ? entry.pathLower < after : entry.rank <= cursor.afterRank ?? 1
        }
        let page = remaining.prefix(cursor.limit)
        var next = cursor
        let hasMore = page.count < remaining.count
        if hasMore, let last = page.last {
            next.through = through
            next.after = last.pathLower
            next.afterRank = last.rank
        } else {
            next.seq = through
            next.through = nil
            next.after = nil
            next.afterRank = nil
        }
        return pageJSON(page.lazy.map(\.metadata), cursor: next, hasMore: hasMore)
    }

    private func pageJSON(_ entries: some Sequence<Metadata>, cursor: ListCursor, hasMore: Bool) -> RawJSON {
        var text = "{\"cursor\":"
        DropboxJSON.appendQuoted(cursor.encoded(signedBy: store.journal), to: &text)
        text += ",\"entries\":["
        for (index, entry) in entries.enumerated() {
            if index > 0 { text += "," }
            entry.appendJSON(to: &text)
        }
        text += "],\"has_more\":" + (hasMore ? "true" : "false") + "}"
        return RawJSON(text: text)
    }

    /// A cursor of ours, or a 400 (not a cursor) or a 409 `reset` (another server's or journal's).
    private func decodeListCursor(_ text: String, what: String) throws(APIError) -> ListCursor {
        switch Result(catching: { () throws(ListCursor.Refusal) in try ListCursor.decode(text, journal: store.journal) }) {
        case .success(let cursor): return cursor
        case .failure(.malformed): throw .badRequest("\(what): invalid 'cursor' parameter")
        case .failure(.foreign): throw .endpoint([.reset])
        }
    }
}
