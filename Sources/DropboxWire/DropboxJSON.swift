import Foundation

/// Dropbox's JSON conventions: string escaping, and the ASCII-only form that the
/// `Dropbox-API-Arg` and `Dropbox-API-Result` headers carry.
public enum DropboxJSON {
    /// Escapes every non-ASCII character of JSON text as `\uXXXX` (UTF-16 units, so a
    /// character outside the BMP becomes a surrogate pair). ASCII passes through unchanged,
    /// so JSON text stays valid and means the same.
    public static func asciiEscaped(_ json: String) -> String {
        var out = ""
        out.reserveCapacity(json.utf8.count)
        for unit in json.utf16 {
            if unit < 0x80 {
                out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            } else {
                appendUnicodeEscape(unit, to: &out)
            }
        }
        return out
    }

    /// Appends `value` as a JSON string literal: quotes, backslashes and control characters
    /// escaped; with `asciiOnly`, every non-ASCII character too (for headers). Slashes are
    /// left alone, as Dropbox writes them.
    public static func appendQuoted(_ value: String, to out: inout String, asciiOnly: Bool = false) {
        out += "\""
        // Most names need no escape: appended whole, not a scalar at a time (a listing of
        // 10,000 entries writes 40,000 strings).
        let needsEscape = value.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || (asciiOnly && $0 >= 0x80) }
        guard needsEscape else {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    appendUnicodeEscape(UInt16(scalar.value), to: &out)
                } else if asciiOnly && scalar.value >= 0x80 {
                    for unit in String(scalar).utf16 { appendUnicodeEscape(unit, to: &out) }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// `value` as a JSON string literal.
    public static func quoted(_ value: String, asciiOnly: Bool = false) -> String {
        var out = ""
        appendQuoted(value, to: &out, asciiOnly: asciiOnly)
        return out
    }

    /// An encoder writing Dropbox's style: sorted keys (stable bytes, easy to compare) and
    /// unescaped slashes.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as JSON text for a body.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try encoder().encode(value)
    }

    /// `value` as the ASCII-only JSON text of a `Dropbox-API-Arg` or `Dropbox-API-Result` header.
    public static func headerValue<T: Encodable>(_ value: T) throws -> String {
        asciiEscaped(String(decoding: try encode(value), as: UTF8.self))
    }

    private static let hexDigits = Array("0123456789abcdef".unicodeScalars)

    private static func appendUnicodeEscape(_ unit: UInt16, to out: inout String) {
        out += "\\u"
        for shift in stride(from: 12, through: 0, by: -4) {
            out.unicodeScalars.append(hexDigits[Int((unit >> UInt16(shift)) & 0xF)])
        }
    }
}
