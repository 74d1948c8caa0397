/// One line of the history view's diff: kept, added or removed.
public struct DiffLine: Equatable, Sendable {
    public enum Kind: Sendable { case same, added, removed }
    public var kind: Kind
    public var text: String

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }
}

/// The history view's two-way line diff of an old revision against the current text.
///
/// A small longest-common-subsequence diff of its own, behind this one function, until the
/// NoteMerge target offers a public two-way diff (its Myers diff is internal today); then
/// ``lines(from:to:)`` switches to it and nothing else changes. The common head and tail are
/// cut first; a middle too big for the table (over 4 million cells) shows as removed, then
/// added, which is still true, only less fine.
public enum HistoryDiff {
    /// The lines that turn `old` into `new`, in order.
    public static func lines(from old: String, to new: String) -> [DiffLine] {
        let a = split(old), b = split(new)
        var head = 0
        while head < a.count, head < b.count, a[head] == b[head] { head += 1 }
        var tail = 0
        while tail < a.count - head, tail < b.count - head, a[a.count - 1 - tail] == b[b.count - 1 - tail] { tail += 1 }
        let midA = Array(a[head..<(a.count - tail)]), midB = Array(b[head..<(b.count - tail)])
        var result = a[..<head].map { DiffLine(.same, $0) }
        result += middle(midA, midB)
        result += a[(a.count - tail)...].map { DiffLine(.same, $0) }
        return result
    }

    /// Lines as the editor shows them: split at "\n", a "\r" before it dropped.
    static func split(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        if text.hasSuffix("\n") { lines.removeLast() }
        return lines
    }

    private static func middle(_ a: [String], _ b: [String]) -> [DiffLine] {
        if a.isEmpty || b.isEmpty || a.count * b.count > 4_000_000 {
            return a.map { DiffLine(.removed, $0) } + b.map { DiffLine(.added, $0) }
        }
        // lengths[i][j]: the LCS of a[i...] and b[j...], one flat array.
        let width = b.count + 1
        var lengths = [Int32](repeating: 0, count: (a.count + 1) * width)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i * width + j] = a[i] == b[j] ? lengths[(i + 1) * width + j + 1] + 1
                    : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
            }
        }
        var result: [DiffLine] = []
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] {
                result.append(DiffLine(.same, a[i])); i += 1; j += 1
            } else if lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
                result.append(DiffLine(.removed, a[i])); i += 1
            } else {
                result.append(DiffLine(.added, b[j])); j += 1
            }
        }
        result += a[i...].map { DiffLine(.removed, $0) }
        result += b[j...].map { DiffLine(.added, $0) }
        return result
    }
}
