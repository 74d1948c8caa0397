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
    /// Whether each line's number is drawn in a gutter at the left (on its first row).
    public var showsLineNumbers = false
    /// Whether long lines wrap; off, they run on and the body scrolls sideways.
    public var softWrap = true
    /// Words before the title's markers, e.g. "2/3" for the second of three open notes.
    public var position: String?

    /// Other members' cursors in a live note: a coloured caret and a name tag each.
    public var others: [OtherCursor] = []

    /// Another member's cursor, drawn in the colour its index picks.
    public struct OtherCursor: Sendable, Equatable {
        public var name: String
        public var position: TextBuffer.Position
        public var colour: Int

        public init(name: String, position: TextBuffer.Position, colour: Int) {
            self.name = name
            self.position = position
            self.colour = colour
        }
    }

    /// The members' colours, in turn.
    static let memberColours: [Color] = [.magenta, .cyan, .yellow, .green, .red, .blue]

    /// The most columns of a member's name a tag shows (a longer one ends in "…"): the room
    /// soft-wrapped text keeps for the tags stays small.
    public static let tagNameWidth = 12
    /// The narrowest the body wraps at to keep room for the tags; a narrower pane keeps none.
    static let narrowestWrapForTags = 20

    /// A member's name tag: "◂ ann".
    static func tag(for name: String) -> String { "◂ " + TextWidth.truncate(name, to: tagNameWidth) }

    /// The columns soft-wrapped text leaves free at its right while others' carets are shown:
    /// the widest tag and the blank before it, so every tag fits on its caret's row after the
    /// text, even after a caret at the end of a full row (0 when none, or the pane is too narrow).
    static func tagRoom(for tags: [String], width: Int) -> Int {
        guard let widest = tags.map({ TextWidth.of($0) }).max() else { return 0 }
        return width - (widest + 1) >= narrowestWrapForTags ? widest + 1 : 0
    }

    public init(isModified: Bool = false, banner: String? = nil, titlePlaceholder: String = "Untitled", isFocused: Bool = true,
                lineStyles: (@MainActor @Sendable (_ line: Int, _ characters: [Character]) -> [LineStyle])? = nil) {
        self.isModified = isModified
        self.banner = banner
        self.titlePlaceholder = titlePlaceholder
        self.isFocused = isFocused
        self.lineStyles = lineStyles
    }

    /// The gutter's width for a text of `lineCount` lines: its widest number and a blank.
    public static func gutterWidth(lineCount: Int) -> Int { String(max(1, lineCount)).count + 1 }

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
        if let position { markers.append(position) }
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
        var textArea = bodyArea
        // The replace bar's row of keys goes first when the pane is short: its fields are kept.
        if let bar = state.bar, case let rows = min(bar.height, max(bodyArea.height - 3, bar.mode == .replace ? 2 : 1)),
           bodyArea.height > rows {
            let barArea: Rect
            (textArea, barArea) = bodyArea.splitBottom(rows)
            renderBar(into: canvas, area: barArea, state: &state)
        }

        var gutter = Rect.zero
        if showsLineNumbers, textArea.width > 8 {
            (gutter, textArea) = textArea.splitLeft(Self.gutterWidth(lineCount: state.body.lineCount))
        }
        // Others in a live note: soft-wrapped text keeps room at its right for their name tags,
        // so that each goes on its caret's row, after the text.
        let tags = others.map { Self.tag(for: $0.name) }
        let tagRoom = softWrap ? Self.tagRoom(for: tags, width: textArea.width) : 0
        state.body.setViewport(width: textArea.width - tagRoom, height: textArea.height, softWrap: softWrap)
        state.frames.body = textArea
        // Unwrapped lines scrolled sideways are drawn from further left, clipped to the text.
        let shift = state.body.firstColumn
        let highlights = Highlights(selection: state.body.selection, matches: state.bar?.matches ?? [], theme: theme)
        var styledLine: (index: Int, styles: [LineStyle])?
        // Where each row's text ends, for the others' name tags.
        var rowEnds: [Int] = []
        for (i, row) in state.body.visibleRows().enumerated() {
            if !others.isEmpty { rowEnds.append(textArea.x - shift + TextWidth.of(row.text)) }
            let origin = Point(x: textArea.x - shift, y: textArea.y + i)
            let line = row.position.line
            if !gutter.isEmpty, row.position.row == 0 {
                let number = String(line + 1)
                canvas.put(number, in: Rect(x: gutter.x, y: origin.y, width: gutter.width - 1, height: 1), alignment: .right,
                           style: theme.muted)
            }
            if let lineStyles, styledLine?.index != line { styledLine = (line, lineStyles(line, state.body.lines[line])) }
            let syntax = styledLine?.index == line ? styledLine?.styles ?? [] : []
            if !syntax.isEmpty || highlights.touches(line) {
                drawStyledRow(row, styles: syntax, highlights: highlights, at: origin, clip: textArea, canvas: canvas,
                              line: state.body.lines[line])
            } else {
                canvas.put(row.text, at: origin, style: theme.text, clip: textArea)
            }
        }
        for (other, tag) in zip(others, tags) {
            guard let point = state.body.pointInView(of: other.position) else { continue }
            let colour = Self.memberColours[other.colour % Self.memberColours.count]
            let at = Point(x: textArea.x + min(point.x, textArea.width - 1), y: textArea.y + point.y)
            // The caret: the character under it on the member's colour.
            let line = state.body.lines[other.position.line]
            let under = other.position.offset < line.count && line[other.position.offset] != "\t" ? String(line[other.position.offset]) : " "
            canvas.put(under, at: at, style: Style(foreground: .black, background: colour), clip: textArea)
            // The name tag ("◂ ann") on the caret's row, the wrapped row the caret is drawn on,
            // after the row's text and the caret: never on another row, where it would name
            // the wrong text (issue 68), and never over text. Soft-wrapped, the room kept above
            // makes it fit; a row that runs past an unwrapped view has no tag.
            let width = TextWidth.of(tag)
            let end = point.y < rowEnds.count ? rowEnds[point.y] : textArea.x
            let x = max(end, at.x + 1) + 1
            if x + width <= textArea.maxX {
                canvas.put(tag, in: Rect(x: x, y: at.y, width: width, height: 1), alignment: .left, style: Style(foreground: colour).bold)
            }
        }
        if isFocused, state.focus == .body, state.bar == nil, let cursor = state.body.cursorInView() {
            canvas.cursor = Point(x: textArea.x + min(cursor.x, textArea.width - 1), y: textArea.y + cursor.y)
        }
    }

    /// The find bar: the query with the match count, the replacement, or the line number.
    @MainActor
    private func renderBar(into canvas: any Canvas, area: Rect, state: inout NoteEditorState) {
        guard var bar = state.bar else { return }
        let theme = canvas.theme
        canvas.fill(area, style: theme.text)
        let prompt: String
        switch bar.mode {
        case .find, .replace: prompt = "Find: "
        case .goToLine: prompt = "Go to line (1–\(state.body.lineCount)): "
        }
        let trailer = [bar.summary, bar.note ?? ""].filter { !$0.isEmpty }.joined(separator: " · ")
        var queryArea = area.row(0)
        if !trailer.isEmpty {
            let width = min(TextWidth.of(trailer), max(0, queryArea.width - 10))
            canvas.put(trailer, in: Rect(x: queryArea.maxX - width, y: queryArea.y, width: width, height: 1), alignment: .right,
                       style: bar.note == nil ? theme.accent : theme.error)
            queryArea.width -= min(queryArea.width, width + 1)
        }
        TextInput(prompt: prompt, isFocused: isFocused && bar.field == .query).render(into: canvas, area: queryArea, state: &bar.query)
        if bar.mode == .replace, area.height > 1 {
            TextInput(prompt: "Replace with: ", isFocused: isFocused && bar.field == .replacement)
                .render(into: canvas, area: area.row(1), state: &bar.replacement)
        }
        // The keys stay on screen whatever is typed (a placeholder went once the field had text).
        if let hint = bar.keyHint, area.height > 2 {
            canvas.put(hint, in: area.row(2), alignment: .left, style: theme.muted)
        }
        state.bar = bar
    }
}

/// What the body's text is drawn in, resolved per cell in one place: the selection over a find
/// match over the syntax style (the text's, with the highlighter's ``LineStyle`` spans overlaid).
struct Highlights {
    var selection: Range<TextBuffer.Position>?
    /// Sorted, as ``TextBuffer/matches(of:)`` returns them.
    var matches: [TextBuffer.Match]
    var theme: Theme

    /// Whether anything on `line` is drawn other than plainly.
    func touches(_ line: Int) -> Bool {
        if let selection, selection.lowerBound.line <= line, line <= selection.upperBound.line { return true }
        return firstMatch(onOrAfter: line).map { matches[$0].position.line == line } ?? false
    }

    func style(at position: TextBuffer.Position, syntax: Style) -> Style {
        if let selection, selection.contains(position) { return theme.selection }
        if var i = firstMatch(onOrAfter: position.line) {
            while i < matches.count, matches[i].position.line == position.line, matches[i].position <= position {
                if matches[i].range.contains(position) { return theme.selectionUnfocused }
                i += 1
            }
        }
        return syntax
    }

    /// The index of the first match on `line` or after it (binary search).
    private func firstMatch(onOrAfter line: Int) -> Int? {
        var low = 0, high = matches.count
        while low < high {
            let mid = (low + high) / 2
            if matches[mid].position.line < line { low = mid + 1 } else { high = mid }
        }
        return low < matches.count ? low : nil
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
    /// Draws one wrapped row in runs of equal style. Each cell's style is resolved in one place:
    /// the text's, with every ``LineStyle`` covering it overlaid in order (syntax), then
    /// ``Highlights`` (a find match over that, the selection over all).
    @MainActor
    private func drawStyledRow(_ row: TextBuffer.VisibleRow, styles: [LineStyle], highlights: Highlights, at origin: Point,
                               clip: Rect, canvas: any Canvas, line characters: [Character]) {
        let start = row.start, end = row.end
        guard start < end else { return }
        var cells = Array(repeating: canvas.theme.text, count: end - start)
        for styled in styles {
            let from = max(start, styled.range.lowerBound), to = min(end, styled.range.upperBound)
            guard from < to else { continue }
            for i in from..<to { cells[i - start] = cells[i - start].overlaid(with: styled.style) }
        }
        for i in start..<end {
            cells[i - start] = highlights.style(at: TextBuffer.Position(line: row.position.line, offset: i), syntax: cells[i - start])
        }
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
