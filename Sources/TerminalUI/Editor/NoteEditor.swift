/// What a key did in the note editor.
///
/// The editor edits and moves by itself; saving and closing involve the network and dialogs,
/// so it hands those back to its owner as ``save`` and ``close``.
public enum NoteEditorOutcome: Hashable, Sendable {
    /// Not an editor key: offer it to someone else.
    case ignored
    /// The title or the body changed.
    case edited
    /// Only the cursor, the scroll position or the focus changed (or a key had nothing to do,
    /// such as Backspace at the start of the text).
    case moved
    /// Ctrl-S: the owner saves (and then calls ``NoteEditorState/markSaved()``). A read-only
    /// note returns ``readOnly`` instead.
    case save
    /// Esc: the owner closes the editor, asking first if ``NoteEditorState/isModified``.
    case close
    /// An editing key in a read-only note; nothing changed.
    case readOnly

    public var eventResult: EventResult { self == .ignored ? .ignored : .consumed }
}

/// The note editor's state: the Title field, the body, which of them has focus, and whether
/// edits are allowed. A value the app keeps between frames; ``NoteEditor`` draws it.
///
/// Keys (also in ``commands``, for help):
/// - anywhere: `Ctrl-S` → ``NoteEditorOutcome/save``, `Esc` → ``NoteEditorOutcome/close``,
///   `Ctrl-T` → the title;
/// - in the title: `Enter`, `Tab` or `↓` → the body, the rest as in ``TextInputState``;
/// - in the body: typing, `Enter`, `Backspace`, `Delete`, arrows, `Home`/`End` and
///   `Ctrl-A`/`Ctrl-E` (line start and end), `Ctrl-Home`/`Ctrl-End`, `PgUp`/`PgDn`, word moves
///   (`Ctrl-←/→`, `Alt-←/→`, `Alt-B`/`Alt-F`), `Ctrl-K`, `Tab` (four spaces), a bracketed paste,
///   `Ctrl-Z`/`Ctrl-Y`.
///
/// A read-only note (one whose bytes are not valid UTF-8) opens in the body; moves work, and
/// keys that would change the title or body, and `Ctrl-S`, return ``NoteEditorOutcome/readOnly``.
public struct NoteEditorState: Sendable {
    /// Which part takes typed keys.
    public enum Focus: Hashable, Sendable { case title, body }

    /// What the editor's keys do.
    public enum Action: Hashable, Sendable {
        case save, close, focusTitle, focusBody
        case left, right, up, down, lineStart, lineEnd, documentStart, documentEnd
        case pageUp, pageDown, wordLeft, wordRight
        case newline, deleteBackward, deleteForward, killLine, indent, undo, redo
    }

    /// The Title field.
    public var title: TextInputState
    /// The body text, with its cursor, scroll position and undo history.
    public var body: TextBuffer
    public var focus: Focus
    /// Refuses edits (the note's bytes are not valid UTF-8 and must not be re-saved damaged).
    public var isReadOnly: Bool
    /// The title at the last ``markSaved()``, for ``isModified``.
    public private(set) var savedTitle: String
    /// Where the last frame drew the whole editor, the Title field and the body; clicks and
    /// the wheel are hit-tested against them (NoteEditorState+Mouse.swift).
    public internal(set) var frames = Frames()

    /// An editor for a note: focus starts in the title for a new note and in the body otherwise
    /// (always in the body when read-only).
    public init(title: String = "", body: String = "", isNew: Bool, isReadOnly: Bool = false) {
        self.title = TextInputState(text: title)
        self.body = TextBuffer(text: body)
        self.focus = isNew && !isReadOnly ? .title : .body
        self.isReadOnly = isReadOnly
        self.savedTitle = title
    }

    /// Whether the title or body differ from what was opened or last saved.
    public var isModified: Bool { body.isModified || title.text != savedTitle }

    /// Takes the current title and body as saved (after the server confirmed the save).
    public mutating func markSaved() {
        savedTitle = title.text
        body.markSaved()
    }

    /// Keys that work whatever has focus.
    public static let bindings = KeyBindings<Action>(group: "Editor", [
        .init([.ctrl("s")], .save, "Save the note"),
        .init([.escape], .close, "Close the editor"),
        .init([.ctrl("t")], .focusTitle, "Edit the title"),
    ])

    /// Keys in the Title field, besides those of ``TextInputState``.
    public static let titleBindings = KeyBindings<Action>(group: "Editor", [
        .init([.enter, .tab, .down], .focusBody, "Title: go to the body"),
    ])

    /// Keys in the body (any other printable character is typed).
    public static let bodyBindings = KeyBindings<Action>(group: "Editor", [
        .init([.left], .left, "Move left"),
        .init([.right], .right, "Move right"),
        .init([.up], .up, "Move up a row"),
        .init([.down], .down, "Move down a row"),
        .init([.home, .ctrl("a")], .lineStart, "Start of the line"),
        .init([.end, .ctrl("e")], .lineEnd, "End of the line"),
        .init([.documentStart], .documentStart, "Start of the note"),
        .init([.documentEnd], .documentEnd, "End of the note"),
        .init([.pageUp], .pageUp, "Page up"),
        .init([.pageDown], .pageDown, "Page down"),
        .init([.wordLeft, .alt("b")], .wordLeft, "Word left", keyLabel: "Ctrl-← / Alt-←"),
        .init([.wordRight, .alt("f")], .wordRight, "Word right", keyLabel: "Ctrl-→ / Alt-→"),
        .init([.enter], .newline, "New line"),
        .init([.backspace], .deleteBackward, "Delete before the cursor"),
        .init([.delete, .ctrl("d")], .deleteForward, "Delete at the cursor"),
        .init([.ctrl("k")], .killLine, "Delete to the end of the line"),
        .init([.tab], .indent, "Insert four spaces"),
        .init([.ctrl("z")], .undo, "Undo"),
        .init([.ctrl("y")], .redo, "Redo"),
    ])

    /// Every editor key, for help.
    public static var commands: [Command] {
        bindings.commands + titleBindings.commands + bodyBindings.commands
    }

    /// Handles a key; see ``NoteEditorOutcome`` for what the owner does with the result.
    public mutating func handle(_ key: Key) -> NoteEditorOutcome {
        if key.isMouse { return handleMouse(key) }
        if let action = Self.bindings.action(for: key) {
            switch action {
            case .save: return isReadOnly ? .readOnly : .save
            case .close: return .close
            default:
                focus = .title
                return .moved
            }
        }
        switch focus {
        case .title: return handleInTitle(key)
        case .body: return handleInBody(key)
        }
    }

    private mutating func handleInTitle(_ key: Key) -> NoteEditorOutcome {
        if Self.titleBindings.action(for: key) != nil {
            focus = .body
            return .moved
        }
        var field = title
        switch field.handle(key) {
        case .ignored: return .ignored
        case .edited:
            if isReadOnly { return .readOnly }
            title = field
            return .edited
        case .moved:
            title = field
            return .moved
        case .submitted:
            focus = .body
            return .moved
        case .cancelled:
            return .close
        }
    }

    private mutating func handleInBody(_ key: Key) -> NoteEditorOutcome {
        let inserted: String?
        switch key {
        case .char(let c): inserted = String(c)
        case .paste(let text): inserted = text
        default: inserted = nil
        }
        if let inserted {
            if isReadOnly { return .readOnly }
            body.insert(inserted)
            return .edited
        }
        guard let action = Self.bodyBindings.action(for: key) else { return .ignored }
        switch action {
        case .left: body.moveLeft()
        case .right: body.moveRight()
        case .up: body.moveUp()
        case .down: body.moveDown()
        case .lineStart: body.moveToLineStart()
        case .lineEnd: body.moveToLineEnd()
        case .documentStart: body.moveToDocumentStart()
        case .documentEnd: body.moveToDocumentEnd()
        case .pageUp: body.pageUp()
        case .pageDown: body.pageDown()
        case .wordLeft: body.moveWordLeft()
        case .wordRight: body.moveWordRight()
        case .newline, .deleteBackward, .deleteForward, .killLine, .indent, .undo, .redo:
            if isReadOnly { return .readOnly }
            return edit(action) ? .edited : .moved
        case .save, .close, .focusTitle, .focusBody:
            return .ignored  // not in the body table
        }
        return .moved
    }

    /// Carries out an editing action on the body; returns whether the text changed.
    private mutating func edit(_ action: Action) -> Bool {
        switch action {
        case .newline: body.insertNewline()
        case .indent: body.insert(String(repeating: " ", count: TextBuffer.tabWidth))
        case .deleteBackward: return body.deleteBackward()
        case .deleteForward: return body.deleteForward()
        case .killLine: return body.killToEndOfLine()
        case .undo: return body.undo()
        case .redo: return body.redo()
        default: return false
        }
        return true
    }
}

/// The editor pane: a header with the Title field and markers, an optional banner, a rule, and
/// the soft-wrapped body with the terminal cursor in whichever part has focus.
///
/// ```
/// Title: Challenge for Ray                                   [+]
/// Restored your unsaved draft from 21 Nov 20:56
/// ────────────────────────────────────────────────────────────
/// Beat this: 你好, Grüße!
/// ```
/// `[+]` shows when the owner says the note is modified, `[read-only]` when the state is.
public struct NoteEditor: Sendable {
    /// Shows `[+]`; usually ``NoteEditorState/isModified``.
    public var isModified: Bool
    /// A line under the title, e.g. "Restored your unsaved draft from …" or why the note is read-only.
    public var banner: String?
    /// Shown dimmed in an empty title.
    public var titlePlaceholder: String
    /// Whether the terminal cursor is placed in the editor (false while a dialog is on top).
    public var isFocused: Bool
    /// The per-line hook: styles for stretches of body line `line` (its clusters given), drawn
    /// over ``Theme/text`` in order, each overlaid on what is under it (``Style/overlaid(with:)``).
    /// Asked only for the lines on screen. Precedence per cell, lowest first: syntax, then find
    /// matches, then the selection; a caller with all three returns them in that order.
    public var lineStyles: (@MainActor @Sendable (_ line: Int, _ characters: [Character]) -> [LineStyle])?

    public init(isModified: Bool = false, banner: String? = nil, titlePlaceholder: String = "Untitled", isFocused: Bool = true,
                lineStyles: (@MainActor @Sendable (_ line: Int, _ characters: [Character]) -> [LineStyle])? = nil) {
        self.isModified = isModified
        self.banner = banner
        self.titlePlaceholder = titlePlaceholder
        self.isFocused = isFocused
        self.lineStyles = lineStyles
    }

    /// Draws into `area`; sets the body's viewport to the rows left for it, which scrolls it to
    /// keep the cursor visible.
    @MainActor
    public func render(into canvas: any Canvas, area: Rect, state: inout NoteEditorState) {
        let area = area.intersection(canvas.bounds)
        state.frames = NoteEditorState.Frames(editor: area)
        guard !area.isEmpty else { return }
        let theme = canvas.theme
        canvas.fill(area, style: theme.text)

        // Header: the title field, then the markers at the right.
        var markers: [String] = []
        if state.isReadOnly { markers.append("[read-only]") }
        if isModified { markers.append("[+]") }
        let marker = markers.joined(separator: " ")
        var (header, rest) = area.splitTop(1)
        if !marker.isEmpty {
            let width = min(TextWidth.of(marker), header.width)
            canvas.put(marker, in: Rect(x: header.maxX - width, y: header.y, width: width, height: 1), alignment: .right,
                       style: state.isReadOnly ? theme.error : theme.accent)
            header.width -= min(header.width, width + 1)
        }
        state.frames.title = header
        let title = TextInput(prompt: "Title: ", placeholder: titlePlaceholder, isFocused: isFocused && state.focus == .title)
        if state.focus == .title {
            title.render(into: canvas, area: header, state: &state.title)
        } else {
            // Show a title that does not fit from its start, not scrolled to where its cursor was.
            var shown = TextInputState(text: state.title.text)
            shown.cursor = 0
            title.render(into: canvas, area: header, state: &shown)
        }

        if let banner, !banner.isEmpty {
            let (line, below) = rest.splitTop(1)
            canvas.put(banner, in: line, alignment: .left, style: theme.accent)
            rest = below
        }
        let (rule, bodyArea) = rest.splitTop(1)
        if !rule.isEmpty {
            canvas.put(String(repeating: "─", count: rule.width), at: rule.origin, style: theme.muted, clip: rule)
        }
        guard !bodyArea.isEmpty else { return }

        state.body.setViewport(width: bodyArea.width, height: bodyArea.height)
        state.frames.body = bodyArea
        var styledLine: (index: Int, styles: [LineStyle])?
        for (i, row) in state.body.visibleRows().enumerated() {
            let origin = Point(x: bodyArea.x, y: bodyArea.y + i)
            if let lineStyles {
                let line = row.position.line
                if styledLine?.index != line { styledLine = (line, lineStyles(line, state.body.lines[line])) }
                if let styles = styledLine?.styles, !styles.isEmpty {
                    drawStyledRow(row, styles: styles, at: origin, clip: bodyArea, canvas: canvas, body: &state.body)
                    continue
                }
            }
            canvas.put(row.text, at: origin, style: theme.text, clip: bodyArea)
        }
        if isFocused, state.focus == .body, let cursor = state.body.cursorInView() {
            canvas.cursor = Point(x: bodyArea.x + min(cursor.x, bodyArea.width - 1), y: bodyArea.y + cursor.y)
        }
    }
}

/// A style for a stretch of one line of the editor's body, in `Character` offsets of the line.
public struct LineStyle: Hashable, Sendable {
    public var range: Range<Int>
    public var style: Style

    public init(_ range: Range<Int>, _ style: Style) {
        self.range = range
        self.style = style
    }
}

extension NoteEditor {
    /// Draws one wrapped row in runs of equal style: each cell's style is the text's with every
    /// ``LineStyle`` covering it overlaid in order.
    @MainActor
    private func drawStyledRow(_ row: TextBuffer.VisibleRow, styles: [LineStyle], at origin: Point, clip: Rect,
                               canvas: any Canvas, body: inout TextBuffer) {
        let layout = body.layout(ofLine: row.position.line)
        let start = layout.rowStarts[row.position.row], end = layout.rowEnd(row.position.row)
        guard start < end else { return }
        var cells = Array(repeating: canvas.theme.text, count: end - start)
        for styled in styles {
            let from = max(start, styled.range.lowerBound), to = min(end, styled.range.upperBound)
            guard from < to else { continue }
            for i in from..<to { cells[i - start] = cells[i - start].overlaid(with: styled.style) }
        }
        let characters = body.lines[row.position.line]
        var x = origin.x
        var runStart = start
        while runStart < end {
            var runEnd = runStart + 1
            while runEnd < end, cells[runEnd - start] == cells[runStart - start] { runEnd += 1 }
            var text = ""
            var width = 0
            for c in characters[runStart..<runEnd] {
                if c == "\t" { text += String(repeating: " ", count: TextBuffer.tabWidth) } else { text.append(c) }
                width += TextBuffer.width(of: c)
            }
            canvas.put(text, at: Point(x: x, y: origin.y), style: cells[runStart - start], clip: clip)
            x += width
            runStart = runEnd
        }
    }
}
