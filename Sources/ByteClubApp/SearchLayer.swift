import Foundation
import Remote
import TerminalUI

/// The search results, as a layer above the main screen (`Ctrl-F` on the notes list):
///
/// ```
/// ╭─ Search every note ──────────────────────────────────────────────────────╮
/// │ Find: boat hire                                                  2 notes │
/// │ Trip plan                                          ann · 5 min ago       │
/// │   12│ …we still need a boat hire in Annecy for the Saturday…             │
/// │ Summer                                             ray · 2026-11-02      │
/// │   3│ boat hire: ask Paul                                                 │
/// │ ↑↓ select · Enter open at the match · Esc back to the list               │
/// ╰───────────────────────────────────────────────────────────────────────────╯
/// ```
/// Each hit takes two rows: the title with who changed it and when, then the matching line
/// with the match highlighted. Names, titles and lines are the server's or a file's: each part
/// goes through ``TerminalSafe`` on its own, so the highlight stays on the match.
@MainActor
final class SearchLayer: Layer {
    let model: AppModel
    let format: DisplayFormat
    /// Offered every key first; returns whether the search took it.
    var onKey: (@MainActor (Key) -> Bool)?

    init(model: AppModel, format: DisplayFormat) {
        self.model = model
        self.format = format
    }

    func render(into canvas: any Canvas, area: Rect) {
        guard let search = model.state.search else { return }
        let theme = canvas.theme
        // Below the tab bar and above the status bar, which says how indexing goes.
        let frame = Rect(x: area.x, y: area.y + 1, width: area.width, height: max(0, area.height - 2))
        guard frame.width >= 20, frame.height >= 6 else { return }
        canvas.fill(frame, style: theme.panel)
        let root = model.state.notesFolder.root
        let scope = search.onlyThisFolder ? search.folder.map { "Search this folder: " + TerminalSafe.escape(String($0.dropFirst(root.count + 1))) + "/" } : nil
        canvas.drawBox(frame, style: theme.border, title: scope ?? "Search every note", titleStyle: theme.title)
        let inner = Rect(x: frame.x + 2, y: frame.y + 1, width: frame.width - 4, height: frame.height - 2)
        let (top, rest) = inner.splitTop(1)
        let (body, hintLine) = rest.splitBottom(1)
        let toggle = search.folder == nil ? "" : search.onlyThisFolder ? " · Ctrl-F the whole club" : " · Ctrl-F this folder only"
        canvas.put("↑↓ select · Enter open at the match · Esc back to the list" + toggle, in: hintLine, alignment: .left, style: theme.muted)

        let count: String
        if let error = search.error {
            count = ""
            canvas.put(TerminalSafe.escape(error), in: body.row(0), alignment: .left, style: theme.error)
        } else if search.answered == nil {
            count = search.isSearching ? "searching…" : ""
            if !search.isSearching {
                canvas.put("Type words, trip* for a prefix, \"boat hire\" for a phrase, -word to leave out",
                           in: body.row(0), alignment: .left, style: theme.muted)
            }
        } else {
            count = search.hits.count == 1 ? "1 note" : "\(search.hits.count >= SearchState.limit ? "\(SearchState.limit)+" : "\(search.hits.count)") notes"
            if search.hits.isEmpty {
                canvas.put("No note has “\(TerminalSafe.escape(search.answered ?? ""))”", in: body.row(0), alignment: .left, style: theme.muted)
            }
        }
        let countWidth = TextWidth.of(count)
        let (field, countArea) = (Rect(x: top.x, y: top.y, width: max(0, top.width - countWidth - 1), height: 1),
                                  Rect(x: top.maxX - countWidth, y: top.y, width: countWidth, height: 1))
        var state = search
        TextInput(prompt: "Find: ", placeholder: "words in any note").render(into: canvas, area: field, state: &state.query)
        canvas.put(count, in: countArea, alignment: .right, style: theme.muted)

        let perPage = max(1, body.height / 2)
        state.fit(pageSize: perPage)
        var times = model.state.relativeTimes
        for (row, index) in (state.offset..<min(state.hits.count, state.offset + perPage)).enumerated() {
            let hit = state.hits[index]
            let area = Rect(x: body.x, y: body.y + row * 2, width: body.width, height: 2)
            draw(hit, in: area, selected: index == state.selected, canvas: canvas)
            times.drew(hit.modified, format: format)
        }
        // Over the frame's own (the screen below was drawn first): the clock tick redraws these too.
        if times != model.state.relativeTimes { model.updateQuietly { $0.relativeTimes = times } }
        // What drawing learned (the page size, the input's scroll), without another frame.
        if state != search { model.updateQuietly { $0.search = state } }
    }

    private func draw(_ hit: SearchResult, in area: Rect, selected: Bool, canvas: any Canvas) {
        let theme = canvas.theme
        let style = selected ? theme.selection : theme.panel
        canvas.fill(area, style: style)
        var about = [String]()
        if let who = hit.modifiedBy, !who.isEmpty { about.append(TerminalSafe.escape(who)) }
        if let modified = hit.modified { about.append(format.relative(modified)) }
        let aboutText = about.joined(separator: " · ")
        let aboutWidth = min(TextWidth.of(aboutText), area.width / 2)
        let titleArea = Rect(x: area.x, y: area.y, width: max(0, area.width - aboutWidth - 1), height: 1)
        canvas.put(TerminalSafe.escape(ClubLayout.title(of: hit.name)), in: titleArea, alignment: .left, style: style.bold)
        canvas.put(aboutText, in: Rect(x: area.maxX - aboutWidth, y: area.y, width: aboutWidth, height: 1), alignment: .right,
                   style: selected ? style : theme.muted)

        let line = Rect(x: area.x, y: area.y + 1, width: area.width, height: 1)
        let prefix = hit.lineNumber.map { "  \($0 + 1)│ " } ?? "  title│ "
        let x = canvas.put(prefix, at: line.origin, style: selected ? style : theme.muted, clip: line)
        let text = Rect(x: x, y: line.y, width: max(0, line.maxX - x), height: 1)
        Self.drawHighlighted(hit.line, ranges: hit.ranges, in: text, canvas: canvas, style: style,
                             match: style.adding([.bold, .reverse]))
    }

    /// Draws `line` with `ranges` (Character offsets) in `match`, from a little before the first
    /// match when the line is too long to show whole.
    static func drawHighlighted(_ line: String, ranges: [Range<Int>], in area: Rect, canvas: any Canvas, style: Style, match: Style) {
        guard !area.isEmpty else { return }
        let characters = Array(line)
        // Tabs and the like would be escaped wider than a cell: spaces read the same here.
        var start = 0
        if let first = ranges.first?.lowerBound, TextWidth.of(String(characters.prefix(first))) > area.width / 3 {
            // Back from the match by a third of the width, in columns.
            var columns = 0
            start = first
            while start > 0, columns < area.width / 3 {
                start -= 1
                columns += TextWidth.of(String(characters[start]))
            }
        }
        var x = area.x
        if start > 0 { x = canvas.put("…", at: Point(x: x, y: area.y), style: style, clip: area) }
        var index = start
        let sorted = ranges.filter { $0.upperBound > start && $0.lowerBound < characters.count }.sorted { $0.lowerBound < $1.lowerBound }
        for range in sorted {
            let from = max(range.lowerBound, index), to = min(range.upperBound, characters.count)
            guard from < to else { continue }
            if index < from { x = canvas.put(shown(characters[index..<from]), at: Point(x: x, y: area.y), style: style, clip: area) }
            x = canvas.put(shown(characters[from..<to]), at: Point(x: x, y: area.y), style: match, clip: area)
            index = to
            if x >= area.maxX { return }
        }
        if index < characters.count {
            canvas.put(shown(characters[index...]), at: Point(x: x, y: area.y), style: style, clip: area)
        }
    }

    private static func shown(_ characters: ArraySlice<Character>) -> String {
        TerminalSafe.escape(String(characters).replacingOccurrences(of: "\t", with: " "))
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        guard model.state.search != nil else { return .ignored }
        if onKey?(key) == true { return .consumed }
        // Control and function keys (Ctrl-C, Ctrl-L, F1) still reach the global keys; nothing
        // else reaches the list below.
        switch key {
        case .ctrl, .f: return .ignored
        default: return .consumed
        }
    }

    func commands() -> [Command] {
        SearchState.bindings.commands + TextInputState.bindings.commands.filter { $0.group == "Text input" && !$0.keys.contains(.enter) && !$0.keys.contains(.escape) }
    }
}
