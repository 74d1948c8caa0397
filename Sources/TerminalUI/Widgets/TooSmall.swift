/// The notice drawn instead of the app when the terminal is below the minimum size.
///
/// The app keeps running underneath (keys still work, `q` still quits) and comes back as soon
/// as the terminal grows. Any size, down to 0×0, is safe: the text is wrapped, then clipped.
public struct TooSmall: Sendable {
    /// The smallest screen the app lays out for.
    public static let minimum = Size(width: 40, height: 10)

    public var minimum: Size

    public init(minimum: Size = TooSmall.minimum) { self.minimum = minimum }

    /// The notice's text.
    public var message: String { "Terminal too small (need \(minimum.width)×\(minimum.height))" }

    @MainActor
    public func render(into canvas: any Canvas, area: Rect) {
        let area = area.intersection(canvas.bounds)
        guard !area.isEmpty else { return }
        canvas.fill(area, style: canvas.theme.text)
        // Whole when it fits, else split where it reads well, and only then wrapped anywhere.
        let parts = TextWidth.of(message) <= area.width
            ? [message] : ["Terminal too small", "(need \(minimum.width)×\(minimum.height))"]
        let lines = parts.flatMap { TextWidth.wrap($0, width: area.width) }
        let top = area.y + max(0, (area.height - lines.count) / 2)
        for (i, line) in lines.enumerated() where top + i < area.maxY {
            canvas.put(line, in: area.row(top + i - area.y), alignment: .center, style: canvas.theme.text.bold)
        }
    }
}
