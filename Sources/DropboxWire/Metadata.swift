import Foundation

/// A file's metadata, in Dropbox v2's shape:
/// `{".tag":"file","name","id","path_lower","path_display","client_modified","server_modified",
/// "rev","size","content_hash","is_downloadable"}`.
public struct FileMetadata: Sendable, Hashable, Codable {
    public var name: String
    public var id: String
    /// Dropbox leaves the paths out for files not mounted in this account.
    public var pathLower: String?
    public var pathDisplay: String?
    public var clientModified: Date
    public var serverModified: Date
    /// Changes on every write; at least 9 hex digits.
    public var rev: String
    public var size: Int64
    public var contentHash: String?
    public var isDownloadable: Bool
    /// Present in a shared folder (a club with members): who made this revision.
    public var sharingInfo: FileSharingInfo?

    public init(name: String, id: String, pathLower: String?, pathDisplay: String?, clientModified: Date, serverModified: Date,
                rev: String, size: Int64, contentHash: String?, isDownloadable: Bool = true, sharingInfo: FileSharingInfo? = nil) {
        self.name = name
        self.id = id
        self.pathLower = pathLower
        self.pathDisplay = pathDisplay
        self.clientModified = clientModified
        self.serverModified = serverModified
        self.rev = rev
        self.size = size
        self.contentHash = contentHash
        self.isDownloadable = isDownloadable
        self.sharingInfo = sharingInfo
    }

    enum CodingKeys: String, CodingKey {
        case name, id, pathLower = "path_lower", pathDisplay = "path_display", clientModified = "client_modified"
        case serverModified = "server_modified", rev, size, contentHash = "content_hash", isDownloadable = "is_downloadable"
        case sharingInfo = "sharing_info"
    }

    public init(from decoder: any Decoder) throws {
        try self.init(object: decoder.container(keyedBy: WireKey.self))
    }

    /// Decodes from a container already open on the entry, so a listing opens one container per
    /// entry, not one for the tag and another for the fields (JSONDecoder builds a key table per
    /// container: a 2,000-entry page decoded 1.3–1.45× slower that way).
    init(object: KeyedDecodingContainer<WireKey>) throws {
        name = try object.decode(String.self, forKey: WireKey(CodingKeys.name))
        id = try object.decode(String.self, forKey: WireKey(CodingKeys.id))
        pathLower = try object.decodeIfPresent(String.self, forKey: WireKey(CodingKeys.pathLower))
        pathDisplay = try object.decodeIfPresent(String.self, forKey: WireKey(CodingKeys.pathDisplay))
        clientModified = try Self.date(object, CodingKeys.clientModified)
        serverModified = try Self.date(object, CodingKeys.serverModified)
        rev = try object.decode(String.self, forKey: WireKey(CodingKeys.rev))
        size = try object.decode(Int64.self, forKey: WireKey(CodingKeys.size))
        // The spec's UInt64: a negative size from a peer would be trusted by whoever sizes a
        // buffer or a progress bar by it.
        guard size >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: WireKey(CodingKeys.size), in: object, debugDescription: "size \(size) is negative")
        }
        contentHash = try object.decodeIfPresent(String.self, forKey: WireKey(CodingKeys.contentHash))
        isDownloadable = try object.decodeIfPresent(Bool.self, forKey: WireKey(CodingKeys.isDownloadable)) ?? true
        // Optional extra: a sharing_info of an unexpected shape never costs the entry.
        sharingInfo = (try? object.decodeIfPresent(FileSharingInfo.self, forKey: WireKey(CodingKeys.sharingInfo))) ?? nil
    }

    /// A timestamp read as a string and parsed by arithmetic (no nested decode per date).
    private static func date(_ object: KeyedDecodingContainer<WireKey>, _ key: CodingKeys) throws -> Date {
        let text = try object.decode(String.self, forKey: WireKey(key))
        guard let date = DropboxTimestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: WireKey(key), in: object, debugDescription: "not a Dropbox timestamp: '\(text)'")
        }
        return date
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: WireKey.self)
        try object.encode("file", forKey: .tag)
        try object.encode(name, forKey: WireKey(CodingKeys.name))
        try object.encode(id, forKey: WireKey(CodingKeys.id))
        try object.encodeIfPresent(pathLower, forKey: WireKey(CodingKeys.pathLower))
        try object.encodeIfPresent(pathDisplay, forKey: WireKey(CodingKeys.pathDisplay))
        try object.encode(WireDate(clientModified), forKey: WireKey(CodingKeys.clientModified))
        try object.encode(WireDate(serverModified), forKey: WireKey(CodingKeys.serverModified))
        try object.encode(rev, forKey: WireKey(CodingKeys.rev))
        try object.encode(size, forKey: WireKey(CodingKeys.size))
        try object.encodeIfPresent(contentHash, forKey: WireKey(CodingKeys.contentHash))
        try object.encode(isDownloadable, forKey: WireKey(CodingKeys.isDownloadable))
        try object.encodeIfPresent(sharingInfo, forKey: WireKey(CodingKeys.sharingInfo))
    }
}

/// A folder's metadata: `{".tag":"folder","name","id","path_lower","path_display"}`.
public struct FolderMetadata: Sendable, Hashable, Codable {
    public var name: String
    public var id: String
    public var pathLower: String?
    public var pathDisplay: String?

    public init(name: String, id: String, pathLower: String?, pathDisplay: String?) {
        self.name = name
        self.id = id
        self.pathLower = pathLower
        self.pathDisplay = pathDisplay
    }

    enum CodingKeys: String, CodingKey { case name, id, pathLower = "path_lower", pathDisplay = "path_display" }

    public init(from decoder: any Decoder) throws {
        try self.init(object: decoder.container(keyedBy: WireKey.self))
    }

    init(object: KeyedDecodingContainer<WireKey>) throws {
        name = try object.decode(String.self, forKey: WireKey(CodingKeys.name))
        id = try object.decode(String.self, forKey: WireKey(CodingKeys.id))
        pathLower = try object.decodeIfPresent(String.self, forKey: WireKey(CodingKeys.pathLower))
        pathDisplay = try object.decodeIfPresent(String.self, forKey: WireKey(CodingKeys.pathDisplay))
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: WireKey.self)
        try object.encode("folder", forKey: .tag)
        try object.encode(name, forKey: WireKey(CodingKeys.name))
        try object.encode(id, forKey: WireKey(CodingKeys.id))
        try object.encodeIfPresent(pathLower, forKey: WireKey(CodingKeys.pathLower))
        try object.encodeIfPresent(pathDisplay, forKey: WireKey(CodingKeys.pathDisplay))
    }
}

/// What a listing says of an entry that was removed: `{".tag":"deleted","name","path_lower","path_display"}`.
public struct DeletedMetadata: Sendable, Hashable, Codable {
    public var name: String
    public var pathLower: String?
    public var pathDisplay: String?

    public init(name: String, pathLower: String?, pathDisplay: String?) {
        self.name = name
        self.pathLower = pathLower
        self.pathDisplay = pathDisplay
    }

    enum CodingKeys: String, CodingKey { case name, pathLower = "path_lower", pathDisplay = "path_display" }

    public init(from decoder: any Decoder) throws {
        try self.init(object: decoder.container(keyedBy: WireKey.self))
    }

    init(object: KeyedDecodingContainer<WireKey>) throws {
        name = try object.decode(String.self, forKey: WireKey(CodingKeys.name))
        pathLower = try object.decodeIfPresent(String.self, forKey: WireKey(CodingKeys.pathLower))
        pathDisplay = try object.decodeIfPresent(String.self, forKey: WireKey(CodingKeys.pathDisplay))
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: WireKey.self)
        try object.encode("deleted", forKey: .tag)
        try object.encode(name, forKey: WireKey(CodingKeys.name))
        try object.encodeIfPresent(pathLower, forKey: WireKey(CodingKeys.pathLower))
        try object.encodeIfPresent(pathDisplay, forKey: WireKey(CodingKeys.pathDisplay))
    }
}

/// Any entry's metadata, told apart by `.tag`.
public enum Metadata: Sendable, Hashable, Codable {
    case file(FileMetadata)
    case folder(FolderMetadata)
    case deleted(DeletedMetadata)

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: WireKey.self)
        let tag = try object.decode(String.self, forKey: .tag)
        switch tag {
        case "file": self = .file(try FileMetadata(object: object))
        case "folder": self = .folder(try FolderMetadata(object: object))
        case "deleted": self = .deleted(try DeletedMetadata(object: object))
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown metadata '\(tag)'"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .file(let file): try file.encode(to: encoder)
        case .folder(let folder): try folder.encode(to: encoder)
        case .deleted(let deleted): try deleted.encode(to: encoder)
        }
    }

    /// "file", "folder" or "deleted".
    public var tag: String {
        switch self {
        case .file: return "file"
        case .folder: return "folder"
        case .deleted: return "deleted"
        }
    }

    public var name: String {
        switch self {
        case .file(let file): return file.name
        case .folder(let folder): return folder.name
        case .deleted(let deleted): return deleted.name
        }
    }

    public var pathLower: String? {
        switch self {
        case .file(let file): return file.pathLower
        case .folder(let folder): return folder.pathLower
        case .deleted(let deleted): return deleted.pathLower
        }
    }

    public var pathDisplay: String? {
        switch self {
        case .file(let file): return file.pathDisplay
        case .folder(let folder): return folder.pathDisplay
        case .deleted(let deleted): return deleted.pathDisplay
        }
    }
}

/// `{"metadata":{…}}`: what `delete_v2`, `move_v2` and `create_folder_v2` answer.
public struct MetadataResult: Sendable, Hashable, Codable {
    public var metadata: Metadata

    public init(metadata: Metadata) { self.metadata = metadata }
}

/// A `list_folder` (or `list_folder/continue`) answer.
public struct ListFolderResult: Sendable, Hashable, Codable {
    public var entries: [Metadata]
    public var cursor: String
    public var hasMore: Bool

    public init(entries: [Metadata], cursor: String, hasMore: Bool) {
        self.entries = entries
        self.cursor = cursor
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey { case entries, cursor, hasMore = "has_more" }
}
