/// The styles of Markdown as it is typed, one per construct, for each color depth.
///
/// Kept apart from ``Theme``'s widget roles: the editor draws them over ``Theme/text`` through
/// its per-line styling hook (``NoteEditor/lineStyles``). With `NO_COLOR` (``monochrome``) they
/// are attributes alone.
public struct SyntaxStyles: Hashable, Sendable {
    public var heading: Style
    public var emphasis: Style
    public var strong: Style
    public var strikethrough: Style
    /// Inline code.
    public var code: Style
    /// Fenced and indented code blocks.
    public var codeBlock: Style
    /// Links, autolinks and images.
    public var link: Style
    /// List markers (`-`, `1.`).
    public var listMarker: Style
    /// Task boxes (`[ ]`, `[x]`).
    public var taskBox: Style
    public var blockQuote: Style
    public var table: Style
    public var tableHeader: Style
    public var thematicBreak: Style

    /// Attributes only.
    public static let monochrome = SyntaxStyles(
        heading: Style(attributes: [.bold, .underline]), emphasis: Style(attributes: .italic), strong: Style(attributes: .bold),
        strikethrough: Style(attributes: .dim), code: Style(attributes: .dim), codeBlock: Style(attributes: .dim),
        link: Style(attributes: .underline), listMarker: Style(attributes: .bold), taskBox: Style(attributes: .bold),
        blockQuote: Style(attributes: .italic), table: .plain, tableHeader: Style(attributes: .bold),
        thematicBreak: Style(attributes: .dim)
    )

    /// Colors every 8-color palette has.
    public static let ansi = SyntaxStyles(
        heading: Style(foreground: .magenta, attributes: .bold), emphasis: Style(attributes: .italic), strong: Style(attributes: .bold),
        strikethrough: Style(attributes: .dim), code: Style(foreground: .green), codeBlock: Style(foreground: .green),
        link: Style(foreground: .blue, attributes: .underline), listMarker: Style(foreground: .yellow, attributes: .bold),
        taskBox: Style(foreground: .cyan, attributes: .bold), blockQuote: Style(foreground: .cyan, attributes: .italic),
        table: Style(foreground: .cyan), tableHeader: Style(foreground: .cyan, attributes: .bold),
        thematicBreak: Style(attributes: .dim)
    )

    /// 24-bit colors to go with ``Theme/truecolor`` (reduced for 256-color terminals).
    public static let truecolor = SyntaxStyles(
        heading: Style(foreground: .rgb(97, 175, 239), attributes: .bold), emphasis: Style(attributes: .italic),
        strong: Style(attributes: .bold), strikethrough: Style(foreground: .rgb(120, 126, 140)),
        code: Style(foreground: .rgb(152, 195, 121)), codeBlock: Style(foreground: .rgb(152, 195, 121)),
        link: Style(foreground: .rgb(86, 182, 194), attributes: .underline),
        listMarker: Style(foreground: .rgb(229, 192, 123), attributes: .bold), taskBox: Style(foreground: .rgb(209, 154, 102), attributes: .bold),
        blockQuote: Style(foreground: .rgb(120, 126, 140), attributes: .italic), table: Style(foreground: .rgb(171, 178, 191)),
        tableHeader: Style(foreground: .rgb(171, 178, 191), attributes: .bold), thematicBreak: Style(foreground: .rgb(75, 80, 92))
    )

    /// Every style reduced to what a terminal at `depth` shows.
    public func reduced(to depth: ColorDepth) -> SyntaxStyles {
        var s = self
        let paths: [WritableKeyPath<SyntaxStyles, Style>] = [
            \.heading, \.emphasis, \.strong, \.strikethrough, \.code, \.codeBlock, \.link, \.listMarker, \.taskBox,
            \.blockQuote, \.table, \.tableHeader, \.thematicBreak,
        ]
        for path in paths { s[keyPath: path] = s[keyPath: path].reduced(to: depth) }
        return s
    }
}

extension Style {
    /// `top` drawn over this style: its colors where it has one, the attributes of both. So
    /// emphasis in a heading keeps the heading's color, and a selection over either shows.
    public func overlaid(with top: Style) -> Style {
        Style(
            foreground: top.foreground == .default ? foreground : top.foreground,
            background: top.background == .default ? background : top.background,
            attributes: attributes.union(top.attributes)
        )
    }
}
