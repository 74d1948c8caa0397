// Find and replace in the text, and go to a line.

extension TextBuffer {
    /// One place a search found: where it starts and how many `Character`s it covers.
    public struct Match: Hashable, Sendable {
        public var position: Position
        public var length: Int

        public init(_ position: Position, length: Int) {
            self.position = position
            self.length = length
        }

        /// The matched span.
        public var range: Range<Position> { position..<Position(line: position.line, offset: position.offset + length) }
    }

    /// Every place `query` occurs, in text order, case and accents ignored (``TextSearch``).
    /// A query never spans lines.
    public func matches(of query: String) -> [Match] {
        guard !query.isEmpty, !query.contains("\n") else { return [] }
        var result: [Match] = []
        for (number, line) in lines.enumerated() where !line.isEmpty {
            for found in TextSearch.occurrences(of: query, in: String(line)) {
                result.append(Match(Position(line: number, offset: found.offset), length: found.length))
            }
        }
        return result
    }

    /// Replaces every one of `matches` (as ``matches(of:)`` returned them, in order, for this
    /// text) with `replacement`, as one undo step; the cursor goes to the end of the first.
    ///
    /// - Returns: how many were replaced.
    @discardableResult
    public mutating func replaceAll(_ matches: [Match], with replacement: String) -> Int {
        guard let first = matches.first, let last = matches.last, !replacement.contains("\n") else { return 0 }
        var newLines: [[Character]] = []
        var index = 0
        for number in first.position.line...last.position.line {
            var line: [Character] = []
            var from = 0
            let old = lines[number]
            while index < matches.count, matches[index].position.line == number {
                let match = matches[index]
                line += old[from..<match.position.offset]
                line += Array(replacement)
                from = match.position.offset + match.length
                index += 1
            }
            line += old[from...]
            // Re-segmented: the replacement may join the clusters beside it.
            newLines.append(Array(String(line)))
        }
        let after = Position(line: first.position.line, offset: first.position.offset + replacement.count)
        replace(lines: first.position.line..<(last.position.line + 1), with: newLines, cursor: after, kind: .other)
        return matches.count
    }

    /// Puts the cursor at the start of line `number` (counted from 1), clamped to the text.
    public mutating func goToLine(_ number: Int) {
        moveCursor(to: Position(line: number - 1, offset: 0))
    }
}
