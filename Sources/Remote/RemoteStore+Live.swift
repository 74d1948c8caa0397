import Foundation

// The live club's vocabulary: change cursors, changes, revisions and accounts, whatever the
// backend. DropboxStore speaks them over Dropbox v2 (DropboxStore+Changes.swift,
// DropboxStore+Revisions.swift); other stores inherit the defaults below, which say plainly that
// they cannot.

/// A position in a folder's history: changes after it come from ``RemoteStore/listChanges(since:)``.
///
/// The server's cursor is opaque; the folder it lists travels with it, so every change page can
/// be checked against the folder that was asked for. Codable, so a client can keep it between runs.
public struct RemoteCursor: Sendable, Hashable, Codable {
    /// The folder the cursor lists ("" is the root).
    public var folder: String
    /// Whether changes in subfolders count.
    public var recursive: Bool
    /// The server's cursor, as it sent it.
    public var value: String

    public init(folder: String, recursive: Bool, value: String) {
        self.folder = folder
        self.recursive = recursive
        self.value = value
    }
}

/// One change under a cursor's folder.
public enum RemoteChange: Sendable, Hashable {
    /// A file or folder that is new or changed; the entry is its present state.
    case updated(RemoteEntry)
    /// Something that is gone: the server does not say whether it was a file or a folder.
    case deleted(name: String, path: String, pathLower: String)

    /// As displayed, e.g. "/byteclub/a.txt".
    public var path: String {
        switch self {
        case .updated(let entry): return entry.path
        case .deleted(_, let path, _): return path
        }
    }

    /// For comparisons: paths are case-insensitive.
    public var pathLower: String {
        switch self {
        case .updated(let entry): return entry.pathLower
        case .deleted(_, _, let pathLower): return pathLower
        }
    }
}

/// What changed since a cursor, in the server's order, and the cursor to ask from next.
public struct RemoteChanges: Sendable, Hashable {
    public var changes: [RemoteChange]
    public var cursor: RemoteCursor

    public init(changes: [RemoteChange], cursor: RemoteCursor) {
        self.changes = changes
        self.cursor = cursor
    }
}

/// A longpoll's answer: whether anything changed, and how long to wait before the next one.
public struct LongpollAnswer: Sendable, Hashable {
    public var changes: Bool
    /// Seconds the server asked clients to wait before polling again (nil: no wait).
    public var backoff: TimeInterval?

    public init(changes: Bool, backoff: TimeInterval? = nil) {
        self.changes = changes
        self.backoff = backoff
    }
}

/// A file's earlier versions, newest first.
public struct RemoteRevisions: Sendable, Hashable {
    /// Each revision as the file was then (its `rev`, `size`, `modified`, `modifiedBy`).
    public var entries: [RemoteEntry]
    /// The file is deleted now; its revisions can still be restored.
    public var isDeleted: Bool
    /// When it was deleted, if it is.
    public var serverDeleted: Date?
    /// Who deleted it, as an account id (``RemoteAccount/id``), where the server says (a club
    /// server does; Dropbox does not).
    public var deletedBy: String?
    /// Older revisions exist: ask again with `before:` the last one's rev.
    public var hasMore: Bool
    /// Who else wrote in a revision, live, beside its author (``RemoteEntry/modifiedBy``):
    /// account ids by rev, for the revisions that have any (a club server says; Dropbox and
    /// WebDAV do not).
    public var writtenWith: [String: [String]]

    public init(entries: [RemoteEntry], isDeleted: Bool, serverDeleted: Date? = nil, deletedBy: String? = nil, hasMore: Bool = false,
                writtenWith: [String: [String]] = [:]) {
        self.entries = entries
        self.isDeleted = isDeleted
        self.serverDeleted = serverDeleted
        self.deletedBy = deletedBy
        self.hasMore = hasMore
        self.writtenWith = writtenWith
    }

    /// The author of the revision `entry` and whoever wrote in it with them, as account ids.
    public func writers(of entry: RemoteEntry) -> [String] {
        let others = entry.rev.flatMap { writtenWith[$0] } ?? []
        return (entry.modifiedBy.map { [$0] } ?? []) + others.filter { $0 != entry.modifiedBy }
    }
}

/// The account a store's token belongs to.
public struct RemoteAccount: Sendable, Hashable, Codable {
    /// As revisions name their author (``RemoteEntry/modifiedBy``).
    public var id: String
    public var displayName: String
    public var email: String?

    public init(id: String, displayName: String, email: String? = nil) {
        self.id = id
        self.displayName = displayName
        self.email = email
    }
}

extension RemoteStore {
    public func latestCursor(_ folder: String, recursive: Bool) async throws(RemoteError) -> RemoteCursor {
        throw .notSupported("change cursors")
    }

    public func longpoll(_ cursor: RemoteCursor, timeout: TimeInterval) async throws(RemoteError) -> LongpollAnswer {
        throw .notSupported("waiting for changes")
    }

    public func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges {
        throw .notSupported("listing changes")
    }

    public func revisions(_ path: String, limit: Int, before: String?) async throws(RemoteError) -> RemoteRevisions {
        throw .notSupported("revisions")
    }

    public func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry {
        throw .notSupported("restoring revisions")
    }

    public func copy(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        throw .notSupported("copying")
    }

    public func currentAccount() async throws(RemoteError) -> RemoteAccount {
        throw .notSupported("accounts")
    }

    public func account(id: String) async throws(RemoteError) -> RemoteAccount {
        throw .notSupported("accounts")
    }

    /// The newest `limit` revisions of a file.
    public func revisions(_ path: String, limit: Int = 10) async throws(RemoteError) -> RemoteRevisions {
        try await revisions(path, limit: limit, before: nil)
    }

    /// Downloads one revision of a file (Dropbox's `rev:<rev>` path) to `destination`.
    public func download(rev: String, to destination: URL, progress: ProgressHandler? = nil) async throws(RemoteError) -> RemoteEntry {
        try await download("rev:" + rev, to: destination, resumeData: nil, progress: progress, onResumeData: nil)
    }

    /// One revision's bytes (a note's), through ``download(rev:to:progress:)``.
    public func read(rev: String) async throws(RemoteError) -> (data: Data, entry: RemoteEntry) {
        try await read("rev:" + rev)
    }
}
