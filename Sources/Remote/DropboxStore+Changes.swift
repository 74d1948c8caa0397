import DropboxWire
import Foundation
import Synchronization
import Transfer

// Change cursors, longpolls and change pages over Dropbox v2: `list_folder/get_latest_cursor`,
// `list_folder/longpoll` (on the notify host, without a token) and `list_folder/continue`.

extension DropboxStore {
    /// Dropbox adds up to 90 s of jitter to a longpoll's timeout, so a client must wait that much
    /// longer before it calls the connection dead.
    public static let longpollJitter: TimeInterval = 90

    /// The idle timeout of a longpoll asking for `timeout` seconds: the server may say nothing
    /// at all for `timeout` plus its jitter.
    public static func longpollIdleTimeout(_ timeout: TimeInterval) -> TimeInterval {
        clampedLongpollTimeout(timeout) + longpollJitter
    }

    /// Dropbox takes 30–480 seconds and refuses anything else.
    static func clampedLongpollTimeout(_ timeout: TimeInterval) -> TimeInterval {
        min(480, max(30, timeout.rounded()))
    }

    public func latestCursor(_ folder: String, recursive: Bool) async throws(RemoteError) -> RemoteCursor {
        let answer = try await rpc(.getLatestCursor, ["path": folder, "recursive": recursive],
                                   path: folder, idempotent: true, decoding: ListFolderGetLatestCursorResult.self)
        return RemoteCursor(folder: folder, recursive: recursive, value: answer.cursor)
    }

    /// Waits for a change under the cursor's folder (see ``RemoteStore/longpoll(_:timeout:)``).
    ///
    /// The request goes to Dropbox's notify host with no Authorization header (Dropbox serves it
    /// without auth, and a token has no business travelling to a host that does not need it;
    /// a club server, whose one host has the token anyway, gets it),
    /// over a session whose idle timeout is `timeout` + 90 s. A `backoff` the server asked for
    /// is waited out before the next longpoll starts, whoever calls it. Not retried: a failure
    /// goes straight to the caller, which decides how loudly to wait (only a 429 is retried).
    public func longpoll(_ cursor: RemoteCursor, timeout: TimeInterval) async throws(RemoteError) -> LongpollAnswer {
        try await longpolls.waitOutBackoff()
        let seconds = Self.clampedLongpollTimeout(timeout)
        let body: Data
        do { body = try JSONSerialization.data(withJSONObject: ["cursor": cursor.value, "timeout": Int(seconds)]) } catch {
            throw .local("cannot encode the request")
        }
        let session = longpolls.session(idleTimeout: Self.longpollIdleTimeout(seconds), base: configuration)
        // A club server answers longpolls on its own host, which has the token anyway: sent
        // there, it ties the longpoll to its member, so removing the member ends it at once.
        let request = endpoints.notify == endpoints.rpc
            ? try await self.request(.longpoll, json: true)
            : Request(url: url(for: .longpoll), method: "POST",
                      headers: ["Content-Type": "application/json"])
        let answer = try await withRetries(idempotent: false) { () async throws(RemoteError) -> ListFolderLongpollResult in
            let reply = await self.exchange(request, body: .data(body), on: session)
            try self.check(reply, path: cursor.folder)
            return try Self.decode(ListFolderLongpollResult.self, from: reply.body)
        }
        let backoff = answer.backoff.map { TimeInterval(max(0, min($0, 3600))) }
        if let backoff { longpolls.setBackoff(backoff) }
        return LongpollAnswer(changes: answer.changes, backoff: backoff)
    }

    /// Every page of changes after `cursor`, each entry checked as a listing's are: a path outside
    /// the cursor's folder refuses the whole answer, and pages that never end stop at
    /// ``listingLimits``. A `reset` throws `.cursorReset`.
    public func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges {
        var changes: [RemoteChange] = []
        var paging = ListingGuard(folder: cursor.folder, limits: listingLimits)
        var current = cursor.value
        while true {
            let page = try await rpc(.listFolderContinue, ["cursor": current], path: cursor.folder, idempotent: true,
                                     decoding: ListFolderResult.self)
            try paging.page(count: page.entries.count, next: page.hasMore ? page.cursor : nil)
            changes.reserveCapacity(changes.count + page.entries.count)
            for item in page.entries { changes.append(try Self.change(item, in: cursor.folder)) }
            current = page.cursor
            guard page.hasMore else { break }
        }
        var next = cursor
        next.value = current
        return RemoteChanges(changes: changes, cursor: next)
    }

    /// Every entry under a folder, in its subfolders too when `recursive`, started over on a
    /// `reset`. Real Dropbox names the folder itself first in a recursive listing; it is left out.
    public func listAll(_ folder: String, recursive: Bool, partial: (@Sendable (ListingProgress) -> Void)? = nil) async throws(RemoteError) -> [RemoteEntry] {
        guard recursive else { return try await list(folder) }
        var pages = ListingArray()
        try await listAll(folder, into: &pages, partial: partial)
        return pages.entries
    }

    /// Every entry under `folder` and its subfolders, page by page into `pages`, started over
    /// (``ListingPages/restart()``) on a `reset`.
    public func listAll(_ folder: String, into pages: inout some ListingPages,
                        partial: (@Sendable (ListingProgress) -> Void)? = nil) async throws(RemoteError) {
        var restarts = 0
        while true {
            do {
                return try await listEverything(folder, into: &pages, partial: partial)
            } catch .cursorReset where restarts < 5 {
                restarts += 1
                pages.restart()
            }
        }
    }

    private func listEverything(_ folder: String, into pages: inout some ListingPages,
                                partial: (@Sendable (ListingProgress) -> Void)?) async throws(RemoteError) {
        var count = 0
        var reported: ContinuousClock.Instant?
        let folderLower = folder.lowercased()
        try await forEachPipelinedPage(folder, recursive: true, limits: listingLimits) { (page: ListFolderResult) throws(RemoteError) in
            var entries: [RemoteEntry] = []
            entries.reserveCapacity(page.entries.count)
            for item in page.entries {
                if case .updated(let entry) = try Self.change(item, in: folder), entry.pathLower != folderLower { entries.append(entry) }
            }
            count += entries.count
            if page.hasMore, let partial, reported.map({ ContinuousClock.now - $0 >= .seconds(1) }) ?? true {
                partial(ListingProgress(firstPage: reported == nil ? entries : nil, count: count))
                reported = .now
            }
            pages.take(entries)
        }
    }

    /// A change page's entry. The folder itself may appear (a recursive cursor's folder was
    /// deleted or made again); anything else must lie inside it.
    static func change(_ metadata: Metadata, in folder: String) throws(RemoteError) -> RemoteChange {
        if case .deleted(let deleted) = metadata {
            guard let display = deleted.pathDisplay ?? deleted.pathLower else {
                throw .server(status: 0, detail: "the server sent a deletion without a path")
            }
            let lower = deleted.pathLower ?? display.lowercased()
            try ListingGuard.check(path: display, pathLower: lower, in: folder, allowingFolderItself: true)
            return .deleted(name: deleted.name, path: display, pathLower: lower)
        }
        let entry = try RemoteEntry(metadata)
        try ListingGuard.check(path: entry.path, pathLower: entry.pathLower, in: folder, allowingFolderItself: true)
        return .updated(entry)
    }
}

/// A store's longpolls: their own session (whose idle timeout outlasts the server's silence)
/// and the backoff the server last asked for.
///
/// The session is kept while the timeout asked for stays the same, so a watch loop reuses one
/// connection; a different timeout replaces it, letting the old one's longpoll finish.
final class LongpollState: Sendable {
    private struct State {
        var session: Session?
        var idleTimeout: TimeInterval = 0
        /// No longpoll starts before this.
        var notBefore: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    func session(idleTimeout: TimeInterval, base: SessionConfiguration) -> Session {
        let (session, old) = state.withLock { state -> (Session, Session?) in
            if let session = state.session, state.idleTimeout == idleTimeout { return (session, nil) }
            var configuration = base
            configuration.timeoutIntervalForRequest = idleTimeout
            let session = Session(configuration: configuration, delegateQueue: DispatchQueue(label: "byteclub.remote.longpoll"))
            let old = state.session
            state.session = session
            state.idleTimeout = idleTimeout
            return (session, old)
        }
        old?.finishTasksAndInvalidate()
        return session
    }

    func setBackoff(_ seconds: TimeInterval) {
        let until = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        state.withLock { $0.notBefore = max($0.notBefore ?? until, until) }
    }

    /// Sleeps until the last backoff has passed; throws `.cancelled` if the task is cancelled.
    func waitOutBackoff() async throws(RemoteError) {
        guard let until = state.withLock({ $0.notBefore }), until > .now else { return }
        do { try await Task.sleep(until: until, clock: .continuous) } catch { throw .cancelled }
    }

    func invalidate() {
        state.withLock { $0.session }?.invalidateAndCancel()
    }
}
