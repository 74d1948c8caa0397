/// What a key did to a text input.
public enum TextInputOutcome: Hashable, Sendable {
    case ignored
    /// The text changed.
    case edited
    /// Only the cursor moved.
    case moved
    /// Enter.
    case submitted
    /// Esc.
    case cancelled

    public var eventResult: EventResult { self == .ignored ? .ignored : .consumed }
}

/// The text and cursor of a one-line input, kept by its owner between frames.
///
/// The cursor counts `Character`s (grapheme clusters), so Backspace removes a whole "é" or
/// flag emoji, and movement never lands inside one.
public struct TextInputState: Hashable, Sendable {
    public var text: String {
        didSet { cursor = min(cursor, text.count) }
    }
    /// The cursor position in `Character`s, `0...text.count`.
    public var cursor: Int {
        didSet { cursor = min(max(0, cursor), text.count) }
    }
    /// The first `Character` shown; ``TextInput`` scrolls it to keep the cursor visible.
    public var scroll = 0

    /// An input holding `text` with the cursor at its end.
    public init(text: String = "") {
        self.text = text
        self.cursor = text.count
    }

    /// What the editing keys do.
    public enum Action: Hashable, Sendable {
        case left, right, home, end, deleteBackward, deleteForward, deleteToStart, deleteToEnd, deleteWord, submit, cancel
    }

    /// The editing keys, for help (any other character is inserted).
    public static let bindings = KeyBindings<Action>(group: "Text input", [
        .init([.left], .left, "Move left"),
        .init([.right], .right, "Move right"),
        .init([.home, .ctrl("a")], .home, "Start of line"),
        .init([.end, .ctrl("e")], .end, "End of line"),
        .init([.backspace], .deleteBackward, "Delete before the cursor"),
        .init([.delete, .ctrl("d")], .deleteForward, "Delete at the cursor"),
        .init([.ctrl("u")], .deleteToStart, "Delete to the start"),
        .init([.ctrl("k")], .deleteToEnd, "Delete to the end"),
        .init([.ctrl("w")], .deleteWord, "Delete the word before the cursor"),
        .init([.enter], .submit, "Accept"),
        .init([.escape], .cancel, "Cancel"),
    ])

    private func index(_ offset: Int) -> String.Index { text.index(text.startIndex, offsetBy: offset) }

    /// Pasted text for a one-line field: trailing line breaks dropped (a copied path usually
    /// ends in one), the others turned into spaces.
    public static func oneLine(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last.isNewline { text.removeLast() }
        return text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
    }

    /// Inserts `string` at the cursor and moves the cursor after it.
    public mutating func insert(_ string: String) {
        let before = text.count
        text.insert(contentsOf: string, at: index(cursor))
        // Counted from the change in length: a combining mark joins the Character before it.
        cursor += text.count - before
    }

    public mutating func handle(_ key: Key, bindings: KeyBindings<Action> = TextInputState.bindings) -> TextInputOutcome {
        if case .char(let c) = key {
            insert(String(c))
            return .edited
        }
        if case .paste(let text) = key {
            insert(Self.oneLine(text))
            return .edited
        }
        guard let action = bindings.action(for: key) else { return .ignored }
        switch action {
        case .left:
            cursor -= 1
            return .moved
        case .right:
            cursor += 1
            return .moved
        case .home:
            cursor = 0
            return .moved
        case .end:
            cursor = text.count
            return .moved
        case .deleteBackward:
            guard cursor > 0 else { return .moved }
            // Move first: shortening the text would otherwise clamp the cursor before the step back.
            cursor -= 1
            text.remove(at: index(cursor))
        case .deleteForward:
            guard cursor < text.count else { return .moved }
            text.remove(at: index(cursor))
        case .deleteToStart:
            let end = index(cursor)
            cursor = 0
            text.removeSubrange(..<end)
        case .deleteToEnd:
            text.removeSubrange(index(cursor)...)
        case .deleteWord:
            var start = cursor
            let characters = Array(text)
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            let range = index(start)..<index(cursor)
            cursor = start
            text.removeSubrange(range)
        case .submit:
            return .submitted
        case .cancel:
            return .cancelled
        }
        return .edited
    }
}

/// A one-line text field: optional prompt, the text scrolled so the cursor shows, and the
/// terminal cursor placed in it when focused.
public struct TextInput: Sendable {
    /// Shown before the text, e.g. "Path: ".
    public var prompt: String
    /// Shown dimmed when the text is empty.
    public var placeholder: String
    public var isFocused: Bool

    public init(prompt: String = "", placeholder: String = "", isFocused: Bool = true) {
        self.prompt = prompt
        self.placeholder = placeholder
        self.isFocused = isFocused
    }

    @MainActor
    public func render(into canvas: any Canvas, area: Rect, state: inout TextInputState) {
        let line = area.row(0).intersection(canvas.bounds)
        guard !line.isEmpty else { return }
        let theme = canvas.theme
        var x = line.x
        if !prompt.isEmpty { x = canvas.put(prompt, at: line.origin, style: theme.text.bold, clip: line) }
        let field = Rect(x: x, y: line.y, width: line.maxX - x, height: 1)
        guard !field.isEmpty else { return }
        canvas.fill(field, style: theme.input)
        if state.text.isEmpty {
            canvas.put(placeholder, at: field.origin, style: theme.inputPlaceholder, clip: field)
            if isFocused { canvas.cursor = field.origin }
            state.scroll = 0
            return
        }
        let characters = Array(state.text)
        state.scroll = Self.scroll(for: characters, cursor: state.cursor, current: state.scroll, width: field.width)
        var cursorX = field.x
        var cx = field.x
        for (i, c) in characters.enumerated().dropFirst(state.scroll) {
            if i == state.cursor { cursorX = cx }
            cx = canvas.put(String(c), at: Point(x: cx, y: field.y), style: theme.input, clip: field)
            if cx >= field.maxX { break }
        }
        if state.cursor >= characters.count { cursorX = cx }
        if isFocused, field.contains(Point(x: cursorX, y: field.y)) { canvas.cursor = Point(x: cursorX, y: field.y) }
    }

    /// The first visible `Character` so that the cursor (which needs a cell of its own at the
    /// end) is inside `width` columns, moving the view as little as possible.
    static func scroll(for characters: [Character], cursor: Int, current: Int, width: Int) -> Int {
        guard width > 1 else { return cursor }
        let widths = characters.map { TextWidth.of(String($0)) }
        var scroll = min(current, cursor)
        func span(_ from: Int, _ to: Int) -> Int { widths[from..<to].reduce(0, +) }
        // The cursor cell is one column, or the width of the character under it.
        let cursorWidth = cursor < widths.count ? max(1, widths[cursor]) : 1
        while scroll < cursor, span(scroll, cursor) + cursorWidth > width { scroll += 1 }
        // Scroll back when there is room again (after deleting, say), keeping the cursor in view.
        while scroll > 0, span(scroll - 1, characters.count) + 1 <= width { scroll -= 1 }
        return scroll
    }
}
