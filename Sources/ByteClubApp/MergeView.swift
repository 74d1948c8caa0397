import NoteMerge
import Remote
import TerminalUI

/// The merge view: the editor pane while a merge has conflicts (``MergeSession``).
///
/// ```
/// Title: Trip plan                                              [+]
/// Merging with ann's changes · 1 of 2 conflicts to choose
/// ────────────────────────────────────────────────────────────────
///   ⋯ 12 unchanged lines
///   Day 1: Lisbon
/// ▶ Conflict 1 of 2
///   yours:
/// < Day 2: Sintra by train
///   ann's:
/// > Day 2: Sintra by car
///   Day 3: Porto
/// ────────────────────────────────────────────────────────────────
/// m mine · t theirs · b both · n/p next/previous conflict
/// o Overwrite · s Save as copy · r Reload theirs · Esc Cancel
/// ```
/// Unchanged text is folded to ``MergeSession/context`` lines around each conflict; your lines
/// are marked `<`, theirs `>`, and the lines a choice keeps `✓`.
struct MergeView {
    /// What the merge view's keys do.
    enum Action: Hashable, Sendable {
        case mine, theirs, both, next, previous
        case up, down, pageUp, pageDown, top, bottom
        case save, overwrite, saveCopy, reloadTheirs, cancel
    }

    /// The merge view's keys (help lists them, and the controller acts on them). o, s, r and c
    /// are the conflict dialog's own first letters, so they do the same here.
    static let bindings = KeyBindings<Action>(group: "Merge", [
        .init([.char("m")], .mine, "Keep your lines for this conflict"),
        .init([.char("t")], .theirs, "Keep their lines for this conflict"),
        .init([.char("b")], .both, "Keep both: yours, then theirs"),
        .init([.char("n")], .next, "Next conflict"),
        .init([.char("p")], .previous, "Previous conflict"),
        .init([.down, .char("j")], .down, "Scroll down"),
        .init([.up, .char("k")], .up, "Scroll up"),
        .init([.pageDown], .pageDown, "Page down"),
        .init([.pageUp], .pageUp, "Page up"),
        .init([.home, .documentStart], .top, "Top"),
        .init([.end, .documentEnd], .bottom, "Bottom"),
        .init([.ctrl("s")], .save, "Save the merge (every conflict chosen)"),
        .init([.char("o")], .overwrite, "Overwrite: your text over theirs"),
        .init([.char("s")], .saveCopy, "Save as copy: your text beside theirs"),
        .init([.char("r")], .reloadTheirs, "Reload theirs (your text stays a draft)"),
        .init([.escape, .char("c")], .cancel, "Cancel: back to your text, not saved"),
    ])

    /// The editor's key that starts a merge.
    enum EditorAction: Hashable, Sendable { case merge }

    static let editorBindings = KeyBindings<EditorAction>(group: "Editor", [
        .init([.ctrl("r")], .merge, "Merge the server's changes now"),
    ])

    /// The hint at the bottom of the view.
    static let hint = ["m mine · t theirs · b both · n/p next/previous conflict",
                       "o Overwrite · s Save as copy · r Reload theirs · Esc Cancel"]

    var title: String
    var isModified: Bool
    var isSaving: Bool

    /// Draws `merge` into `area`; keeps the selected conflict in view and remembers the height.
    @MainActor
    func render(into canvas: any Canvas, area: Rect, merge: inout MergeSession) {
        let area = area.intersection(canvas.bounds)
        guard !area.isEmpty else { return }
        let theme = canvas.theme
        canvas.fill(area, style: theme.text)

        var (header, rest) = area.splitTop(1)
        let marker = isModified ? "[+] [merge]" : "[merge]"
        let markerWidth = min(TextWidth.of(marker), header.width)
        canvas.put(marker, in: Rect(x: header.maxX - markerWidth, y: header.y, width: markerWidth, height: 1), alignment: .right, style: theme.accent)
        header.width -= min(header.width, markerWidth + 1)
        canvas.put("Title: " + title, in: header, alignment: .left, style: theme.text)

        let open = merge.openCount
        let banner = isSaving ? "Saving the merge with \(TerminalSafe.escape(merge.who))'s changes…"
            : open == 0 ? "Merging with \(TerminalSafe.escape(merge.who))'s changes · every conflict chosen · Ctrl-S saves"
            : "Merging with \(TerminalSafe.escape(merge.who))'s changes · \(open) of \(merge.conflictCount) conflict\(merge.conflictCount == 1 ? "" : "s") to choose"
        let (bannerLine, below) = rest.splitTop(1)
        canvas.put(banner, in: bannerLine, alignment: .left, style: theme.accent)
        rest = below

        let hint = Self.hint.flatMap { TextWidth.wrap($0, width: max(1, area.width)) }
        let hintHeight = min(hint.count, max(0, rest.height - 3))
        let (middle, hintArea) = rest.splitBottom(hintHeight + 1)
        for (i, line) in hint.prefix(hintHeight).enumerated() {
            canvas.put(line, in: hintArea.row(i + 1), alignment: .left, style: theme.muted)
        }
        if !hintArea.isEmpty { canvas.put(String(repeating: "─", count: hintArea.width), at: hintArea.origin, style: theme.muted, clip: hintArea.row(0)) }
        let (rule, body) = middle.splitTop(1)
        if !rule.isEmpty { canvas.put(String(repeating: "─", count: rule.width), at: rule.origin, style: theme.muted, clip: rule) }
        guard !body.isEmpty else { return }

        let rows = merge.rows(width: body.width)
        merge.viewHeight = body.height
        if merge.revealSelected, let first = rows.firstIndex(where: { $0.kind == .heading(merge.selected) }) {
            // The whole conflict with two rows before it if they fit, else from its heading.
            let last = rows.lastIndex(where: { Self.conflict(of: $0.kind) == merge.selected }) ?? first
            if first < merge.scroll || last >= merge.scroll + body.height {
                merge.scroll = last - first + 3 <= body.height ? max(0, first - 2) : first
            }
            merge.revealSelected = false
        }
        merge.scroll = max(0, min(merge.scroll, rows.count - body.height))
        for (i, row) in rows.dropFirst(merge.scroll).prefix(body.height).enumerated() {
            let y = body.y + i
            let (gutter, style) = Self.look(row.kind, selected: merge.selected, theme: theme)
            if case .heading(let index) = row.kind, index == merge.selected {
                canvas.fill(Rect(x: body.x, y: y, width: body.width, height: 1), style: style)
            }
            canvas.put(gutter + row.text, at: Point(x: body.x, y: y), style: style, clip: body)
        }
    }

    /// The conflict a row belongs to, if any.
    static func conflict(of kind: MergeSession.MergeRow.Kind) -> Int? {
        switch kind {
        case .heading(let i), .label(let i), .mine(let i), .theirs(let i), .chosen(let i): return i
        case .context, .fold: return nil
        }
    }

    /// A row's two-column gutter and its style.
    private static func look(_ kind: MergeSession.MergeRow.Kind, selected: Int, theme: Theme) -> (String, Style) {
        switch kind {
        case .context: return ("  ", theme.text)
        case .fold: return ("  ", theme.muted)
        case .heading(let i): return i == selected ? ("▶ ", theme.selection) : ("  ", theme.header)
        case .label: return ("  ", theme.muted)
        case .mine: return ("< ", theme.success)
        case .theirs: return ("> ", theme.accent)
        case .chosen: return ("✓ ", theme.text)
        }
    }
}
