import Foundation
import Remote

/// Dropbox file metadata, in the exact JSON shape of API v2.
struct FileMetadata: Sendable, Equatable {
    var name: String
    var id: String
    var pathLower: String
    var pathDisplay: String
    var clientModified: Date
    var serverModified: Date
    var rev: String
    var size: Int64
    var contentHash: String

    var json: [String: Any] {
        [".tag": "file", "name": name, "id": id, "path_lower": pathLower, "path_display": pathDisplay,
         "client_modified": Timestamp.format(clientModified), "server_modified": Timestamp.format(serverModified),
         "rev": rev, "size": size, "content_hash": contentHash, "is_downloadable": true]
    }
}

extension FileMetadata {
    /// The same object as `json`, written directly: JSONSerialization is far too slow for a
    /// 2,000-entry page on Linux.
    var jsonText: String {
        var out = "{\".tag\":\"file\",\"client_modified\":\""
        out += Timestamp.format(clientModified)
        out += "\",\"content_hash\":\""
        out += contentHash
        out += "\",\"id\":"
        JSON.appendString(id, to: &out)
        out += ",\"is_downloadable\":true,\"name\":"
        JSON.appendString(name, to: &out)
        out += ",\"path_display\":"
        JSON.appendString(pathDisplay, to: &out)
        out += ",\"path_lower\":"
        JSON.appendString(pathLower, to: &out)
        out += ",\"rev\":\""
        out += rev
        out += "\",\"server_modified\":\""
        out += Timestamp.format(serverModified)
        out += "\",\"size\":"
        out += String(size)
        out += "}"
        return out
    }
}

struct FolderMetadata: Sendable, Equatable {
    var name: String
    var id: String
    var pathLower: String
    var pathDisplay: String

    var json: [String: Any] {
        [".tag": "folder", "name": name, "id": id, "path_lower": pathLower, "path_display": pathDisplay]
    }
}

enum Metadata: Sendable, Equatable {
    case file(FileMetadata)
    case folder(FolderMetadata)

    var json: [String: Any] {
        switch self {
        case .file(let file): return file.json
        case .folder(let folder): return folder.json
        }
    }

    var jsonText: String {
        switch self {
        case .file(let file): return file.jsonText
        case .folder(let folder):
            var out = "{\".tag\":\"folder\",\"id\":"
            JSON.appendString(folder.id, to: &out)
            out += ",\"name\":"
            JSON.appendString(folder.name, to: &out)
            out += ",\"path_display\":"
            JSON.appendString(folder.pathDisplay, to: &out)
            out += ",\"path_lower\":"
            JSON.appendString(folder.pathLower, to: &out)
            out += "}"
            return out
        }
    }

    var pathLower: String {
        switch self {
        case .file(let file): return file.pathLower
        case .folder(let folder): return folder.pathLower
        }
    }

    var name: String {
        switch self {
        case .file(let file): return file.name
        case .folder(let folder): return folder.name
        }
    }
}

enum Timestamp {
    /// "2026-11-21T20:56:10Z", Dropbox's format: UTC, whole seconds.
    static func format(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        // Built by hand: String(format:) costs microseconds, and a listing formats thousands.
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(Int(parts.tm_year) + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    static func parse(_ text: String) -> Date? {
        let scanned = text.utf8.split(whereSeparator: { !(48...57).contains($0) }).compactMap { Int(String(decoding: $0, as: UTF8.self)) }
        guard scanned.count >= 6, text.hasSuffix("Z") else { return nil }
        var parts = tm()
        parts.tm_year = Int32(scanned[0] - 1900)
        parts.tm_mon = Int32(scanned[1] - 1)
        parts.tm_mday = Int32(scanned[2])
        parts.tm_hour = Int32(scanned[3])
        parts.tm_min = Int32(scanned[4])
        parts.tm_sec = Int32(scanned[5])
        let seconds = timegm(&parts)
        guard seconds >= 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}

/// JSON text built by hand, passed through to the response as is.
struct RawJSON {
    var text: String
}

enum JSON {
    /// Appends `value` as a JSON string literal.
    static func appendString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// Serializes for a response body. Dropbox doesn't escape slashes.
    static func data(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    /// For HTTP headers (`Dropbox-API-Result`): JSON with every non-ASCII character as \uXXXX.
    static func asciiHeader(_ object: Any) -> String {
        DropboxJSON.asciiEscaped(String(decoding: data(object), as: UTF8.self))
    }

    /// Parses a JSON object or throws a 400 naming the problem.
    static func object(_ data: Data, what: String) throws(APIError) -> [String: Any] {
        guard !data.isEmpty else { throw .badRequest("\(what): expected a JSON object, got an empty body") }
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw .badRequest("\(what): could not decode input as JSON")
        }
        guard let object = value as? [String: Any] else { throw .badRequest("\(what): expected a JSON object") }
        return object
    }
}

/// Typed reads from a decoded JSON object, with Dropbox-style 400 messages.
struct Arguments {
    let object: [String: Any]
    let what: String

    func string(_ key: String) throws(APIError) -> String {
        guard let value = object[key] else { throw .badRequest("\(what): missing required field '\(key)'") }
        guard let string = value as? String else { throw .badRequest("\(what): '\(key)' must be a string") }
        return string
    }

    func optionalString(_ key: String) throws(APIError) -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let string = value as? String else { throw .badRequest("\(what): '\(key)' must be a string") }
        return string
    }

    func bool(_ key: String, default fallback: Bool) throws(APIError) -> Bool {
        guard let value = object[key], !(value is NSNull) else { return fallback }
        guard let flag = value as? Bool else { throw .badRequest("\(what): '\(key)' must be a boolean") }
        return flag
    }

    func int(_ key: String, default fallback: Int?, range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let value = object[key], !(value is NSNull) else { return fallback }
        guard let number = value as? Int else { throw .badRequest("\(what): '\(key)' must be an integer") }
        guard range.contains(number) else {
            throw .badRequest("\(what): '\(key)' must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return number
    }

    func object(_ key: String) throws(APIError) -> Arguments? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let nested = value as? [String: Any] else { throw .badRequest("\(what): '\(key)' must be an object") }
        return Arguments(object: nested, what: "\(what).\(key)")
    }
}
