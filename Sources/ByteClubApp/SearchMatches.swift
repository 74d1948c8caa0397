import Foundation
import TerminalUI

/// The matches of a search in the note it opened, which `n` and `N` step through.
///
/// The editor is in "search hits" mode while the session holds one: `n`/`N` move to the next or
/// previous match (wrapping at the ends) instead of being typed, and `Esc` goes back to the
/// results. The first edit ends the mode (that key is typed as usual), so the note is never
/// changed by a key meant to move, and typing an `n` needs no more than an edit first.
public struct SearchMatches: Equatable, Sendable {
    /// One match: where it starts, in the editor's coordinates, and how many `Character`s long.
    public struct Match: Equatable, Sendable {
        public var position: TextBuffer.Position
        public var length: Int

        public init(_ position: TextBuffer.Position, length: Int) {
            self.position = position
            self.length = length
        }
    }

    /// What the keys of search hits mode do.
    public enum Action: Hashable, Sendable { case next, previous, back }

    /// The keys of search hits mode (they drive both the keys and help).
    public static let bindings = KeyBindings<Action>(group: "Search hits", [
        .init([.char("n")], .next, "Next match (until an edit or a cursor move)"),
        .init([.char("N")], .previous, "Previous match"),
        .init([.escape], .back, "Back to the search results (the note unchanged)"),
    ])

    /// What is looked for (the texts the index matched), for the banner.
    public var texts: [String]
    public private(set) var matches: [Match] = []
    /// The match the cursor is on (an index into ``matches``).
    public private(set) var current = 0

    /// The matches of `texts` in `body`, ignoring case and accents as the index does.
    public init(texts: [String], in body: String) {
        self.texts = texts
        matches = Self.find(texts, in: body)
    }

    /// Every place one of `texts` occurs in `body`, in text order; overlapping ones count once.
    public static func find(_ texts: [String], in body: String) -> [Match] {
        let needles = texts.filter { !$0.isEmpty }
        guard !needles.isEmpty else { return [] }
        var found: [Match] = []
        for (number, line) in body.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var inLine: [Match] = []
            for needle in needles {
                for found in TextSearch.occurrences(of: needle, in: line) {
                    inLine.append(Match(TextBuffer.Position(line: number, offset: found.offset), length: found.length))
                }
            }
            inLine.sort { $0.position < $1.position }
            for match in inLine {
                if let last = found.last, last.position.line == match.position.line,
                   match.position.offset < last.position.offset + last.length { continue }
                found.append(match)
            }
        }
        return found
    }

    /// Puts the current match on the one at or after `line`:`column` (the index's hit), or the
    /// first one; returns it.
    public mutating func start(atLine line: Int?, column: Int) -> Match? {
        guard !matches.isEmpty else { return nil }
        if let line {
            let target = TextBuffer.Position(line: line, offset: column)
            current = matches.firstIndex { $0.position >= target } ?? 0
        } else {
            current = 0
        }
        return matches[current]
    }

    /// `n`: the next match after the current one, from the last back to the first.
    public mutating func next() -> Match? {
        guard !matches.isEmpty else { return nil }
        current = (current + 1) % matches.count
        return matches[current]
    }

    /// `N`: the match before the current one, from the first round to the last.
    public mutating func previous() -> Match? {
        guard !matches.isEmpty else { return nil }
        current = (current - 1 + matches.count) % matches.count
        return matches[current]
    }

    /// "match 2 of 5".
    public var summary: String {
        matches.isEmpty ? "no match in the text" : "match \(current + 1) of \(matches.count)"
    }
}
