/// A message for the status bar.
public struct StatusMessage: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case info, success, error }

    public var text: String
    public var kind: Kind

    public init(_ text: String, kind: Kind = .info) {
        self.text = text
        self.kind = kind
    }

    public static func error(_ text: String) -> StatusMessage { StatusMessage(text, kind: .error) }
}

/// The one-line bar at the bottom: backend, a spinner while busy, where the user is when a view
/// covers the tabs, the last message, and a compact progress figure and hint on the right.
///
/// ```
///  embedded  ⠹ Saved "ideas.txt"                                 ↑ 42% 1.2 MiB/s  ? help
///  club  Rendered view · Trip plan · Opened "Trip plan.md"                        ? help
/// ```
/// The right side is drawn in full, then the place, and the message is cut to what is left.
public struct StatusBar: Sendable {
    public var backend: String
    /// Where the user is, when a view covers the tabs ("Rendered view · Trip plan"); nil: the tabs.
    public var place: String?
    public var isBusy: Bool
    /// The animation counter; each step shows the next spinner frame.
    public var tick: Int
    public var message: StatusMessage?
    /// Background transfers, e.g. "↑ 42% 1.2 MB/s".
    public var progress: String?
    /// A key hint at the far right, e.g. "? help".
    public var hint: String?

    public init(backend: String, place: String? = nil, isBusy: Bool = false, tick: Int = 0, message: StatusMessage? = nil,
                progress: String? = nil, hint: String? = nil) {
        self.backend = backend
        self.place = place
        self.isBusy = isBusy
        self.tick = tick
        self.message = message
        self.progress = progress
        self.hint = hint
    }

    public static let spinnerFrames: [String] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// The spinner frame for the current tick.
    public var spinner: String { StatusBar.spinnerFrames[((tick % 10) + 10) % 10] }

    @MainActor
    public func render(into canvas: any Canvas, area: Rect) {
        let row = area.row(0).intersection(canvas.bounds)
        guard !row.isEmpty else { return }
        let theme = canvas.theme
        canvas.fill(row, style: theme.statusBar)

        var right = ""
        if let progress, !progress.isEmpty { right = progress }
        if let hint, !hint.isEmpty { right += (right.isEmpty ? "" : "  ") + hint }
        let rightWidth = min(TextWidth.of(right), max(0, row.width - 2))
        let rightStart = row.maxX - rightWidth - 1
        if rightWidth > 0 {
            canvas.put(right, in: Rect(x: rightStart, y: row.y, width: rightWidth, height: 1), alignment: .right, style: theme.statusBar)
        }

        let left = Rect(x: row.x, y: row.y, width: (rightWidth > 0 ? rightStart - 1 : row.maxX) - row.x, height: 1)
        var x = canvas.put(" " + backend, at: row.origin, style: theme.statusBackend, clip: left) + 1
        x = canvas.put(isBusy ? spinner : " ", at: Point(x: x, y: row.y), style: theme.statusSpinner, clip: left) + 1
        if let place, !place.isEmpty {
            x = canvas.put(place + (message == nil ? "" : " ·"), at: Point(x: x, y: row.y), style: theme.statusBar.bold, clip: left) + 1
        }
        if let message {
            let style: Style
            switch message.kind {
            case .error: style = theme.statusError
            case .success, .info: style = theme.statusBar
            }
            let room = Rect(x: x, y: row.y, width: left.maxX - x, height: 1)
            canvas.put(message.text, in: room, alignment: .left, style: style)
        }
    }
}
