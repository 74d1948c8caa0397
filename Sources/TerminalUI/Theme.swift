/// The styles widgets draw with, one per role.
///
/// Backgrounds stay the terminal's default (-1) except for bars and highlights, so the app sits
/// on the user's own terminal theme. ``standard(for:)`` picks colors per ``ColorDepth``:
/// 24-bit colors, their nearest xterm-256 entries, hand-picked ANSI colors for 8-color
/// terminals, and attributes alone (bold, reverse, dim) when there is no color or `NO_COLOR` is set.
public struct Theme: Hashable, Sendable {
    /// Ordinary text.
    public var text: Style
    /// Secondary text: hints, column headers' rules, empty-list messages.
    public var muted: Style
    /// Text that is an error.
    public var error: Style
    /// Text that reports success.
    public var success: Style
    /// An accent for keys in help and spinners.
    public var accent: Style

    /// The tab bar's row.
    public var tabBar: Style
    public var tabActive: Style
    public var tabInactive: Style

    /// List column headers.
    public var header: Style
    /// The selected row in a focused list.
    public var selection: Style
    /// The selected row in a list that does not have focus.
    public var selectionUnfocused: Style

    /// The status bar's row and its parts.
    public var statusBar: Style
    public var statusBackend: Style
    public var statusError: Style
    public var statusSpinner: Style

    /// Modal frames, titles and their inside.
    public var border: Style
    public var title: Style
    public var panel: Style
    public var button: Style
    public var buttonSelected: Style
    public var progressFilled: Style
    public var progressEmpty: Style

    /// Text inputs and the list filter line.
    public var input: Style
    public var inputPlaceholder: Style

    /// Markdown in the note editor (Theme+Syntax.swift).
    public var syntax: SyntaxStyles = .monochrome

    /// The theme for a terminal at `depth`.
    public static func standard(for depth: ColorDepth) -> Theme {
        switch depth {
        case .none: return .monochrome
        case .ansi8: return .ansi
        case .indexed256: return .truecolor.reduced(to: .indexed256)
        case .truecolor: return .truecolor
        }
    }

    /// Attributes only, for `NO_COLOR` and colorless terminals.
    public static let monochrome = Theme(
        text: .plain, muted: Style(attributes: .dim), error: Style(attributes: .bold),
        success: .plain, accent: Style(attributes: .bold),
        tabBar: Style(attributes: .reverse), tabActive: Style(attributes: .bold),
        tabInactive: Style(attributes: .reverse),
        header: Style(attributes: [.bold, .underline]),
        selection: Style(attributes: .reverse), selectionUnfocused: Style(attributes: .underline),
        statusBar: Style(attributes: .reverse), statusBackend: Style(attributes: [.reverse, .bold]),
        statusError: Style(attributes: [.reverse, .bold]), statusSpinner: Style(attributes: .reverse),
        border: .plain, title: Style(attributes: .bold), panel: .plain,
        button: .plain, buttonSelected: Style(attributes: [.reverse, .bold]),
        progressFilled: .plain, progressEmpty: Style(attributes: .dim),
        input: Style(attributes: .underline), inputPlaceholder: Style(attributes: .dim)
    )

    /// For 8-color terminals: only the colors every palette has, chosen to read on dark and light themes.
    public static let ansi = Theme(
        text: .plain, muted: Style(attributes: .dim), error: Style(foreground: .red, attributes: .bold),
        success: Style(foreground: .green), accent: Style(foreground: .yellow, attributes: .bold),
        tabBar: Style(foreground: .white, background: .black),
        tabActive: Style(foreground: .black, background: .cyan, attributes: .bold),
        tabInactive: Style(foreground: .white, background: .black),
        header: Style(attributes: [.bold, .underline]),
        selection: Style(foreground: .white, background: .blue, attributes: .bold),
        selectionUnfocused: Style(attributes: .reverse),
        statusBar: Style(foreground: .white, background: .black),
        statusBackend: Style(foreground: .cyan, background: .black, attributes: .bold),
        statusError: Style(foreground: .red, background: .black, attributes: .bold),
        statusSpinner: Style(foreground: .yellow, background: .black),
        border: Style(foreground: .cyan), title: Style(attributes: .bold), panel: .plain,
        button: Style(attributes: .reverse),
        buttonSelected: Style(foreground: .black, background: .cyan, attributes: .bold),
        progressFilled: Style(foreground: .green), progressEmpty: Style(attributes: .dim),
        input: Style(attributes: .underline), inputPlaceholder: Style(attributes: .dim),
        syntax: .ansi
    )

    /// 24-bit colors (a muted dark palette with a blue accent).
    public static let truecolor: Theme = {
        let bar = Color.rgb(40, 44, 52)
        let barText = Color.rgb(171, 178, 191)
        let accent = Color.rgb(97, 175, 239)
        let ink = Color.rgb(24, 26, 31)
        return Theme(
            text: .plain, muted: Style(foreground: .rgb(120, 126, 140)),
            error: Style(foreground: .rgb(224, 108, 117), attributes: .bold),
            success: Style(foreground: .rgb(152, 195, 121)),
            accent: Style(foreground: .rgb(229, 192, 123), attributes: .bold),
            tabBar: Style(foreground: barText, background: bar),
            tabActive: Style(foreground: ink, background: accent, attributes: .bold),
            tabInactive: Style(foreground: barText, background: bar),
            header: Style(foreground: .rgb(150, 156, 170), attributes: [.bold, .underline]),
            selection: Style(foreground: .rgb(240, 240, 240), background: .rgb(38, 79, 120), attributes: .bold),
            selectionUnfocused: Style(background: .rgb(62, 68, 81)),
            statusBar: Style(foreground: barText, background: bar),
            statusBackend: Style(foreground: accent, background: bar, attributes: .bold),
            statusError: Style(foreground: .rgb(224, 108, 117), background: bar, attributes: .bold),
            statusSpinner: Style(foreground: .rgb(229, 192, 123), background: bar),
            border: Style(foreground: accent), title: Style(foreground: .rgb(229, 229, 229), attributes: .bold),
            panel: .plain,
            button: Style(foreground: barText, background: .rgb(62, 68, 81)),
            buttonSelected: Style(foreground: ink, background: accent, attributes: .bold),
            progressFilled: Style(foreground: .rgb(152, 195, 121)), progressEmpty: Style(foreground: .rgb(75, 80, 92)),
            input: Style(background: .rgb(50, 54, 62)), inputPlaceholder: Style(foreground: .rgb(120, 126, 140), background: .rgb(50, 54, 62)),
            syntax: .truecolor
        )
    }()

    /// Every style reduced to what a terminal at `depth` shows.
    public func reduced(to depth: ColorDepth) -> Theme {
        var t = self
        let paths: [WritableKeyPath<Theme, Style>] = [
            \.text, \.muted, \.error, \.success, \.accent, \.tabBar, \.tabActive, \.tabInactive, \.header,
            \.selection, \.selectionUnfocused, \.statusBar, \.statusBackend, \.statusError, \.statusSpinner,
            \.border, \.title, \.panel, \.button, \.buttonSelected, \.progressFilled, \.progressEmpty,
            \.input, \.inputPlaceholder,
        ]
        for path in paths { t[keyPath: path] = t[keyPath: path].reduced(to: depth) }
        t.syntax = syntax.reduced(to: depth)
        return t
    }
}
