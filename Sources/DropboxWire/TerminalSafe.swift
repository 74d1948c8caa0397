import Foundation

/// The one sanitizer for text from the network that reaches a terminal.
///
/// A name or an error body from a server may hold `ESC ] 0 ; … BEL` (retitles the terminal),
/// `ESC [ 2 J` (clears it), OSC 52 (writes the clipboard) or their 8-bit C1 forms (U+009B is
/// CSI). Every control character, C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F), is
/// shown as a `\xHH` escape, as `ls -b`, git and Python's `repr` show them: `\x1b`, `\x07`,
/// `\x9b`, and `\x0a` for a newline, so one message stays one line. Bidi formatting characters
/// (``isBidiControl(_:)``) are shown as `\u202e`. Everything else passes through, backslashes
/// included: escaping is idempotent, and a message escaped twice reads the same.
///
/// The terminal UI draws control characters as U+FFFD instead (TerminalUI's `TextWidth`);
/// JSON output keeps the exact text, escaped by the encoder (``jsonText(_:)``).
public enum TerminalSafe {
    /// C0, DEL or C1: the characters a terminal may act on rather than show.
    @inlinable
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (value >= 0x7F && value < 0xA0)
    }

    /// The bidirectional formatting characters: embeddings and overrides (U+202A–U+202E),
    /// isolates (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C). A terminal that lays
    /// out bidi text lets a name holding U+202E (RIGHT-TO-LEFT OVERRIDE) run the rest of the
    /// message backwards, so `Deleted "x‮txt.exe"` can read as something else ("Trojan Source").
    @inlinable
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// Whether `text` holds a control or bidi formatting character.
    public static func needsEscaping(_ text: String) -> Bool {
        text.unicodeScalars.contains { isControl($0) || isBidiControl($0) }
    }

    /// `text` with every control character shown as `\xHH` and every bidi formatting character
    /// as `\uHHHH` (`\u202e`), as Python's `repr` shows them.
    public static func escape(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 16)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += "\\x"
                out.unicodeScalars.append(hexDigits[Int(scalar.value >> 4)])
                out.unicodeScalars.append(hexDigits[Int(scalar.value & 0xF)])
            } else if isBidiControl(scalar) {
                out += "\\u"
                for shift in stride(from: 12, through: 0, by: -4) {
                    out.unicodeScalars.append(hexDigits[Int((scalar.value >> UInt32(shift)) & 0xF)])
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// JSON text that means exactly the same, with DEL and C1 characters (which JSON encoders
    /// leave raw) escaped as `\u00HH` too, so the JSON is safe to print. C0 characters are
    /// escaped by every encoder already. These characters can only occur inside strings, where
    /// the escape is the same character.
    public static func jsonText(_ json: Data) -> Data {
        let text = String(decoding: json, as: UTF8.self)
        guard text.unicodeScalars.contains(where: { $0.value >= 0x7F && $0.value < 0xA0 }) else { return json }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 16)
        for scalar in text.unicodeScalars {
            if scalar.value >= 0x7F && scalar.value < 0xA0 {
                out += "\\u00"
                out.unicodeScalars.append(hexDigits[Int(scalar.value >> 4)])
                out.unicodeScalars.append(hexDigits[Int(scalar.value & 0xF)])
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return Data(out.utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".unicodeScalars)
}
