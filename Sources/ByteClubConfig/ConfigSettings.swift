import TOMLKit

/// Writes a top-level `key = value` of config.toml as text, so everything else in the file (the
/// user's comments, blank lines, order, the remotes' tables) stays exactly as it was: the app
/// keeps a setting toggled with a key (`line_numbers`, `soft_wrap`) this way.
public enum ConfigSettings {
    /// `text` with the top-level `key` set to `value` (a TOML literal: `true`, `"md"`). The line
    /// that holds the key now is replaced in place, a comment after it kept; a key not there
    /// goes before the first table (where a top-level key must be), after any lines of comments
    /// that open the file. The result is checked to parse with `key` at `value`; nil when it
    /// would not (a key written in a form this does not recognise, such as a dotted or quoted one).
    public static func setting(_ key: String, to value: String, in text: String) -> String? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var firstTable: Int?
        var replaced = false
        for (index, line) in lines.enumerated() {
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.hasPrefix("[") {
                firstTable = index
                break
            }
            guard trimmed.hasPrefix(key) else { continue }
            let rest = trimmed.dropFirst(key.count).drop(while: { $0 == " " || $0 == "\t" })
            guard rest.hasPrefix("=") else { continue }
            // A comment after the value stays (`line_numbers = true # mine`).
            let comment = rest.range(of: " #").map { String(rest[$0.lowerBound...]) } ?? ""
            lines[index] = "\(key) = \(value)" + comment
            replaced = true
            break
        }
        if !replaced {
            let end = firstTable ?? lines.count
            // After the comments and blanks that open the file, before anything else.
            var at = 0
            while at < end, lines[at].drop(while: { $0 == " " || $0 == "\t" }).first.map({ $0 == "#" }) ?? false { at += 1 }
            if at < end, firstTable == nil { at = end }
            lines.insert("\(key) = \(value)", at: at)
        }
        let result = lines.joined(separator: "\n") + "\n"
        guard let document = try? TOMLTable(string: result), let written = document[key],
              let expected = try? TOMLTable(string: "\(key) = \(value)\n")[key], "\(written)" == "\(expected)" else { return nil }
        return result
    }
}
