import Foundation

/// Gathers the header lines curl hands over into the head of the final response.
///
/// curl passes every response it sees: interim ones (`100 Continue`) and, when it follows
/// them, redirects. Those are skipped, so the owner hears of one head only: the one whose
/// body it receives.
struct ResponseHeadParser {
    /// A status line's code and the fields after it, in order, names as sent.
    struct Head {
        var statusCode: Int
        var fields: [(name: String, value: String)]
    }

    /// Whether curl follows redirects, so a redirect with a Location is not final.
    let followsRedirects: Bool
    private var status = 0
    private var fields: [(name: String, value: String)] = []

    init(followsRedirects: Bool) {
        self.followsRedirects = followsRedirects
    }

    /// Takes one line as curl delivers it (CRLF included). Returns the head when the blank
    /// line that ends a final response's head arrives.
    mutating func consume(_ line: String) -> Head? {
        if line.hasPrefix("HTTP/") {
            // A new response starts (after a 100 Continue or a redirect): forget the last one.
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            fields = []
            return nil
        }
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return ended() }
        guard let colon = trimmed.firstIndex(of: ":") else { return nil }
        let name = String(trimmed[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(trimmed[trimmed.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        fields.append((name, value))
        return nil
    }

    private func ended() -> Head? {
        if status < 200 { return nil }
        let isRedirect = [301, 302, 303, 307, 308].contains(status)
        if isRedirect, followsRedirects, fields.contains(where: { $0.name.lowercased() == "location" }) {
            return nil
        }
        return Head(statusCode: status, fields: fields)
    }
}

/// The parts of a `Content-Range` value ("bytes 100-199/200") that resuming needs.
enum ContentRange {
    /// Where the range starts; nil for "bytes */200" and other units.
    static func start(_ value: String) -> Int64? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let range = trimmed.dropFirst(6)
        guard let dash = range.firstIndex(of: "-") else { return nil }
        return Int64(range[..<dash])
    }

    /// The complete length after the slash; nil when unknown ("*").
    static func total(_ value: String) -> Int64? {
        guard let slash = value.lastIndex(of: "/") else { return nil }
        return Int64(value[value.index(after: slash)...])
    }
}
