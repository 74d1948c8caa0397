/// The help screen: every command of the layers below it, grouped, in a centered box.
///
/// It is built from ``Compositor/commands()``, the same tables that dispatch keys, so it
/// cannot list a key that does nothing or miss one that does. Esc or `?` closes it; it
/// scrolls with the list keys when the commands do not fit.
@MainActor
public final class HelpOverlay: Layer {
    public let commands: [Command]
    public var title: String
    /// The first content line shown.
    public private(set) var scroll = 0
    private var visibleHeight = 1
    private var contentHeight = 0

    public init(commands: [Command], title: String = "Help") {
        self.commands = commands
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

    /// The commands as lines, grouped in order of each group's first appearance.
    func lines() -> [Line] {
        var order: [String] = []
        var groups: [String: [Command]] = [:]
        for command in commands {
            if groups[command.group] == nil { order.append(command.group) }
            groups[command.group, default: []].append(command)
        }
        var lines: [Line] = []
        for group in order {
            if !lines.isEmpty { lines.append(.blank) }
            lines.append(.heading(group))
            for command in groups[group] ?? [] {
                lines.append(.command(keys: command.keyLabel, description: command.description))
            }
        }
        return lines
    }

    public func render(into canvas: any Canvas, area: Rect) {
        let area = area.intersection(canvas.bounds)
        let theme = canvas.theme
        let lines = lines()
        let keyWidth = min(24, lines.map { if case .command(let k, _) = $0 { TextWidth.of(k) } else { 0 } }.max() ?? 0)
        let textWidth = lines.map {
            switch $0 {
            case .heading(let h): TextWidth.of(h)
            case .command(_, let d): keyWidth + 3 + TextWidth.of(d)
            case .blank: 0
            }
        }.max() ?? 0
        let footer = "Esc or ? to close"
        let width = min(area.width - 2, max(textWidth, TextWidth.of(footer), 36) + 6)
        let height = min(area.height - 2, lines.count + 4)
        let box = area.centered(width: width, height: height)
        guard box.width >= 6, box.height >= 3 else { return }
        canvas.fill(box, style: theme.panel)
        canvas.drawBox(box, style: theme.border, title: title, titleStyle: theme.title)
        let content = box.inset(top: 1, left: 3, bottom: 2, right: 2)
        visibleHeight = max(1, content.height)
        contentHeight = lines.count
        scroll = min(scroll, max(0, contentHeight - visibleHeight))

        for (i, line) in lines.dropFirst(scroll).prefix(visibleHeight).enumerated() {
            let row = content.row(i)
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

        let footerRow = Rect(x: box.x + 2, y: box.maxY - 2, width: box.width - 4, height: 1)
        var footerText = footer
        if contentHeight > visibleHeight {
            let more = scroll + visibleHeight < contentHeight ? "↓ more" : "↑ top"
            footerText += " · " + more
        }
        if box.height >= 4 { canvas.put(footerText, in: footerRow, alignment: .center, style: theme.muted) }
    }

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
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
