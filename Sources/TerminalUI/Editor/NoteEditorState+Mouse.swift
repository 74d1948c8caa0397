// The mouse in the editor: a click on the body puts the cursor on the character under it, a
// click on the title goes to the title, and the wheel scrolls the body.

extension NoteEditorState {
    /// Where the last frame drew the editor's parts; all `.zero` before the first frame.
    public struct Frames: Hashable, Sendable {
        /// The whole editor pane: the wheel anywhere over it scrolls the body.
        public var editor = Rect.zero
        /// The Title line, its prompt included.
        public var title = Rect.zero
        /// The body's text rows.
        public var body = Rect.zero

        public init(editor: Rect = .zero) { self.editor = editor }
    }

    /// The prompt in front of the title, whose width a click on the title skips.
    static let titlePrompt = "Title: "

    /// A mouse key: `.ignored` outside the pane (the list beside it gets it), `.moved` inside.
    mutating func handleMouse(_ key: Key) -> NoteEditorOutcome {
        guard let point = key.mousePoint, frames.editor.contains(point) else { return .ignored }
        if let rows = key.wheelRows {
            body.scrollView(by: rows)
            return .moved
        }
        if case .pointer(let event) = key, event.action == .drag(.left), let start = dragStart {
            // A drag that began in the body selects from there, even past the body's edges.
            let inBody = Point(x: point.x - frames.body.x, y: point.y - frames.body.y)
            body.select(from: start, to: body.position(atView: inBody))
            return .moved
        }
        guard case .mouse = key else { return .moved }  // releases, other buttons: nothing to do
        dragStart = nil
        if frames.body.contains(point) {
            focus = .body
            body.click(atView: Point(x: point.x - frames.body.x, y: point.y - frames.body.y))
            dragStart = body.cursor
        } else if frames.title.contains(point) {
            let column = point.x - frames.title.x - TextWidth.of(Self.titlePrompt)
            // Unfocused, the title is drawn from its start whatever its scroll was.
            let first = focus == .title ? title.scroll : 0
            focus = .title
            title.cursor = Self.characterIndex(in: title.text, from: first, atColumn: column)
        }
        return .moved
    }

    /// The index of the character drawn at display column `column` of `text` shown from
    /// character `first`; past the end, the end.
    static func characterIndex(in text: String, from first: Int, atColumn column: Int) -> Int {
        guard column > 0 else { return min(first, text.count) }
        var x = 0
        var index = first
        for c in text.dropFirst(first) {
            let width = TextWidth.of(String(c))
            if x + width > column { return index }
            x += width
            index += 1
        }
        return index
    }
}

extension NoteEditorState {
    /// The mouse in the editor, for help (no key to match: they list what the mouse does).
    public static let mouseCommands: [Command] = [
        Command(keys: [], description: "Put the cursor there", group: "Editor", keyLabel: "Click the text"),
        Command(keys: [], description: "Select the text", group: "Editor", keyLabel: "Drag over the text"),
        Command(keys: [], description: "Scroll the note", group: "Editor", keyLabel: "Wheel"),
    ]
}
