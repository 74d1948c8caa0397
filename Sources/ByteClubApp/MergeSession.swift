import Foundation
import NoteMerge
import Remote
import TerminalUI

/// A three-way merge that has conflicts, shown in the editor pane in place of the editor (the
/// merge view) until every conflict has a choice, or the user picks another way out.
///
/// The editor keeps the user's own text all along (and the draft journal with it); only when
/// the merged text is saved and the server confirmed it does the editor take it. Choices are
/// kept in this value, so a failed save keeps them for a retry.
public struct MergeSession: Sendable, Equatable {
    /// The merge: stable chunks and conflicts, in order.
    public let result: MergeResult
    /// The choice for each conflict, nil while open.
    public internal(set) var choices: [MergeChoice?]
    /// The conflict the keys act on.
    public internal(set) var selected = 0
    /// Their revision, which the merged save updates.
    public let theirs: RemoteEntry
    /// Their revision's text: choices that come to it save nothing (``isTheirs``).
    let theirsText: String
    /// Who made their revision, as the screen names them ("ann", or ``MergeSession/someone``).
    public let who: String
    /// The rev the user's text was based on.
    let baseRev: String
    /// The first row shown (of the rows at the last width drawn).
    var scroll = 0
    /// The rows at one width, rebuilt when the width or a choice changes.
    var layout: Layout?
    /// The rows laid out at one width, after one revision of the choices.
    struct Layout: Equatable, Sendable {
        var width: Int, revision: Int, rows: [MergeRow]
    }
    /// Counts changes of the choices, for the cached rows.
    var revision = 0
    /// The height last drawn, for paging.
    var viewHeight = 10

    /// Who made their revision when the server does not say (a club without members).
    public static let someone = "another member"

    /// Lines of unchanged text shown around each conflict; the rest is folded into one row.
    static let context = 2

    init(result: MergeResult, theirs: RemoteEntry, theirsText: String, who: String, baseRev: String) {
        self.result = result
        self.theirs = theirs
        self.theirsText = theirsText
        self.who = who
        self.baseRev = baseRev
        choices = Array(repeating: nil, count: result.conflictCount)
    }

    public var conflictCount: Int { choices.count }
    /// How many conflicts have no choice yet.
    public var openCount: Int { choices.reduce(0) { $0 + ($1 == nil ? 1 : 0) } }
    public var isResolved: Bool { openCount == 0 }

    /// The merged text with the choices made.
    public var mergedText: String { result.resolved(choices.map { $0 ?? .mine }) }

    /// Whether the choices made come to their revision's text, byte for byte: the server has
    /// the merge already, and saving it would only write their revision again.
    public var isTheirs: Bool { Array(mergedText.utf8) == Array(theirsText.utf8) }

    /// Takes `choice` for the selected conflict, then selects the next open one.
    mutating func choose(_ choice: MergeChoice) {
        guard selected < choices.count else { return }
        choices[selected] = choice
        revision += 1
        if let next = (selected + 1..<choices.count).first(where: { choices[$0] == nil }) ?? (0..<selected).first(where: { choices[$0] == nil }) {
            selected = next
        }
        revealSelected = true
    }

    /// Selects the next (or, with `by: -1`, the previous) conflict, wrapping around.
    mutating func select(by step: Int) {
        guard !choices.isEmpty else { return }
        selected = (selected + step + choices.count) % choices.count
        revision += 1
        revealSelected = true
    }

    /// Scrolls by `rows` (negative: up); the view clamps it when drawn.
    mutating func scroll(by rows: Int) {
        // Saturating: End, End, End before a frame clamps it must not overflow.
        let limit = layout?.rows.count ?? 1 << 20
        scroll = max(0, min(limit, scroll) + max(-limit, min(limit, rows)))
        revealSelected = false
    }

    /// Whether the next frame scrolls the selected conflict into view.
    var revealSelected = true

    // MARK: Rows

    /// One row of the merge view before wrapping: what it shows, and how.
    struct MergeRow: Equatable, Sendable {
        enum Kind: Equatable, Sendable {
            /// Unchanged text (or text only one side changed) around a conflict.
            case context
            /// "⋯ 37 unchanged lines".
            case fold
            /// A conflict's heading.
            case heading(Int)
            /// "yours:", "ann's:".
            case label(Int)
            case mine(Int)
            case theirs(Int)
            /// A line of the text chosen for a conflict.
            case chosen(Int)
        }

        var kind: Kind
        var text: String
    }

    /// The rows at `width` columns (each wrapped to fit), built once per width and choice.
    mutating func rows(width: Int) -> [MergeRow] {
        if let layout, layout.width == width, layout.revision == revision { return layout.rows }
        var rows: [MergeRow] = []
        let textWidth = max(1, width - 2)
        func add(_ kind: MergeRow.Kind, _ line: String) {
            for piece in TextWidth.wrap(line, width: textWidth) { rows.append(MergeRow(kind: kind, text: piece)) }
        }
        func fold(_ count: Int) {
            rows.append(MergeRow(kind: .fold, text: "⋯ \(count) unchanged line\(count == 1 ? "" : "s")"))
        }
        var index = 0
        let context = Self.context
        for (position, chunk) in result.chunks.enumerated() {
            switch chunk {
            case .stable(let text):
                let lines = Self.displayLines(text)
                let isFirst = position == 0, isLast = position == result.chunks.count - 1
                let head = isFirst ? 0 : context, tail = isLast ? 0 : context
                if lines.count <= head + tail + 1 {
                    for line in lines { add(.context, line) }
                } else {
                    for line in lines.prefix(head) { add(.context, line) }
                    fold(lines.count - head - tail)
                    for line in lines.suffix(tail) { add(.context, line) }
                }
            case .conflict(let conflict):
                rows.append(MergeRow(kind: .heading(index), text: heading(index)))
                if let choice = choices[index] {
                    let lines = Self.displayLines(MergeResult.take(conflict, choice, lineEnding: result.lineEnding))
                    if lines.isEmpty { rows.append(MergeRow(kind: .label(index), text: "(no lines)")) }
                    for line in lines { add(.chosen(index), line) }
                } else {
                    rows.append(MergeRow(kind: .label(index), text: "yours:"))
                    let mine = Self.displayLines(conflict.mine)
                    if mine.isEmpty { rows.append(MergeRow(kind: .label(index), text: "(deleted)")) }
                    for line in mine { add(.mine(index), line) }
                    rows.append(MergeRow(kind: .label(index), text: "\(TerminalSafe.escape(who))'s:"))
                    let theirs = Self.displayLines(conflict.theirs)
                    if theirs.isEmpty { rows.append(MergeRow(kind: .label(index), text: "(deleted)")) }
                    for line in theirs { add(.theirs(index), line) }
                }
                index += 1
            }
        }
        layout = Layout(width: width, revision: revision, rows: rows)
        return rows
    }

    /// "Conflict 1 of 2", with the choice made.
    func heading(_ index: Int) -> String {
        let title = "Conflict \(index + 1) of \(choices.count)"
        switch choices[index] {
        case nil: return title
        case .mine?: return title + ": yours"
        case .theirs?: return title + ": \(TerminalSafe.escape(who))'s"
        case .both?: return title + ": both"
        }
    }

    /// The lines of a chunk as shown: without their endings, tabs as spaces, control
    /// characters made visible.
    static func displayLines(_ text: String) -> [String] {
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { bytes -> String in
            var line = Substring(bytes)
            if line.utf8.last == 0x0D { line = Substring(line.utf8.dropLast()) }
            return String(line).replacingOccurrences(of: "\t", with: String(repeating: " ", count: TextBuffer.tabWidth))
        }
        // Every line ends in a newline: the piece after the last one is empty.
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}
