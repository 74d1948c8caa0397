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

    public init(isModified: Bool = false, banner: String? = nil, titlePlaceholder: String = "Untitled", isFocused: Bool = true) {
        self.isModified = isModified
        self.banner = banner
        self.titlePlaceholder = titlePlaceholder
        self.isFocused = isFocused
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
        var textArea = bodyArea
        if let bar = state.bar, bodyArea.height > bar.height {
            let barArea: Rect
            (textArea, barArea) = bodyArea.splitBottom(bar.height)
            renderBar(into: canvas, area: barArea, state: &state)
        }

        state.body.setViewport(width: textArea.width, height: textArea.height)
        state.frames.body = textArea
        let highlights = Highlights(selection: state.body.selection, matches: state.bar?.matches ?? [], theme: theme)
        for (i, row) in state.body.visibleRows().enumerated() {
            let origin = Point(x: textArea.x, y: textArea.y + i)
            if highlights.touches(row.position.line) {
                drawHighlighted(row, at: origin, clip: textArea, line: state.body.lines[row.position.line], highlights: highlights, canvas: canvas)
            } else {
                canvas.put(row.text, at: origin, style: theme.text, clip: textArea)
            }
        }
        if isFocused, state.focus == .body, state.bar == nil, let cursor = state.body.cursorInView() {
            canvas.cursor = Point(x: textArea.x + min(cursor.x, textArea.width - 1), y: textArea.y + cursor.y)
        }
    }

    /// A row with selected or found text: drawn in runs of one style each.
    @MainActor
    private func drawHighlighted(_ row: TextBuffer.VisibleRow, at origin: Point, clip: Rect, line: [Character],
                                 highlights: Highlights, canvas: any Canvas) {
        var x = origin.x
        var run = ""
        var runStyle: Style?
        for offset in row.start..<row.end {
            let style = highlights.style(at: TextBuffer.Position(line: row.position.line, offset: offset), syntax: canvas.theme.text)
            if style != runStyle, let current = runStyle {
                x = canvas.put(run, at: Point(x: x, y: origin.y), style: current, clip: clip)
                run = ""
            }
            runStyle = style
            let c = line[offset]
            if c == "\t" { run += String(repeating: " ", count: TextBuffer.tabWidth) } else { run.append(c) }
        }
        if let runStyle, !run.isEmpty { canvas.put(run, at: Point(x: x, y: origin.y), style: runStyle, clip: clip) }
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
            TextInput(prompt: "Replace with: ", placeholder: "Enter replaces · Alt-A all · Tab switches", isFocused: isFocused && bar.field == .replacement)
                .render(into: canvas, area: area.row(1), state: &bar.replacement)
        }
        state.bar = bar
    }
}

/// What the body's text is drawn in, resolved per cell in one place: the selection over a find
/// match over the syntax style the caller gives (plain text today; a highlighter's spans later).
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
