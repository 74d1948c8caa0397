import DropboxWire
import Foundation

/// JSON text built by hand, passed through to the response as is.
struct RawJSON {
    var text: String
}

enum JSON {
    /// Serializes for a response body. Dropbox doesn't escape slashes.
    static func data(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    /// `{"metadata":{…}}`, as delete_v2, move_v2 and create_folder_v2 answer.
    static func metadataResult(_ metadata: Metadata) -> RawJSON {
        var text = "{\"metadata\":"
        metadata.appendJSON(to: &text)
        return RawJSON(text: text + "}")
    }

    /// A `Dropbox-API-Result` header: metadata (under `key`, if given) with every non-ASCII
    /// character as \uXXXX.
    static func resultHeader(_ metadata: Metadata, under key: String? = nil) -> String {
        var text = key.map { "{\"\($0)\":" } ?? ""
        metadata.appendJSON(to: &text, asciiOnly: true)
        return key == nil ? text : text + "}"
    }

    /// Parses a JSON object or throws a 400 naming the problem.
    static func object(_ data: Data, what: String) throws(APIError) -> [String: Any] {
        guard !data.isEmpty else { throw .badRequest("\(what): expected a JSON object, got an empty body") }
        // Checked here, not left to the parser: a lenient one would turn bad bytes into U+FFFD.
        guard String(validating: data, as: UTF8.self) != nil else { throw .badRequest("\(what): the body is not valid UTF-8") }
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw .badRequest("\(what): could not decode input as JSON")
        }
        guard let object = value as? [String: Any] else { throw .badRequest("\(what): expected a JSON object") }
        return object
    }
}

/// Typed reads from a decoded JSON object, with Dropbox-style 400 messages.
///
/// Plain fields are read straight from the object. Anything holding a Dropbox union goes
/// through DropboxWire's Codable types (`decode`), so the union rule lives in one place.
package struct Arguments {
    let object: [String: Any]
    let what: String

    init(object: [String: Any], what: String) {
        self.object = object
        self.what = what
    }

    /// A content endpoint's argument, from the text of `Dropbox-API-Arg` (or the `arg` query).
    ///
    /// The HTTP parser decodes header bytes as UTF-8 and puts U+FFFD where they were not valid,
    /// so a raw U+FFFD here means bytes that were not text (a raw 0xFF would otherwise become a
    /// file named "\u{FFFD}.txt"). Clients escape non-ASCII as `\uXXXX`, as Dropbox asks, and
    /// "\ufffd" written that way stays welcome.
    package init(headerText text: String, what: String) throws(APIError) {
        if text.unicodeScalars.contains("\u{FFFD}") {
            throw .badRequest("\(what): the Dropbox-API-Arg header is not valid UTF-8; escape non-ASCII characters as \\uXXXX")
        }
        self.init(object: try JSON.object(Data(text.utf8), what: what), what: what)
    }

    package func string(_ key: String) throws(APIError) -> String {
        guard let value = object[key] else { throw .badRequest("\(what): missing required field '\(key)'") }
        guard let string = value as? String else { throw .badRequest("\(what): '\(key)' must be a string") }
        return string
    }

    package func optionalString(_ key: String) throws(APIError) -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let string = value as? String else { throw .badRequest("\(what): '\(key)' must be a string") }
        return string
    }

    package func bool(_ key: String, default fallback: Bool) throws(APIError) -> Bool {
        guard let value = object[key], !(value is NSNull) else { return fallback }
        guard let flag = value as? Bool else { throw .badRequest("\(what): '\(key)' must be a boolean") }
        return flag
    }

    package func int(_ key: String, default fallback: Int?, range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let value = object[key], !(value is NSNull) else { return fallback }
        guard let number = value as? Int else { throw .badRequest("\(what): '\(key)' must be an integer") }
        guard range.contains(number) else {
            throw .badRequest("\(what): '\(key)' must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return number
    }

    package func object(_ key: String) throws(APIError) -> Arguments? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let nested = value as? [String: Any] else { throw .badRequest("\(what): '\(key)' must be an object") }
        return Arguments(object: nested, what: "\(what).\(key)")
    }

    /// The whole argument as a wire type.
    package func decode<T: Decodable>(_ type: T.Type) throws(APIError) -> T {
        try Self.decode(type, from: object, what: what, at: [])
    }

    /// One field as a wire type (a union, or an object holding some); nil when absent or null.
    package func decode<T: Decodable>(_ type: T.Type, _ key: String) throws(APIError) -> T? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        return try Self.decode(type, from: value, what: what, at: [key])
    }

    /// Decodes through JSON text: arguments are small, and this keeps one decoder (and one
    /// union rule) for every Dropbox type, whichever endpoint it arrives at.
    private static func decode<T: Decodable>(_ type: T.Type, from value: Any, what: String, at prefix: [String]) throws(APIError) -> T {
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
        } catch {
            throw .badRequest("\(what): could not decode input as JSON")
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw .badRequest("\(what): \(describe(error, prefix: prefix))")
        } catch {
            throw .badRequest("\(what): could not decode input as JSON")
        }
    }

    /// A DecodingError in the words of Dropbox's 400s: "missing required field 'path'",
    /// "'mode': unknown mode 'sideways'".
    private static func describe(_ error: DecodingError, prefix: [String]) -> String {
        func field(_ path: [any CodingKey]) -> String {
            (prefix + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }).joined(separator: ".")
        }
        func at(_ path: [any CodingKey]) -> String {
            let name = field(path)
            return name.isEmpty ? "" : "'\(name)': "
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(at(context.codingPath))missing required field '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(at(context.codingPath))wrong type: \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "\(at(context.codingPath))\(context.debugDescription)"
        @unknown default:
            return "could not decode input"
        }
    }
}
