import Foundation

/// How an upload treats a file already at its path.
///
/// On the wire: `"add"`, `"overwrite"`, or `{".tag":"update","update":"<rev>"}`; `add` and
/// `overwrite` may also come as `{".tag":"add"}`.
public enum WriteMode: Sendable, Hashable, Codable {
    /// Never replace: conflict (or autorename) if the path holds other content.
    case add
    case overwrite
    /// Replace only while the file is still at this rev; else conflict (or a conflicted copy).
    case update(rev: String)

    /// The mode's tag on the wire: "add", "overwrite" or "update".
    public var tag: String {
        switch self {
        case .add: "add"
        case .overwrite: "overwrite"
        case .update: "update"
        }
    }

    /// A rev as Dropbox writes them: at least 9 lowercase or uppercase hex digits.
    public static func isValidRev(_ rev: String) -> Bool {
        rev.utf8.count >= 9 && rev.allSatisfy(\.isHexDigit)
    }

    public init(from decoder: any Decoder) throws {
        let union = try UnionTag(from: decoder)
        switch union.tag {
        case "add": self = .add
        case "overwrite": self = .overwrite
        case "update":
            guard let rev = try union.value(String.self, forKey: "update"), Self.isValidRev(rev) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'update' needs a rev of at least 9 hex digits"))
            }
            self = .update(rev: rev)
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown mode '\(union.tag)'"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .add, .overwrite:
            var single = encoder.singleValueContainer()
            try single.encode(self == .add ? "add" : "overwrite")
        case .update(let rev):
            var object = encoder.container(keyedBy: WireKey.self)
            try object.encode("update", forKey: .tag)
            try object.encode(rev, forKey: WireKey("update"))
        }
    }

    /// The wire form as a JSONSerialization value: a String, or a dictionary for `update`.
    public var jsonValue: Any {
        switch self {
        case .add: return "add"
        case .overwrite: return "overwrite"
        case .update(let rev): return [".tag": "update", "update": rev]
        }
    }
}

/// Where and how an upload lands: `upload`'s argument, and `upload_session/finish`'s `commit`.
public struct CommitInfo: Sendable, Hashable, Codable {
    public var path: String
    public var mode: WriteMode
    public var autorename: Bool
    /// The file's own modification time, kept as `client_modified`.
    public var clientModified: Date?
    public var mute: Bool
    public var strictConflict: Bool

    public init(path: String, mode: WriteMode = .add, autorename: Bool = false, clientModified: Date? = nil,
                mute: Bool = false, strictConflict: Bool = false) {
        self.path = path
        self.mode = mode
        self.autorename = autorename
        self.clientModified = clientModified
        self.mute = mute
        self.strictConflict = strictConflict
    }

    enum CodingKeys: String, CodingKey {
        case path, mode, autorename, clientModified = "client_modified", mute, strictConflict = "strict_conflict"
    }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        path = try object.decode(String.self, forKey: .path)
        mode = try object.decodeIfPresent(WriteMode.self, forKey: .mode) ?? .add
        autorename = try object.decodeIfPresent(Bool.self, forKey: .autorename) ?? false
        clientModified = try object.decodeIfPresent(WireDate.self, forKey: .clientModified)?.date
        mute = try object.decodeIfPresent(Bool.self, forKey: .mute) ?? false
        strictConflict = try object.decodeIfPresent(Bool.self, forKey: .strictConflict) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(path, forKey: .path)
        try object.encode(mode, forKey: .mode)
        try object.encode(autorename, forKey: .autorename)
        try object.encodeIfPresent(clientModified.map(WireDate.init), forKey: .clientModified)
        try object.encode(mute, forKey: .mute)
        try object.encode(strictConflict, forKey: .strictConflict)
    }
}

/// An upload session's position: `{"session_id","offset"}`.
public struct UploadSessionCursor: Sendable, Hashable, Codable {
    public var sessionID: String
    public var offset: Int64

    public init(sessionID: String, offset: Int64) {
        self.sessionID = sessionID
        self.offset = offset
    }

    enum CodingKeys: String, CodingKey { case sessionID = "session_id", offset }
}

/// A timestamp field, coded as Dropbox's text whatever the coder's date strategy.
public struct WireDate: Sendable, Hashable, Codable {
    public var date: Date

    public init(_ date: Date) { self.date = date }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = DropboxTimestamp.parse(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' must look like 2026-11-21T20:56:10Z"))
        }
        self.date = date
    }

    public func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(DropboxTimestamp.format(date))
    }
}
