import Foundation

/// One file or folder in a club folder, whatever the backend.
public struct RemoteEntry: Sendable, Equatable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable { case file, folder }

    public var kind: Kind
    public var name: String
    /// As displayed, e.g. "/byteclub/Welcome.txt".
    public var path: String
    /// For comparisons: paths are case-insensitive.
    public var pathLower: String
    public var id: String?
    /// Changes on every write; nil for folders.
    public var rev: String?
    public var size: Int64
    /// The server's modification time (nil for folders).
    public var modified: Date?
    public var contentHash: String?
    /// Who made this revision, as the server names them (Dropbox's `sharing_info.modified_by`,
    /// an account id); nil when the server does not say.
    public var modifiedBy: String?
    /// The caller may not change this file: a club server says so to a reader
    /// (`sharing_info.read_only`); nil when the server does not say.
    public var readOnly: Bool?

    public init(kind: Kind, name: String, path: String, pathLower: String? = nil, id: String? = nil, rev: String? = nil,
                size: Int64 = 0, modified: Date? = nil, contentHash: String? = nil, modifiedBy: String? = nil) {
        self.kind = kind
        self.name = name
        self.path = path
        self.pathLower = pathLower ?? path.lowercased()
        self.id = id
        self.rev = rev
        self.size = size
        self.modified = modified
        self.contentHash = contentHash
        self.modifiedBy = modifiedBy
    }
}

/// Progress of a transfer: bytes done and expected (-1 if unknown). Called on no particular
/// thread; hop to the UI queue yourself.
public typealias ProgressHandler = @Sendable (_ done: Int64, _ expected: Int64) -> Void

/// A club folder: the embedded server, a club server on the LAN, real Dropbox, later WebDAV.
///
/// Paths are Dropbox-style: "" is the root, otherwise "/a/b". Every method is cancellable
/// through Swift task cancellation and throws only `RemoteError`.
public protocol RemoteStore: Sendable {
    /// For the status bar: "embedded", "http://host:port" or "dropbox".
    var displayName: String { get }
    /// Whether the server keeps what is deleted or overwritten, so a revision can be restored
    /// (a club server and Dropbox do; WebDAV does not). What deletes a folder says so when it
    /// does not: the files go for good. A store that does not say keeps nothing.
    var keepsHistory: Bool { get }
    /// Whether a file moved keeps its id (``RemoteEntry/id``): a club server's and Dropbox's
    /// do; an encrypted club moves a note as a copy and a delete, so the id after a move is a
    /// new one. What asks "is this the note that moved" by its id asks only where it holds.
    var keepsIDsThroughMoves: Bool { get }
    /// Whether a change cursor costs a look at the whole folder (WebDAV's: no change journal),
    /// so a first load lists the folder before it takes one, and the cursor comes from that
    /// look (LiveUpdates): the first frame then shows the first entries while the rest arrive.
    var cursorIsAWholeListing: Bool { get }
    /// Whether a path names its file in any case (Dropbox's rule, and the club server's): a
    /// WebDAV server's names are its disk's, `Plan.md` and `plan.md` two files.
    var namesIgnoreCase: Bool { get }

    /// A small file's bytes (a note) and what was read. A requirement, so that a backend can
    /// read one without a temporary file even through `any RemoteStore` (the default downloads).
    func read(_ path: String) async throws(RemoteError) -> (data: Data, entry: RemoteEntry)

    /// One page of a folder's entries, and a cursor for the next page (nil when done).
    func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?)
    /// Every entry of a folder. A requirement, so that a backend can restart a listing that its
    /// server invalidated mid-way, even when called through `any RemoteStore`.
    func list(_ folder: String) async throws(RemoteError) -> [RemoteEntry]
    /// Every entry of a folder, handed to `each` a page at a time as the pages arrive and kept
    /// nowhere, so a listing costs the memory of one page however long it runs: the next page
    /// waits for `each` (a slow printer holds up the listing, not a growing queue of pages).
    /// A requirement, so that a backend applies its own ``ListingLimits`` even through
    /// `any RemoteStore`.
    func forEachPage(of folder: String, _ each: (_ page: [RemoteEntry]) async -> Void) async throws(RemoteError)
    func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry
    /// Files under `folder` (recursively) with one of `extensions`.
    func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry]
    /// Downloads to `destination` (replaced atomically). Resumes from `resumeData` if given;
    /// on cancel, hands resume data to `onResumeData` before throwing `.cancelled`.
    func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                  onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry
    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry
    func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry
    func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data
    func delete(_ path: String) async throws(RemoteError) -> RemoteEntry
    func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry
    func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry

    // The live club (RemoteStore+Live.swift has the types, and defaults that throw
    // `.notSupported` for stores that cannot do these).

    /// A cursor at the folder's present state, without listing it (`get_latest_cursor`).
    func latestCursor(_ folder: String, recursive: Bool) async throws(RemoteError) -> RemoteCursor
    /// Waits until something under the cursor's folder changes, or about `timeout` seconds pass
    /// (30–480). Needs no token. A `backoff` in the answer is also kept by the store: the next
    /// longpoll waits it out first.
    func longpoll(_ cursor: RemoteCursor, timeout: TimeInterval) async throws(RemoteError) -> LongpollAnswer
    /// What changed since `cursor`, every page, and the cursor after it. Throws `.cursorReset`
    /// when the server can no longer say: list again.
    func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges
    /// A file's revisions, newest first, at most `limit` (1–100), older than `before` if given.
    func revisions(_ path: String, limit: Int, before: String?) async throws(RemoteError) -> RemoteRevisions
    /// Makes `rev` the file's newest revision again; answers that new revision.
    func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry
    func copy(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry
    /// Who the token belongs to.
    func currentAccount() async throws(RemoteError) -> RemoteAccount
    /// Another account, by the id a revision names its author with (``RemoteEntry/modifiedBy``).
    func account(id: String) async throws(RemoteError) -> RemoteAccount
}

extension RemoteStore {
    public var keepsHistory: Bool { false }
    public var keepsIDsThroughMoves: Bool { true }
    public var cursorIsAWholeListing: Bool { false }
    public var namesIgnoreCase: Bool { true }

    public func list(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        try await listAllPages(folder)
    }

    /// Every entry of a folder, following cursors to the end, within the standard limits.
    public func listAllPages(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        try await listAllPages(folder, limits: .standard)
    }

    /// Every entry of a folder, following cursors to the end; a listing that would never end
    /// (past `limits`, or a cursor seen before) stops with an error.
    public func listAllPages(_ folder: String, limits: ListingLimits) async throws(RemoteError) -> [RemoteEntry] {
        var entries: [RemoteEntry] = []
        try await forEachPage(of: folder, limits: limits) { entries += $0 }
        return entries
    }

    public func forEachPage(of folder: String, _ each: (_ page: [RemoteEntry]) async -> Void) async throws(RemoteError) {
        try await forEachPage(of: folder, limits: .standard, each)
    }

    /// Follows a listing's cursors to the end, handing each page to `each` once it has passed
    /// the guard: a page that takes the listing past `limits` (or repeats a cursor) is refused
    /// and never handed over, so what `each` saw is exactly what the limits allow.
    public func forEachPage(of folder: String, limits: ListingLimits,
                            _ each: (_ page: [RemoteEntry]) async -> Void) async throws(RemoteError) {
        var paging = ListingGuard(folder: folder, limits: limits)
        var cursor: String? = nil
        repeat {
            let page = try await listPage(folder, cursor: cursor, limit: 2000)
            try paging.page(count: page.entries.count, next: page.next)
            await each(page.entries)
            cursor = page.next
        } while cursor != nil
    }
}

extension RemoteStore {
    /// A small file's bytes (a note), through ``download(_:to:resumeData:progress:onResumeData:)``
    /// into a private temporary file that is removed afterwards.
    public func read(_ path: String) async throws(RemoteError) -> (data: Data, entry: RemoteEntry) {
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("byteclub-read-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let entry = try await download(path, to: temporary, resumeData: nil, progress: nil, onResumeData: nil)
        do {
            return (try Data(contentsOf: temporary), entry)
        } catch {
            throw .local("cannot read the downloaded \(entry.name): \(error.localizedDescription)")
        }
    }
}

/// A store whose reads may answer with less than was asked and say why: an encrypted club that
/// refused a note's newest version (written by a member after their removal, say) serves the
/// last version that opens. The shells show what it says, after the read.
public protocol NoticingStore: Sendable {
    /// What reads answered with less than was asked since the last call, a line each for
    /// people, oldest first; taking them clears them.
    func takeNotices() -> [String]
}
