/// The help screen: every command of the layers below it, grouped, in a centered box.
///
/// It is built from ``Compositor/commands()``, the same tables that dispatch keys, so it
/// cannot list a key that does nothing or miss one that does. Esc or `?` closes it; it
/// scrolls with the list keys when the commands do not fit.
@MainActor
public final class HelpOverlay: Layer {
    /// What help lists (the commands of the layers below, as it opened).
    public let entries: [Command]
    public var title: String
    /// The first content line shown.
    public private(set) var scroll = 0
    private var visibleHeight = 1
    /// Lines in the single scrolling column; 0 when everything fits.
    private var contentHeight = 0

    public init(commands: [Command], title: String = "Help") {
        self.entries = commands
        self.title = title
    }

    /// What the help keys do.
    public enum Action: Hashable, Sendable { case close, down, up, pageDown, pageUp, top, bottom }

    public static let bindings = KeyBindings<Action>(group: "Help", [
        .init([.escape, .char("?"), .char("q"), .f(1)], .close, "Close help", keyLabel: "Esc / ?"),
        .init([.down, .char("j")], .down, "Scroll down", keyLabel: "↓ / j"),
        .init([.up, .char("k")], .up, "Scroll up", keyLabel: "↑ / k"),
        .init([.pageDown, .char(" ")], .pageDown, "Page down"),
        .init([.pageUp], .pageUp, "Page up"),
        .init([.home, .char("g")], .top, "Top"),
        .init([.end, .char("G")], .bottom, "Bottom"),
    ])

    /// One line of the help text: a group heading, a command, or a blank.
    enum Line: Equatable {
        case heading(String)
        case command(keys: String, description: String)
        case blank
    }

    /// The commands grouped, each group a heading and its commands.
    func groups() -> [[Line]] {
        Self.grouped(entries).map { group in
            [.heading(group.name)] + group.commands.map { .command(keys: $0.keyLabel, description: $0.description) }
        }
    }

    /// `commands` by group, in order of each group's first appearance, as help lists them
    /// (docs/keys.md is grouped by this too).
    public static func grouped(_ commands: [Command]) -> [(name: String, commands: [Command])] {
        var order: [String] = []
        var groups: [String: [Command]] = [:]
        for command in commands {
            if groups[command.group] == nil { order.append(command.group) }
            groups[command.group, default: []].append(command)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }

    /// The groups poured into columns at most `height` lines tall, a blank line between groups
    /// and a group split only when it is taller than a column.
    static func flow(_ groups: [[Line]], height: Int) -> [[Line]] {
        guard height > 0 else { return [] }
        var columns: [[Line]] = [[]]
        for group in groups {
            var rest = group[...]
            if !columns[columns.count - 1].isEmpty {
                if columns[columns.count - 1].count + 1 + rest.count <= height {
                    columns[columns.count - 1].append(.blank)
                } else {
                    columns.append([])
                }
            }
            while !rest.isEmpty {
                let room = height - columns[columns.count - 1].count
                if room <= 0 {
                    columns.append([])
                    continue
                }
                columns[columns.count - 1] += rest.prefix(room)
                rest = rest.dropFirst(room)
            }
        }
        return columns
    }

    public func render(into canvas: any Canvas, area: Rect) {
        let area = area.intersection(canvas.bounds)
        let theme = canvas.theme
        let groups = groups()
        let all = Array(groups.joined(separator: [.blank]))
        let keyWidth = min(24, all.map { if case .command(let k, _) = $0 { TextWidth.of(k) } else { 0 } }.max() ?? 0)
        let columnWidth = all.map {
            switch $0 {
            case .heading(let h): TextWidth.of(h)
            case .command(_, let d): 1 + keyWidth + 3 + TextWidth.of(d)
            case .blank: 0
            }
        }.max() ?? 0
        let footer = "Esc or ? to close"
        let columnGap = 3
        // Content sits 3 cells from the left border and 2 from the right; the borders, a blank
        // line and the footer take 4 rows.
        let maxContentHeight = area.height - 2 - 4
        let maxContentWidth = area.width - 2 - 5

        // As few columns as fit, balanced; one scrolling column if even that does not fit.
        var columns = [all]
        if all.count > maxContentHeight, maxContentHeight > 0 {
            let widest = max(1, (maxContentWidth + columnGap) / (columnWidth + columnGap))
            search: for count in 2...max(2, widest) where count <= widest {
                for height in ((all.count + count - 1) / count)...max((all.count + count - 1) / count, maxContentHeight) {
                    let poured = Self.flow(groups, height: height)
                    if poured.count <= count {
                        columns = poured
                        break search
                    }
                }
            }
        }
        let isScrolling = columns.count == 1 && all.count > maxContentHeight
        let contentWidth = columns.count * columnWidth + (columns.count - 1) * columnGap
        let contentHeight = columns.map(\.count).max() ?? 0
        let width = min(area.width - 2, max(contentWidth, TextWidth.of(footer) + 8, 36) + 5)
        let height = min(area.height - 2, contentHeight + 4)  // + borders, a blank line and the footer
        let box = area.centered(width: width, height: height)
        guard box.width >= 6, box.height >= 3 else { return }
        canvas.fill(box, style: theme.panel)
        canvas.drawBox(box, style: theme.border, title: title, titleStyle: theme.title)
        let content = box.inset(top: 1, left: 3, bottom: 2, right: 2)
        visibleHeight = max(1, content.height)
        self.contentHeight = isScrolling ? all.count : 0
        scroll = isScrolling ? min(scroll, max(0, all.count - visibleHeight)) : 0

        for (index, column) in columns.enumerated() {
            let x = content.x + index * (columnWidth + columnGap)
            let columnArea = Rect(x: x, y: content.y, width: min(columnWidth, content.maxX - x), height: content.height)
            for (i, line) in column.dropFirst(scroll).prefix(visibleHeight).enumerated() {
                let row = columnArea.row(i)
                switch line {
                case .heading(let text):
                    canvas.put(text, in: row, alignment: .left, style: theme.accent)
                case .command(let keys, let description):
                    let keyCell = Rect(x: row.x + 1, y: row.y, width: min(keyWidth, row.width - 1), height: 1)
                    canvas.put(keys, in: keyCell, alignment: .left, style: theme.text.bold)
                    let descriptionCell = Rect(x: keyCell.maxX + 3, y: row.y, width: row.maxX - keyCell.maxX - 3, height: 1)
                    canvas.put(description, in: descriptionCell, alignment: .left, style: theme.text)
                case .blank:
                    break
                }
            }
        }

        let footerRow = Rect(x: box.x + 2, y: box.maxY - 2, width: box.width - 4, height: 1)
        var footerText = footer
        if isScrolling {
            footerText += " · " + (scroll + visibleHeight < all.count ? "↓ more" : "↑ top")
        }
        if box.height >= 4 { canvas.put(footerText, in: footerRow, alignment: .center, style: theme.muted) }
    }

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
        if let rows = key.wheelRows {
            // Anywhere on the screen: help covers what is under it, and nothing else scrolls.
            scroll = min(max(0, contentHeight - visibleHeight), max(0, scroll + rows))
            return .consumed
        }
        guard let action = Self.bindings.action(for: key) else {
            // Help is modal; only control and function keys (Ctrl-C) reach the global bindings.
            switch key {
            case .ctrl, .f: return .ignored
            default: return .consumed
            }
        }
        let maxScroll = max(0, contentHeight - visibleHeight)
        switch action {
        case .close: context.dismiss()
        case .down: scroll = min(maxScroll, scroll + 1)
        case .up: scroll = max(0, scroll - 1)
        case .pageDown: scroll = min(maxScroll, scroll + visibleHeight)
        case .pageUp: scroll = max(0, scroll - visibleHeight)
        case .top: scroll = 0
        case .bottom: scroll = maxScroll
        }
        return .consumed
    }

    public func commands() -> [Command] { Self.bindings.commands }
}
