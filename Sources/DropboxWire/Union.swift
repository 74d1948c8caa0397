import Foundation

/// A coding key spelled at run time: `.tag` and the fields of a union's object form.
public struct WireKey: CodingKey, Hashable, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }

    public init(_ string: String) { stringValue = string }
    /// The same key as another coding key, so one container can hold a tag and typed fields.
    public init(_ key: some CodingKey) { stringValue = key.stringValue }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }

    public static let tag = WireKey(".tag")
}

/// The union-argument rule, in one place.
///
/// Dropbox's unions travel as an object, `{".tag":"jpeg"}`, or as `{".tag":"update",
/// "update":"<rev>"}` when the member carries a value. A member without a value may also be
/// written as the bare string `"jpeg"`; our own client writes that short form and the official
/// SDKs write the object form, so every union is read through here and accepts both.
public struct UnionTag {
    /// The member's name, e.g. "jpeg" or "update".
    public let tag: String
    /// The object form's container, for members that carry fields; nil for the string form.
    public let fields: KeyedDecodingContainer<WireKey>?

    /// Reads the tag, in either form. A value of any other shape is a type mismatch.
    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: WireKey.self) {
            tag = try object.decode(String.self, forKey: .tag)
            fields = object
            return
        }
        let single = try decoder.singleValueContainer()
        guard let text = try? single.decode(String.self) else {
            throw DecodingError.typeMismatch(String.self, .init(
                codingPath: decoder.codingPath, debugDescription: "expected a union: a string or an object with a '.tag'"))
        }
        tag = text
        fields = nil
    }

    /// The value a member carries under its own name (`"update":"<rev>"`), or nil if absent.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        try fields?.decodeIfPresent(type, forKey: WireKey(key))
    }

    /// Decodes a union whose members carry nothing: an enum whose raw values are the tags.
    public static func decode<U: RawRepresentable<String>>(_ type: U.Type, from decoder: any Decoder) throws -> U {
        let union = try UnionTag(from: decoder)
        guard let value = U(rawValue: union.tag) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown value '\(union.tag)'"))
        }
        return value
    }

    /// Encodes a member without a value in the short form, a bare string, which every Dropbox
    /// server accepts and which keeps `Dropbox-API-Arg` headers short.
    public static func encode<U: RawRepresentable<String>>(_ value: U, to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(value.rawValue)
    }
}

/// A union whose members carry no value, such as a thumbnail's format, size or mode.
///
/// Conforming enums get both wire forms for free: decoding through `UnionTag`, encoding as
/// the bare string.
public protocol WireUnion: RawRepresentable<String>, Codable, Sendable, Hashable, CaseIterable {}

extension WireUnion {
    public init(from decoder: any Decoder) throws {
        self = try UnionTag.decode(Self.self, from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try UnionTag.encode(self, to: encoder)
    }

    /// The object form, `{".tag":"<member>"}`, for callers that want to send it.
    public var taggedObject: [String: String] { [".tag": rawValue] }
}
