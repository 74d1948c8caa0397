/// The row of tabs at the top of the screen, with the active one highlighted.
///
/// The bar has no state of its own: the caller says which tab is active and asks
/// ``hitTest(_:in:)`` which tab a click landed on.
public struct TabBar: Sendable {
    public var titles: [String]
    public var active: Int
    /// Text at the right end of the bar, such as the app's name.
    public var trailing: String

    public init(titles: [String], active: Int, trailing: String = "") {
        self.titles = titles
        self.active = active
        self.trailing = trailing
    }

    /// Where each tab is drawn in the first row of `area`; tabs that do not fit are empty.
    public func tabFrames(in area: Rect) -> [Rect] {
        var x = area.x + 1
        return titles.map { title in
            let width = TextWidth.of(title) + 2
            let frame = Rect(x: x, y: area.y, width: width, height: 1).intersection(area.row(0))
            x += width + 1
            return frame.width == width ? frame : Rect(x: x, y: area.y, width: 0, height: 0)
        }
    }

    /// The tab under `point`, if any.
    public func hitTest(_ point: Point, in area: Rect) -> Int? {
        tabFrames(in: area).firstIndex { $0.contains(point) }
    }

    @MainActor
    public func render(into canvas: any Canvas, area: Rect) {
        let row = area.row(0).intersection(canvas.bounds)
        guard !row.isEmpty else { return }
        let theme = canvas.theme
        canvas.fill(row, style: theme.tabBar)
        var tabsEnd = row.x
        for (index, frame) in tabFrames(in: row).enumerated() where !frame.isEmpty {
            let style = index == active ? theme.tabActive : theme.tabInactive
            canvas.fill(frame, style: style)
            canvas.put(titles[index], at: Point(x: frame.x + 1, y: frame.y), style: style, clip: frame)
            tabsEnd = frame.maxX
        }
        if !trailing.isEmpty {
            let room = Rect(x: tabsEnd + 2, y: row.y, width: row.maxX - tabsEnd - 3, height: 1)
            canvas.put(trailing, in: room, alignment: .right, style: theme.tabBar)
        }
    }
}
