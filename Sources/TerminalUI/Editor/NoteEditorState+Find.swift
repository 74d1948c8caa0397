// The find bar: find in the note as you type (every match highlighted, "3/17"), replace one or
// all, and go to a line. It sits at the bottom of the editor and has the keys while it is open.

extension NoteEditorState {
    /// The bar's state: what it is for, its fields, and the matches of the query.
    public struct FindBar: Sendable, Equatable {
        public enum Mode: Hashable, Sendable { case find, replace, goToLine }
        public enum Field: Hashable, Sendable { case query, replacement }

        public var mode: Mode
        /// What is looked for (or, going to a line, the line number).
        public var query = TextInputState()
        /// What a match is replaced with.
        public var replacement = TextInputState()
        /// Which field has the keys (replacing; otherwise always the query).
        public var field = Field.query
        /// Every match of the query in the body, in text order.
        public internal(set) var matches: [TextBuffer.Match] = []
        /// The match the cursor is on, an index into ``matches``.
        public internal(set) var current: Int?
        /// A word about the last key: "Replaced 17", "No line 99: the note has 20".
        public internal(set) var note: String?
        /// Where the cursor was when the bar opened: typing finds the first match from there.
        var origin: TextBuffer.Position

        init(mode: Mode, origin: TextBuffer.Position) {
            self.mode = mode
            self.origin = origin
        }

        /// "3/17", "no matches", or nothing before a query is typed.
        public var summary: String {
            guard mode != .goToLine, !query.text.isEmpty else { return "" }
            guard let current, !matches.isEmpty else { return "no matches" }
            return "\(current + 1)/\(matches.count)"
        }

        /// The rows the bar takes at the bottom of the editor: replacing, the two fields and a
        /// row of its keys (as nano and micro show theirs).
        public var height: Int { mode == .replace ? 3 : 1 }

        /// The replace bar's keys, as they work from the field being typed in: Enter finds the
        /// next match from Find, and replaces one from Replace with.
        public var keyHint: String? {
            guard mode == .replace else { return nil }
            switch field {
            case .query: return "Enter next match · Tab then Enter one · Alt-A all · Esc close"
            case .replacement: return "Enter one · Alt-A all · Tab back to Find · Esc close"
            }
        }
    }

    /// What the bar's keys do.
    public enum BarAction: Hashable, Sendable { case next, previous, switchField, replaceAll, everyNote, close }

    /// The bar's keys, besides editing its fields (``TextInputState``).
    public static let barBindings = KeyBindings<BarAction>(group: "Find in the note", [
        .init([.enter, .ctrl("n"), .down], .next, "Next match (in Replace with: replace this one)"),
        .init([.ctrl("p"), .up], .previous, "Previous match"),
        .init([.tab], .switchField, "Replace: the other field"),
        .init([.alt("a")], .replaceAll, "Replace all (one undo step)"),
        .init([.ctrl("f")], .everyNote, "Search every note for it"),
        .init([.escape], .close, "Close the bar"),
    ])

    /// Opens the bar for find, replace or go to line; a selection on one line is the query.
    mutating func openBar(_ action: Action) {
        var newBar = FindBar(mode: action == .replace ? .replace : action == .goToLine ? .goToLine : .find,
                             origin: body.selection?.lowerBound ?? body.cursor)
        if newBar.mode != .goToLine {
            let seed = body.selectedText.flatMap { $0.contains("\n") ? nil : $0 } ?? lastQuery
            newBar.query = TextInputState(text: seed)
        }
        bar = newBar
        if newBar.mode != .goToLine { refreshMatches() }
    }

    /// A key while the bar is open.
    mutating func handleBar(_ key: Key) -> NoteEditorOutcome {
        guard var bar else { return .ignored }
        bar.note = nil
        self.bar = bar
        if let undo = Self.bodyBindings.action(for: key), undo == .undo || undo == .redo {
            // Ctrl-Z after Replace all: the body changes under the bar.
            if isReadOnly { return .readOnly }
            let changed = undo == .undo ? body.undo() : body.redo()
            refreshMatches(selecting: false)
            return changed ? .edited : .moved
        }
        if let action = Self.barBindings.action(for: key) {
            return perform(action)
        }
        var field = bar.field == .query ? bar.query : bar.replacement
        let before = field.text
        guard field.handle(key) != .ignored else { return .moved }  // the bar keeps every key
        if bar.mode != .goToLine || field.text.allSatisfy(\.isNumber) || field.text.isEmpty {
            if bar.field == .query { bar.query = field } else { bar.replacement = field }
        }
        self.bar = bar
        if bar.field == .query, bar.mode != .goToLine, before != bar.query.text { refreshMatches() }
        return .moved
    }

    private mutating func perform(_ action: BarAction) -> NoteEditorOutcome {
        guard let bar else { return .ignored }
        switch action {
        case .close:
            self.bar = nil
        case .everyNote:
            guard bar.mode != .goToLine else { return .moved }
            self.bar = nil
            return .searchEveryNote(bar.query.text)
        case .switchField:
            guard bar.mode == .replace else { return .moved }
            self.bar?.field = bar.field == .query ? .replacement : .query
        case .next where bar.mode == .goToLine:
            goToLine(bar.query.text)
        case .next where bar.mode == .replace && bar.field == .replacement:
            return replaceCurrent()
        case .next, .previous:
            step(forward: action == .next)
        case .replaceAll:
            guard bar.mode == .replace else { return .moved }
            if isReadOnly { return .readOnly }
            let count = body.replaceAll(bar.matches, with: bar.replacement.text)
            refreshMatches(selecting: false)
            self.bar?.note = count == 0 ? "Nothing to replace" : "Replaced \(count)"
            return count == 0 ? .moved : .edited
        }
        return .moved
    }

    /// Enter in the go-to-line bar: a number in the note goes there and closes the bar;
    /// anything else says why and keeps what was typed.
    private mutating func goToLine(_ text: String) {
        guard let number = Int(text), number >= 1, number <= body.lineCount else {
            let count = body.lineCount
            bar?.note = text.isEmpty ? "Type a line number (1–\(count))" : "No line \(text): the note has \(count) line\(count == 1 ? "" : "s")"
            return
        }
        body.goToLine(number)
        bar = nil
    }

    /// Replaces the current match and moves to the next.
    private mutating func replaceCurrent() -> NoteEditorOutcome {
        guard let bar, let current = bar.current, current < bar.matches.count else { return .moved }
        if isReadOnly { return .readOnly }
        body.replace(bar.matches[current].range, with: bar.replacement.text)
        self.bar?.origin = body.cursor
        refreshMatches()
        return .edited
    }

    /// Finds the query again after the text changed or the bar opened: the first match at or
    /// after the origin becomes current (and is selected, when `selecting`).
    mutating func refreshMatches(selecting: Bool = true) {
        guard var bar else { return }
        lastQuery = bar.query.text
        bar.matches = body.matches(of: bar.query.text)
        bar.current = bar.matches.isEmpty ? nil : (bar.matches.firstIndex { $0.position >= bar.origin } ?? 0)
        self.bar = bar
        if selecting, let current = bar.current { body.select(from: bar.matches[current].position, to: bar.matches[current].range.upperBound) }
    }

    /// The next or previous match, wrapping at the ends, selected.
    private mutating func step(forward: Bool) {
        guard var bar, !bar.matches.isEmpty else { return }
        let count = bar.matches.count
        let current = bar.current ?? (forward ? count - 1 : 0)
        bar.current = forward ? (current + 1) % count : (current - 1 + count) % count
        let match = bar.matches[bar.current!]
        bar.origin = match.position
        self.bar = bar
        body.select(from: match.position, to: match.range.upperBound)
    }

    /// Ctrl-N / Ctrl-P with the bar closed: the last query's next match after the cursor (or
    /// previous one before the selection), wrapping.
    mutating func findAgain(forward: Bool) {
        let matches = body.matches(of: lastQuery)
        guard !matches.isEmpty else { return }
        let match: TextBuffer.Match
        if forward {
            match = matches.first { $0.position >= body.cursor } ?? matches[0]
        } else {
            let start = body.selection?.lowerBound ?? body.cursor
            match = matches.last { $0.position < start } ?? matches[matches.count - 1]
        }
        body.select(from: match.position, to: match.range.upperBound)
    }
}
