import Foundation

/// Who last changed a file in a shared folder, as Dropbox puts it in file metadata:
/// `"sharing_info":{"read_only":false,"parent_shared_folder_id":"…","modified_by":"dbid:…"}`.
public struct FileSharingInfo: Sendable, Hashable, Codable {
    public var readOnly: Bool
    public var parentSharedFolderID: String
    /// The account id of whoever made this revision; absent when nobody known did (a file
    /// changed on disk, or made before members were recorded).
    public var modifiedBy: String?

    public init(readOnly: Bool = false, parentSharedFolderID: String, modifiedBy: String?) {
        self.readOnly = readOnly
        self.parentSharedFolderID = parentSharedFolderID
        self.modifiedBy = modifiedBy
    }

    enum CodingKeys: String, CodingKey {
        case readOnly = "read_only", parentSharedFolderID = "parent_shared_folder_id", modifiedBy = "modified_by"
    }

    /// Lenient: Dropbox's own examples leave out `parent_shared_folder_id`.
    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        readOnly = try object.decodeIfPresent(Bool.self, forKey: .readOnly) ?? false
        parentSharedFolderID = try object.decodeIfPresent(String.self, forKey: .parentSharedFolderID) ?? ""
        modifiedBy = try object.decodeIfPresent(String.self, forKey: .modifiedBy)
    }
}

/// How `list_revisions` finds the history: by the file's path (the revisions made at that
/// path) or by its id (every revision of the file, wherever it was).
public enum ListRevisionsMode: String, WireUnion {
    case path
    case id
}

/// `list_revisions`'s argument: `{"path","mode","limit","before_rev"?}`, Dropbox's fields
/// (files.stone's `ListRevisionsArg`; `include_restorable_info` is not asked for). The club
/// server's `/2/byteclub/files/list_revisions` takes the same.
public struct ListRevisionsArg: Sendable, Hashable, Codable {
    /// A path, or `id:…`.
    public var path: String
    public var mode: ListRevisionsMode
    /// 1…100; Dropbox's default is 10.
    public var limit: Int
    /// List only revisions older than this one (paging back through a long history).
    public var beforeRev: String?

    public init(path: String, mode: ListRevisionsMode = .path, limit: Int = 10, beforeRev: String? = nil) {
        self.path = path
        self.mode = mode
        self.limit = limit
        self.beforeRev = beforeRev
    }

    enum CodingKeys: String, CodingKey { case path, mode, limit, beforeRev = "before_rev" }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        path = try object.decode(String.self, forKey: .path)
        mode = try object.decodeIfPresent(ListRevisionsMode.self, forKey: .mode) ?? .path
        limit = try object.decodeIfPresent(Int.self, forKey: .limit) ?? 10
        beforeRev = try object.decodeIfPresent(String.self, forKey: .beforeRev)
    }
}

/// `list_revisions`'s answer: the file's revisions, newest first.
public struct ListRevisionsResult: Sendable, Hashable, Codable {
    /// Whether the file is deleted now (its history is kept).
    public var isDeleted: Bool
    /// When it was deleted, if it is.
    public var serverDeleted: Date?
    /// Who deleted it (an account id, as `modified_by`): only in the club server's
    /// `/2/byteclub/files/list_revisions` (``Endpoint/clubListRevisions``), never on Dropbox's
    /// route, whose answer names no one.
    public var deletedBy: String?
    public var entries: [FileMetadata]
    /// More, older revisions exist: ask again with `before_rev` set to the last entry's rev.
    public var hasMore: Bool
    /// The other members who wrote in a revision, live, beside its author (account ids, by
    /// rev): only from the club server's own route, and only for revisions that have any.
    public var writtenWith: [String: [String]]

    public init(isDeleted: Bool, serverDeleted: Date? = nil, deletedBy: String? = nil, entries: [FileMetadata], hasMore: Bool,
                writtenWith: [String: [String]] = [:]) {
        self.isDeleted = isDeleted
        self.serverDeleted = serverDeleted
        self.deletedBy = deletedBy
        self.entries = entries
        self.hasMore = hasMore
        self.writtenWith = writtenWith
    }

    enum CodingKeys: String, CodingKey {
        case isDeleted = "is_deleted", serverDeleted = "server_deleted", deletedBy = "deleted_by", entries, hasMore = "has_more"
        case writtenWith = "written_with"
    }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        isDeleted = try object.decode(Bool.self, forKey: .isDeleted)
        serverDeleted = try object.decodeIfPresent(WireDate.self, forKey: .serverDeleted)?.date
        deletedBy = try object.decodeIfPresent(String.self, forKey: .deletedBy)
        entries = try object.decode([FileMetadata].self, forKey: .entries)
        hasMore = try object.decodeIfPresent(Bool.self, forKey: .hasMore) ?? false
        writtenWith = try object.decodeIfPresent([String: [String]].self, forKey: .writtenWith) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(isDeleted, forKey: .isDeleted)
        try object.encodeIfPresent(serverDeleted.map(WireDate.init), forKey: .serverDeleted)
        try object.encodeIfPresent(deletedBy, forKey: .deletedBy)
        try object.encode(entries, forKey: .entries)
        try object.encode(hasMore, forKey: .hasMore)
        if !writtenWith.isEmpty { try object.encode(writtenWith, forKey: .writtenWith) }
    }
}

/// `restore`'s argument: bring back `rev` at `path`, as a new revision.
public struct RestoreArg: Sendable, Hashable, Codable {
    public var path: String
    public var rev: String

    public init(path: String, rev: String) {
        self.path = path
        self.rev = rev
    }
}

/// `copy_v2`'s (and `move_v2`'s) argument. Its answer is a `MetadataResult`.
public struct RelocationArg: Sendable, Hashable, Codable {
    public var fromPath: String
    public var toPath: String
    public var autorename: Bool

    public init(fromPath: String, toPath: String, autorename: Bool = false) {
        self.fromPath = fromPath
        self.toPath = toPath
        self.autorename = autorename
    }

    enum CodingKeys: String, CodingKey { case fromPath = "from_path", toPath = "to_path", autorename }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        fromPath = try object.decode(String.self, forKey: .fromPath)
        toPath = try object.decode(String.self, forKey: .toPath)
        autorename = try object.decodeIfPresent(Bool.self, forKey: .autorename) ?? false
    }
}
