import Foundation

/// Dropbox's thumbnail sizes: the box a thumbnail is scaled into.
public enum ThumbnailSize: String, WireUnion {
    case w32h32, w64h64, w128h128, w256h256, w480h320, w640h480, w960h640, w1024h768, w2048h1536

    public var width: Int { box.width }
    public var height: Int { box.height }

    public var box: (width: Int, height: Int) {
        switch self {
        case .w32h32: return (32, 32)
        case .w64h64: return (64, 64)
        case .w128h128: return (128, 128)
        case .w256h256: return (256, 256)
        case .w480h320: return (480, 320)
        case .w640h480: return (640, 480)
        case .w960h640: return (960, 640)
        case .w1024h768: return (1024, 768)
        case .w2048h1536: return (2048, 1536)
        }
    }
}

/// The image format of a thumbnail. A club server makes JPEG only.
public enum ThumbnailFormat: String, WireUnion {
    case jpeg, png, webp
}

/// How a thumbnail fits its box.
public enum ThumbnailMode: String, WireUnion {
    /// Scale down to fit within the size.
    case strict
    /// Scale down to fit within the size or its transpose, whichever keeps more pixels.
    case bestfit
    /// Scale down to cover the size (or its transpose) completely.
    case fitoneBestfit = "fitone_bestfit"
}

/// What to make a thumbnail of: `{".tag":"path","path":"/a.jpg"}`. Dropbox also knows
/// shared links; they arrive as `.other` with their tag, for the server to refuse.
public enum PathOrLink: Sendable, Hashable, Codable {
    case path(String)
    case other(tag: String)

    public init(from decoder: any Decoder) throws {
        let union = try UnionTag(from: decoder)
        guard union.tag == "path" else {
            self = .other(tag: union.tag)
            return
        }
        guard let path = try union.value(String.self, forKey: "path") else {
            throw DecodingError.keyNotFound(WireKey("path"), .init(codingPath: decoder.codingPath, debugDescription: "a path resource needs 'path'"))
        }
        self = .path(path)
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: WireKey.self)
        switch self {
        case .path(let path):
            try object.encode("path", forKey: .tag)
            try object.encode(path, forKey: WireKey("path"))
        case .other(let tag):
            try object.encode(tag, forKey: .tag)
        }
    }
}

/// `get_thumbnail_v2`'s argument. Absent fields take Dropbox's defaults: jpeg, w64h64, strict.
public struct ThumbnailArgument: Sendable, Hashable, Codable {
    public var resource: PathOrLink
    public var format: ThumbnailFormat
    public var size: ThumbnailSize
    public var mode: ThumbnailMode

    public init(path: String, format: ThumbnailFormat = .jpeg, size: ThumbnailSize = .w64h64, mode: ThumbnailMode = .strict) {
        self.resource = .path(path)
        self.format = format
        self.size = size
        self.mode = mode
    }

    enum CodingKeys: String, CodingKey { case resource, format, size, mode }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        resource = try object.decode(PathOrLink.self, forKey: .resource)
        format = try object.decodeIfPresent(ThumbnailFormat.self, forKey: .format) ?? .jpeg
        size = try object.decodeIfPresent(ThumbnailSize.self, forKey: .size) ?? .w64h64
        mode = try object.decodeIfPresent(ThumbnailMode.self, forKey: .mode) ?? .strict
    }
}
