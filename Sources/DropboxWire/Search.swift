import Foundation

/// Whether a search looks at live files or deleted ones.
public enum SearchFileStatus: String, WireUnion {
    case active, deleted
}

/// The order of search matches.
public enum SearchOrderBy: String, WireUnion {
    case relevance
    case lastModifiedTime = "last_modified_time"
}

/// Dropbox's file categories, for `file_categories`.
public enum FileCategory: String, WireUnion {
    case image, document, pdf, spreadsheet, presentation, audio, video, folder, paper, others

    /// The extensions that put a file in this category (lower case, no dot); empty for
    /// categories told apart otherwise (folders) or by elimination (others).
    public var extensions: Set<String> {
        switch self {
        case .image: return ["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "heic", "heif", "webp", "svg"]
        case .document: return ["doc", "docx", "odt", "rtf", "txt", "md", "pages"]
        case .pdf: return ["pdf"]
        case .spreadsheet: return ["xls", "xlsx", "ods", "csv", "numbers"]
        case .presentation: return ["ppt", "pptx", "odp", "key"]
        case .audio: return ["mp3", "m4a", "aac", "wav", "flac", "ogg", "opus"]
        case .video: return ["mp4", "m4v", "mov", "avi", "mkv", "webm"]
        case .paper: return ["paper"]
        case .folder, .others: return []
        }
    }
}

/// `search_v2`'s `options`. Absent fields take Dropbox's defaults.
public struct SearchOptions: Sendable, Hashable, Codable {
    /// The folder searched; "" (the root) when absent.
    public var path: String?
    public var maxResults: Int?
    public var orderBy: SearchOrderBy?
    public var fileStatus: SearchFileStatus?
    public var filenameOnly: Bool?
    public var fileExtensions: [String]?
    public var fileCategories: [FileCategory]?

    public init(path: String? = nil, maxResults: Int? = nil, orderBy: SearchOrderBy? = nil, fileStatus: SearchFileStatus? = nil,
                filenameOnly: Bool? = nil, fileExtensions: [String]? = nil, fileCategories: [FileCategory]? = nil) {
        self.path = path
        self.maxResults = maxResults
        self.orderBy = orderBy
        self.fileStatus = fileStatus
        self.filenameOnly = filenameOnly
        self.fileExtensions = fileExtensions
        self.fileCategories = fileCategories
    }

    enum CodingKeys: String, CodingKey {
        case path, maxResults = "max_results", orderBy = "order_by", fileStatus = "file_status"
        case filenameOnly = "filename_only", fileExtensions = "file_extensions", fileCategories = "file_categories"
    }
}

/// `search_v2`'s argument.
public struct SearchArgument: Sendable, Hashable, Codable {
    public var query: String
    public var options: SearchOptions?

    public init(query: String, options: SearchOptions? = nil) {
        self.query = query
        self.options = options
    }
}

/// How a match matched: `{".tag":"filename"}`, `filename_and_content`, `content` or `image_content`.
public enum SearchMatchType: String, WireUnion {
    case filename
    case filenameAndContent = "filename_and_content"
    case content
    case imageContent = "image_content"

    public func encode(to encoder: any Encoder) throws {
        // Answers carry unions in the object form, as Dropbox sends them.
        var object = encoder.container(keyedBy: WireKey.self)
        try object.encode(rawValue, forKey: .tag)
    }
}

/// One search match: `{"metadata":{".tag":"metadata","metadata":{…}},"match_type":{".tag":"filename"}}`.
public struct SearchMatch: Sendable, Hashable, Codable {
    public var metadata: Metadata
    public var matchType: SearchMatchType?

    public init(metadata: Metadata, matchType: SearchMatchType? = .filename) {
        self.metadata = metadata
        self.matchType = matchType
    }

    enum CodingKeys: String, CodingKey { case metadata, matchType = "match_type" }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        // MetadataV2 is a union whose one member, `metadata`, holds the entry.
        let wrapper = try UnionTag(from: object.superDecoder(forKey: .metadata))
        guard wrapper.tag == "metadata", let metadata = try wrapper.value(Metadata.self, forKey: "metadata") else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown match metadata '\(wrapper.tag)'"))
        }
        self.metadata = metadata
        matchType = try object.decodeIfPresent(SearchMatchType.self, forKey: .matchType)
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        var wrapper = object.nestedContainer(keyedBy: WireKey.self, forKey: .metadata)
        try wrapper.encode("metadata", forKey: .tag)
        try wrapper.encode(metadata, forKey: WireKey("metadata"))
        try object.encodeIfPresent(matchType, forKey: .matchType)
    }
}

/// A `search_v2` (or `search/continue_v2`) answer; `cursor` only while `has_more`.
public struct SearchResult: Sendable, Hashable, Codable {
    public var matches: [SearchMatch]
    public var hasMore: Bool
    public var cursor: String?

    public init(matches: [SearchMatch], hasMore: Bool, cursor: String?) {
        self.matches = matches
        self.hasMore = hasMore
        self.cursor = cursor
    }

    enum CodingKeys: String, CodingKey { case matches, hasMore = "has_more", cursor }
}
