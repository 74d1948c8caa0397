import Markdown
import Remote
import TerminalUI

/// The rendered view of the open note: a layer over the Notes tab (between the tab bar and
/// the status bar) that draws the note as ``RenderedNote`` lays it out from the parse tree,
/// its club photos inside, and the notes that link to it under it.
///
/// It draws ``AppState/note`` and ``AppState/noteView`` and writes back only view state
/// (scroll, the picked link); opening links, photos and closing go to its
/// ``NoteViewController``. The layout is kept between frames, by the note's version and the
/// width, so scrolling never lays out again.
@MainActor
final class NoteViewLayer: Layer {
    enum Action: Hashable, Sendable {
        case up, down, pageUp, pageDown, top, bottom, left, right, nextLink, previousLink, open, back, edit, close
    }

    static let bindings = KeyBindings<Action>(group: "Rendered view", [
        .init([.up, .char("k")], .up, "Scroll up a row", keyLabel: "↑ k"),
        .init([.down, .char("j")], .down, "Scroll down a row", keyLabel: "↓ j"),
        .init([.pageUp, .char("b")], .pageUp, "Page up", keyLabel: "PgUp b"),
        .init([.pageDown, .char(" ")], .pageDown, "Page down", keyLabel: "PgDn Space"),
        .init([.home, .char("g")], .top, "Top of the note", keyLabel: "Home g"),
        .init([.end, .char("G")], .bottom, "End of the note", keyLabel: "End G"),
        .init([.left, .char("h")], .left, "Scroll wide tables left", keyLabel: "← h"),
        .init([.right, .char("l")], .right, "Scroll wide tables right", keyLabel: "→ l"),
        .init([.tab], .nextLink, "Next link or photo"),
        .init([.backTab], .previousLink, "Previous link or photo"),
        .init([.enter], .open, "Follow the link (asks before a web address) / open the photo"),
        // The editor's key for it (LinksController): from the view too, and back to the view.
        .init([.ctrl("o")], .back, "Back to the note the last followed link left"),
        .init([.alt("v"), .char("e")], .edit, "Rendered view off: edit the note", keyLabel: "Alt-V / e"),
        .init([.escape, .char("q")], .close, "Close the view", keyLabel: "Esc q"),
    ])

    let model: AppModel
    unowned let controller: NoteViewController
    /// The layouts of the open note (a big one's whole layout is made off the UI queue).
    let layouts = NoteViewLayouts()
    /// Whether the last layout drawn was only a window of the note: when the whole one comes,
    /// the scroll moves to the same source line in it.
    private var shownWindow: RenderedNote?
    /// The rows of the last frame's text area, for the keys (a page) and clicks.
    private(set) var textArea = Rect.zero
    /// Photos turned into cells, by photo, size and color depth.
    var cellCache: [String: CellImage] = [:]
    /// The picture links of the last layout made: what ``knownPictures(of:)`` looks at.
    var lastPictureLinks: [RenderedLink] = []

    init(model: AppModel, controller: NoteViewController) {
        self.model = model
        self.controller = controller
        layouts.onReady = { [weak controller] in controller?.context.compositor.setNeedsRedraw() }
    }

    /// The open note laid out `width` cells wide (from the cache when nothing changed).
    func rendered(width: Int) -> RenderedNote? {
        guard let session = model.state.note, session.stage != .loading else { return nil }
        var options = RenderOptions(folder: controller.folder, pictureRows: Self.pictureRows(width: width), plain: !session.isMarkdown)
        options.cellWidth = { TextWidth.of($0) }
        options.path = session.entry?.path
        // The notes it embeds, as this machine has them now (fetched ones redraw it: the version).
        let embeds = session.isMarkdown ? controller.embeddedNotes(of: session) : [:]
        if !embeds.isEmpty { options.embeds = { (link: NoteLink) -> EmbeddedNote? in embeds[link.destination.lowercased()] } }
        // Pictures at their size and those that cannot be drawn in one row: a change in what is
        // known of them (a thumbnail failed, a sized one's aspect ratio arrived) lays out again.
        let cell = controller.graphics?.cellSize ?? Size(width: 10, height: 20)
        (options.cellPixelWidth, options.cellPixelHeight) = (cell.width, cell.height)
        let base = "\(session.draftID)\n\(session.version)\n\(session.generation)\n\(width)\n\(session.isMarkdown)\n\(controller.embedsVersion)\n\(cell.width)x\(cell.height)"
        let state = model.state.noteView
        let start = state?.startAtSourceLine ?? shownWindow.flatMap { window in
            window.lines.indices.contains(state?.scroll ?? 0) ? window.lines[state?.scroll ?? 0].sourceLine : nil
        } ?? 0
        let make = { (known: [String: KnownPicture]) -> NoteViewLayouts.Layout in
            options.knownPictures = known
            return self.layouts.layout(key: base + Self.describe(known), lines: session.editor.body.lineClusters, startLine: start,
                                       rows: max(10, self.textArea.height), width: width, options: options)
        }
        // What is known of the last layout's pictures; a note whose pictures are not those
        // (another note, an edit) is laid out again at once with what is known of its own.
        let known = knownPictures(of: lastPictureLinks)
        var layout = make(known)
        var links = layout.note.links.filter { $0.link.isImage }
        if links != lastPictureLinks {
            let again = knownPictures(of: links)
            if again != known {
                layout = make(again)
                links = layout.note.links.filter { $0.link.isImage }
            }
        }
        lastPictureLinks = links
        if let window = shownWindow, !layout.isWindow {
            // The whole note came in: the same place in it, the link picked in the window forgotten.
            shownWindow = nil
            let line = window.lines.indices.contains(state?.scroll ?? 0) ? window.lines[state?.scroll ?? 0].sourceLine : 0
            let row = layout.note.lines.firstIndex { $0.sourceLine >= line } ?? 0
            model.updateQuietly {
                $0.noteView?.scroll = row
                $0.noteView?.selectedLink = nil
            }
        } else if layout.isWindow {
            shownWindow = layout.note
        }
        return layout.note
    }

    /// A photo fitted to the width, panoramas being about 4:1 and a cell about 1:2.
    static func pictureRows(width: Int) -> Int { max(4, min(16, width / 8)) }

    // MARK: Drawing

    func render(into canvas: any Canvas, area: Rect) {
        let (_, belowTabs) = area.splitTop(1)
        let (pane, _) = belowTabs.splitBottom(1)
        canvas.fill(pane, style: canvas.theme.text)
        let (titleRow, body) = pane.splitTop(1)
        let text = body.inset(left: 1, right: 1)
        textArea = text
        let name = model.state.note.map { TerminalSafe.escape($0.fileName) } ?? ""
        canvas.put("▤ " + name + " · Rendered view · Alt-V edit · Tab links · Esc close", in: titleRow.inset(left: 1, right: 1),
                   alignment: .left, style: canvas.theme.header)
        guard let session = model.state.note else {
            canvas.put("The note is closed · Esc", in: text.row(text.height / 2), alignment: .center, style: canvas.theme.muted)
            return
        }
        guard session.stage != .loading, let note = rendered(width: text.width) else {
            canvas.put("Opening \(TerminalSafe.escape(session.entry?.name ?? ""))…", in: text.row(text.height / 2), alignment: .center, style: canvas.theme.muted)
            return
        }
        var state = model.state.noteView ?? NoteViewState()
        if let line = state.startAtSourceLine {
            let row = state.startAtTop ? note.lines.firstIndex { $0.sourceLine >= line } : note.lines.lastIndex { $0.sourceLine <= line }
            state.scroll = max(0, (row ?? 0) - (state.startAtTop ? 0 : 5))
            state.startAtSourceLine = nil
            state.startAtTop = false
            model.updateQuietly { [state] in $0.noteView = state }
        }
        let extra = backlinkRows(state)
        let count = note.lines.count + extra.count
        let scroll = max(0, min(state.scroll, count - text.height))
        if scroll != state.scroll { model.updateQuietly { $0.noteView?.scroll = scroll } }
        for y in 0..<text.height where scroll + y < count {
            let index = scroll + y
            let line = index < note.lines.count ? note.lines[index] : extra[index - note.lines.count]
            draw(line, note: note, state: state, at: Point(x: text.x, y: text.y + y), width: text.width, canvas: canvas)
        }
        drawPictures(note, scroll: scroll, in: text, canvas: canvas)
    }

    /// The rows under the note's: its backlinks (kept apart: a big note's rows are not copied
    /// each frame).
    func backlinkRows(_ state: NoteViewState) -> [RenderedLine] {
        var rows = [RenderedLine()]
        rows.append(RenderedLine(runs: [RenderedRun("Backlinks", style: [.heading, .strong])]))
        if state.backlinks.isEmpty {
            rows.append(RenderedLine(runs: [RenderedRun("No notes link here", style: .muted)]))
        }
        for backlink in state.backlinks {
            let title = TerminalSafe.escape(backlink.title)
            let context = TerminalSafe.escape(backlink.context)
            rows.append(RenderedLine(runs: [RenderedRun("← "), RenderedRun(title, style: .link), RenderedRun(" · " + context, style: .muted)]))
        }
        return rows
    }

    private func draw(_ line: RenderedLine, note: RenderedNote, state: NoteViewState, at origin: Point, width: Int, canvas: any Canvas) {
        let clip = Rect(x: origin.x, y: origin.y, width: width, height: 1)
        var x = origin.x - (line.scrolls ? min(state.sideways, max(0, line.width - width)) : 0)
        for run in line.runs {
            var style = Self.style(run.style, theme: canvas.theme)
            if let link = run.link, note.links.indices.contains(link) {
                if !controller.exists(note.links[link].target) { style = canvas.theme.error.adding(.underline) }
                if link == state.selectedLink { style = canvas.theme.selection }
            }
            let start = x
            x = canvas.put(run.text, at: Point(x: x, y: origin.y), style: style, clip: clip)
            // A web link is an OSC 8 hyperlink too (clickable where the terminal has them), when
            // it is wholly on screen.
            if let link = run.link, let address = note.webAddress(of: link), let graphics = controller.graphics,
               start >= clip.minX, start + TextWidth.of(run.text) <= clip.maxX {
                graphics.hyperlink(address, text: run.text, at: Point(x: start, y: origin.y), style: style.reduced(to: canvas.colorDepth), for: self)
            }
        }
    }

    /// The theme's style for a rendered run: the editor's Markdown colors over the text's.
    static func style(_ style: RenderedStyle, theme: Theme) -> Style {
        let syntax = theme.syntax
        var parts: [Style] = []
        if style.contains(.border) { parts.append(theme.muted) }
        if style.contains(.muted) { parts.append(theme.muted) }
        if style.contains(.quote) { parts.append(syntax.blockQuote) }
        if style.contains(.marker) { parts.append(style.contains(.done) ? syntax.taskBox : syntax.listMarker) }
        if style.contains(.tableHeader) { parts.append(syntax.tableHeader) }
        if style.contains(.codeBlock) { parts.append(syntax.codeBlock) }
        if style.contains(.code) { parts.append(syntax.code) }
        if style.contains(.heading) { parts.append(syntax.heading) }
        if style.contains(.emphasis) { parts.append(syntax.emphasis) }
        if style.contains(.strong) { parts.append(syntax.strong) }
        if style.contains(.strikethrough) { parts.append(syntax.strikethrough) }
        if style.contains(.link) { parts.append(syntax.link) }
        // A callout's box and title in the accent; a highlight reversed, as a marker pen shows on any theme.
        if style.contains(.callout) { parts.append(theme.accent) }
        if style.contains(.highlight) { parts.append(Style(attributes: .reverse)) }
        var result = theme.text
        for part in parts {
            if part.foreground != .default { result.foreground = part.foreground }
            if part.background != .default { result.background = part.background }
            result.attributes.formUnion(part.attributes)
        }
        return result
    }

    // MARK: Keys

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        switch key {
        case .char("?"):
            // Not the compositor's: with the editor open under the view, `?` would be typed into the note.
            context.showHelp()
            return .consumed
        case .f(1), .ctrl("l"), .ctrl("c"), .resize:
            return .ignored  // help, redraw and interrupt stay the compositor's
        default:
            break
        }
        if let point = key.mousePoint, key.wheelRows == nil, key.wheelColumns == nil {
            click(at: point, key: key)
            return .consumed
        }
        if let rows = key.wheelRows {
            scroll(by: rows)
            return .consumed
        }
        if let columns = key.wheelColumns {
            sideways(by: columns)
            return .consumed
        }
        guard let action = Self.bindings.action(for: key) else {
            // Keys of the layers below (the tabs, the editor) stay theirs only through edit and close.
            return .consumed
        }
        let page = max(1, textArea.height - 1)
        switch action {
        case .up: scroll(by: -1)
        case .down: scroll(by: 1)
        case .pageUp: scroll(by: -page)
        case .pageDown: scroll(by: page)
        case .top: model.update { $0.noteView?.scroll = 0 }
        case .bottom: scroll(by: Int.max / 2)
        case .left: sideways(by: -8)
        case .right: sideways(by: 8)
        case .nextLink: pickLink(forward: true)
        case .previousLink: pickLink(forward: false)
        case .open:
            if let note = rendered(width: textArea.width), let index = model.state.noteView?.selectedLink, note.links.indices.contains(index) {
                controller.follow(note.links[index])
            }
        case .back: controller.back()
        case .edit: controller.close(toEditor: true)
        case .close: controller.close(toEditor: false)
        }
        return .consumed
    }

    /// Wide tables sideways, never before their start.
    private func sideways(by columns: Int) {
        let shifted = max(0, (model.state.noteView?.sideways ?? 0) + columns)
        model.update { $0.noteView?.sideways = shifted }
    }

    private func scroll(by rows: Int) {
        guard let note = rendered(width: textArea.width), let state = model.state.noteView else { return }
        let count = note.lines.count + backlinkRows(state).count
        let top = max(0, min(count - textArea.height, state.scroll + rows))
        model.update { $0.noteView?.scroll = max(0, top) }
    }

    /// Tab and Shift-Tab: the next link in reading order, scrolled into view.
    private func pickLink(forward: Bool) {
        guard let note = rendered(width: textArea.width), let state = model.state.noteView else { return }
        var order: [(row: Int, link: Int)] = []
        var seen = Set<Int>()
        for (row, line) in note.lines.enumerated() {
            for run in line.runs {
                if let link = run.link, seen.insert(link).inserted { order.append((row, link)) }
            }
        }
        guard !order.isEmpty else { return }
        let current = order.firstIndex { $0.link == state.selectedLink }
        let next: Int
        if let current {
            next = (current + (forward ? 1 : order.count - 1)) % order.count
        } else {
            // The first one from where the view is scrolled to.
            next = forward ? (order.firstIndex { $0.row >= state.scroll } ?? 0) : (order.lastIndex { $0.row < state.scroll + textArea.height } ?? order.count - 1)
        }
        let row = order[next].row
        var scroll = state.scroll
        if row < scroll || row >= scroll + textArea.height { scroll = max(0, row - textArea.height / 3) }
        model.update {
            $0.noteView?.selectedLink = order[next].link
            $0.noteView?.scroll = scroll
        }
    }

    /// A click on a link picks it and follows it, as Enter does.
    private func click(at point: Point, key: Key) {
        switch key {
        case .mouse: clickLink(at: point)
        case .pointer(let event):
            if case .press(.left) = event.action { clickLink(at: point) }
        default: break
        }
    }

    private func clickLink(at point: Point) {
        guard textArea.contains(point), let note = rendered(width: textArea.width), let state = model.state.noteView else { return }
        let row = state.scroll + point.y - textArea.y
        guard note.lines.indices.contains(row) else { return }
        let line = note.lines[row]
        // A photo's slot: the picture drawn over it opens the viewer, as Enter on it does.
        if let picture = line.picture, note.pictures.indices.contains(picture) {
            let link = note.pictures[picture].link
            model.update { $0.noteView?.selectedLink = link }
            controller.follow(note.links[link])
            return
        }
        var x = textArea.x - (line.scrolls ? min(state.sideways, max(0, line.width - textArea.width)) : 0)
        for run in line.runs {
            let end = x + TextWidth.of(run.text)
            if point.x >= x, point.x < end, let link = run.link, note.links.indices.contains(link) {
                model.update { $0.noteView?.selectedLink = link }
                controller.follow(note.links[link])
                return
            }
            x = end
        }
    }

    /// The keys `handle` leaves to the compositor; every other key (and every click) is the
    /// view's, so help lists none of the editor's keys under it.
    func letsThrough(_ key: Key?) -> Bool {
        switch key {
        case .f(1)?, .ctrl("l")?, .ctrl("c")?, .resize?: return true
        default: return false
        }
    }

    func commands() -> [Command] { Self.helpCommands }

    /// Help's rows, the mouse's with the keys'; static, for ``KeyReference``.
    static let helpCommands = bindings.commands
        + [Command(keys: [], description: "Scroll; a click follows a link", group: "Rendered view", keyLabel: "Wheel / click")]
}
