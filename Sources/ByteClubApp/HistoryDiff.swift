import NoteMerge

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

/// The history view's two-way line diff of an old revision against the current text: NoteMerge's
/// Myers diff (the one the three-way merge uses) on the lines as the editor shows them.
public enum HistoryDiff {
    /// The lines that turn `old` into `new`, in order.
    public static func lines(from old: String, to new: String) -> [DiffLine] {
        TwoWayDiff.lines(from: split(old), to: split(new)).map { line in
            switch line.change {
            case .same: return DiffLine(.same, line.text)
            case .added: return DiffLine(.added, line.text)
            case .removed: return DiffLine(.removed, line.text)
            }
        }
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
}
