import TOMLKit

/// Finds the line a key of config.toml is on, for messages.
///
/// TOMLKit gives a line only for syntax errors, not for the keys of a parsed document. Rather
/// than guess with a second, hand-written reading of TOML (which quoted keys, dotted keys and
/// multi-line strings would fool), this asks the real parser: the line of a key is the first
/// line `n` such that the document's first `n` lines parse and hold that key. A table's line is
/// its `[header]` (or the first dotted key that makes it). A value spanning lines is found at
/// its last line, where the prefix first parses. Runs only when there is a problem to report,
/// on a small file, so its quadratic cost does not matter.
public enum ConfigLines {
    /// The 1-based line on which `path` (e.g. `["remote", "club", "url"]`) first exists, or nil.
    public static func line(of path: [String], in text: String) -> Int? {
        guard !path.isEmpty else { return nil }
        var prefix = ""
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            prefix += line
            prefix += "\n"
            // A prefix that stops inside a multi-line string or array does not parse; go on.
            guard let document = try? TOMLTable(string: prefix) else { continue }
            if contains(path, in: document) { return index + 1 }
        }
        return nil
    }

    private static func contains(_ path: [String], in document: TOMLTable) -> Bool {
        var table = document
        for (depth, key) in path.enumerated() {
            guard let value = table[key] else { return false }
            if depth == path.count - 1 { return true }
            guard let inner = value.table else { return false }
            table = inner
        }
        return false
    }
}
