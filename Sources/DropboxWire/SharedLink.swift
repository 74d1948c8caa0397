import Foundation

/// Who may open a shared link, as `requested_visibility` and `resolved_visibility` name it.
/// A club server makes only public links; the other members are here so a client can read
/// what Dropbox answers for links made elsewhere.
public enum LinkVisibility: String, WireUnion {
    case `public`
    case teamOnly = "team_only"
    case password
    case teamAndPassword = "team_and_password"
    case sharedFolderOnly = "shared_folder_only"
    case noOne = "no_one"
    case onlyYou = "only_you"
    case other
}

/// A shared link as `sharing/create_shared_link_with_settings` and `list_shared_links` answer
/// it: `FileLinkMetadata` (`.tag: file`) or `FolderLinkMetadata` (`.tag: folder`).
///
/// Encoding writes exactly the fields of Dropbox's spec (`sharing_links.stone`), including the
/// `link_permissions` a public, read-only link has, so the official SDKs accept our answers;
/// decoding is lenient about what it does not use.
public struct SharedLinkMetadata: Sendable, Hashable, Codable {
    /// `file` or `folder` (another tag is kept as it came).
    public var tag: String
    public var url: String
    public var name: String
    /// The linked file's id (`id:…`).
    public var id: String?
    public var pathLower: String?
    /// When the link stops working; nil: never.
    public var expires: Date?
    public var visibility: LinkVisibility?
    // FileLinkMetadata only.
    public var clientModified: Date?
    public var serverModified: Date?
    public var rev: String?
    public var size: Int64?

    public init(file: FileMetadata, url: String, expires: Date?) {
        tag = "file"
        self.url = url
        name = file.name
        id = file.id
        pathLower = file.pathLower
        self.expires = expires
        visibility = .public
        clientModified = file.clientModified
        serverModified = file.serverModified
        rev = file.rev
        size = file.size
    }

    enum CodingKeys: String, CodingKey {
        case tag = ".tag", url, name, id, pathLower = "path_lower", expires, linkPermissions = "link_permissions"
        case clientModified = "client_modified", serverModified = "server_modified", rev, size
    }

    enum PermissionKeys: String, CodingKey {
        case resolvedVisibility = "resolved_visibility", requestedVisibility = "requested_visibility", canRevoke = "can_revoke"
        case visibilityPolicies = "visibility_policies", canSetExpiry = "can_set_expiry", canRemoveExpiry = "can_remove_expiry"
        case allowDownload = "allow_download", canAllowDownload = "can_allow_download", canDisallowDownload = "can_disallow_download"
        case allowComments = "allow_comments", teamRestrictsComments = "team_restricts_comments"
    }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        tag = try object.decode(String.self, forKey: .tag)
        url = try object.decode(String.self, forKey: .url)
        name = try object.decode(String.self, forKey: .name)
        id = try object.decodeIfPresent(String.self, forKey: .id)
        pathLower = try object.decodeIfPresent(String.self, forKey: .pathLower)
        expires = try Self.date(object, .expires)
        if object.contains(.linkPermissions) {
            let permissions = try object.nestedContainer(keyedBy: PermissionKeys.self, forKey: .linkPermissions)
            // A visibility newer than this client knows reads as `other`, never as a failure.
            visibility = (try? permissions.decodeIfPresent(LinkVisibility.self, forKey: .resolvedVisibility)) ?? .other
        }
        clientModified = try Self.date(object, .clientModified)
        serverModified = try Self.date(object, .serverModified)
        rev = try object.decodeIfPresent(String.self, forKey: .rev)
        size = try object.decodeIfPresent(Int64.self, forKey: .size)
    }

    private static func date(_ object: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Date? {
        guard let text = try object.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = DropboxTimestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: object, debugDescription: "not a Dropbox timestamp: \(text)")
        }
        return date
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(tag, forKey: .tag)
        try object.encode(url, forKey: .url)
        try object.encode(name, forKey: .name)
        try object.encodeIfPresent(id, forKey: .id)
        try object.encodeIfPresent(pathLower, forKey: .pathLower)
        try object.encodeIfPresent(expires.map(DropboxTimestamp.format), forKey: .expires)
        // What a public, read-only link of a club allows: anyone with the URL downloads it;
        // its settings are fixed when it is made (revoke it and make another to change them).
        var permissions = object.nestedContainer(keyedBy: PermissionKeys.self, forKey: .linkPermissions)
        let shown = visibility ?? .public
        // Unions in the object form Dropbox itself writes.
        try permissions.encode(shown.taggedObject, forKey: .resolvedVisibility)
        try permissions.encode(shown.taggedObject, forKey: .requestedVisibility)
        try permissions.encode(true, forKey: .canRevoke)
        try permissions.encode([String](), forKey: .visibilityPolicies)
        try permissions.encode(false, forKey: .canSetExpiry)
        try permissions.encode(false, forKey: .canRemoveExpiry)
        try permissions.encode(true, forKey: .allowDownload)
        try permissions.encode(false, forKey: .canAllowDownload)
        try permissions.encode(false, forKey: .canDisallowDownload)
        try permissions.encode(false, forKey: .allowComments)
        try permissions.encode(false, forKey: .teamRestrictsComments)
        try object.encodeIfPresent(clientModified.map(DropboxTimestamp.format), forKey: .clientModified)
        try object.encodeIfPresent(serverModified.map(DropboxTimestamp.format), forKey: .serverModified)
        try object.encodeIfPresent(rev, forKey: .rev)
        try object.encodeIfPresent(size, forKey: .size)
    }
}

/// `sharing/list_shared_links`'s answer: `{"links","has_more","cursor"?}`.
public struct ListSharedLinksResult: Sendable, Hashable, Codable {
    public var links: [SharedLinkMetadata]
    public var hasMore: Bool
    public var cursor: String?

    public init(links: [SharedLinkMetadata], hasMore: Bool = false, cursor: String? = nil) {
        self.links = links
        self.hasMore = hasMore
        self.cursor = cursor
    }

    enum CodingKeys: String, CodingKey { case links, hasMore = "has_more", cursor }
}

/// The `error` of a `create_shared_link_with_settings` that found a link already there:
/// `{".tag":"shared_link_already_exists","shared_link_already_exists":{".tag":"metadata","metadata":{…}}}`
/// (the inner union may be null or absent).
public struct SharedLinkAlreadyExists: Sendable, Decodable {
    public var metadata: SharedLinkMetadata?

    enum Outer: String, CodingKey { case tag = ".tag", exists = "shared_link_already_exists" }
    enum Inner: String, CodingKey { case tag = ".tag", metadata }

    public init(from decoder: any Decoder) throws {
        let outer = try decoder.container(keyedBy: Outer.self)
        guard try outer.decode(String.self, forKey: .tag) == "shared_link_already_exists" else {
            throw DecodingError.dataCorruptedError(forKey: .tag, in: outer, debugDescription: "not shared_link_already_exists")
        }
        guard (try? outer.decodeNil(forKey: .exists)) == false else { metadata = nil; return }
        let inner = try outer.nestedContainer(keyedBy: Inner.self, forKey: .exists)
        metadata = try inner.decode(String.self, forKey: .tag) == "metadata" ? try inner.decode(SharedLinkMetadata.self, forKey: .metadata) : nil
    }
}
