import Synchronization

/// Where a panorama sits in an area of cells: how far it is zoomed and how far it is panned.
///
/// At zoom 1 the picture's height fills the area's height, so a panorama is wider than the
/// screen and is panned sideways; ``fitWholeZoom`` shows all of it. Offsets count columns of
/// the zoomed picture from its left edge. Pure arithmetic, tested without a terminal.
public struct PanoramaViewport: Equatable, Sendable {
    /// The picture in pixels (of the rendition at hand; only the shape matters here).
    public var imageWidth: Int
    public var imageHeight: Int
    /// The area in cells.
    public var columns: Int
    public var rows: Int
    /// A cell in the picture's display pixels: 1×2 for symbols (two pixels a cell, stacked),
    /// the cell's real size in pixels for kitty, iTerm2 and sixel.
    public var cellWidth: Int
    public var cellHeight: Int
    /// 1 fits the height; less shows more of the width, down to ``fitWholeZoom``.
    public var zoom: Double
    /// The first column of the zoomed picture shown, clamped by ``clamp()``.
    public var offset: Int

    /// The zoom steps `+` and `-` move between (``fitWholeZoom`` is the floor).
    public static let zoomSteps: [Double] = [1, 1.5, 2, 3, 4, 6, 8]

    public init(imageWidth: Int, imageHeight: Int, columns: Int, rows: Int, cellWidth: Int = 1, cellHeight: Int = 2,
                zoom: Double = 1, offset: Int = 0) {
        self.imageWidth = max(1, imageWidth)
        self.imageHeight = max(1, imageHeight)
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.cellWidth = max(1, cellWidth)
        self.cellHeight = max(1, cellHeight)
        self.zoom = zoom
        self.offset = offset
        clamp()
    }

    /// Display pixels per picture pixel at this zoom.
    public var scale: Double { Double(rows * cellHeight) / Double(imageHeight) * zoom }

    /// The zoomed picture in cells.
    public var contentColumns: Int { max(1, Int((Double(imageWidth) * scale / Double(cellWidth)).rounded())) }
    public var contentRows: Int { max(1, Int((Double(imageHeight) * scale / Double(cellHeight)).rounded())) }

    /// The zoom that shows the whole width (never above 1: a short picture stays fitted to
    /// the height).
    public var fitWholeZoom: Double {
        let atOne = Double(imageWidth) * Double(rows * cellHeight) / Double(imageHeight) / Double(cellWidth)
        return min(1, Double(columns) / atOne)
    }

    /// The largest offset: the right end of the picture at the right edge.
    public var maxOffset: Int { max(0, contentColumns - columns) }

    /// The part of the area the picture covers: the whole width when it is wider, centered
    /// otherwise; its height, centered when it is shorter than the area.
    public var shownColumns: Int { min(columns, contentColumns) }
    public var shownRows: Int { min(rows, contentRows) }
    /// The first row of the zoomed picture shown (zoomed in, the middle band is shown).
    public var rowOffset: Int { max(0, (contentRows - rows) / 2) }

    /// Whether the whole width is on screen.
    public var showsWholeWidth: Bool { contentColumns <= columns }

    public mutating func clamp() {
        zoom = max(fitWholeZoom, min(Self.zoomSteps.last ?? 8, zoom))
        offset = max(0, min(maxOffset, offset))
    }

    /// Pans by `delta` columns (negative is left).
    public mutating func pan(by delta: Int) {
        offset += delta
        clamp()
    }

    public mutating func panToStart() { offset = 0 }
    public mutating func panToEnd() { offset = maxOffset }

    /// The next zoom step in (`+`) or out (`-`), keeping the middle of the screen in place.
    public mutating func zoom(in zoomIn: Bool) {
        let steps = ([fitWholeZoom] + Self.zoomSteps.filter { $0 > fitWholeZoom + 0.001 }).sorted()
        let next = zoomIn ? steps.first { $0 > zoom + 0.001 } : steps.last { $0 < zoom - 0.001 }
        guard let next else { return }
        setZoom(next)
    }

    /// Sets the zoom, keeping the picture's point at the middle of the screen there.
    public mutating func setZoom(_ newZoom: Double) {
        let middle = (Double(offset) + Double(columns) / 2) / Double(contentColumns)
        zoom = newZoom
        clamp()
        offset = Int((middle * Double(contentColumns) - Double(columns) / 2).rounded())
        clamp()
    }

    /// `0` or `f`: the whole panorama.
    public mutating func fitWhole() { setZoom(fitWholeZoom) }

    /// The shown part as fractions of the width, for the position bar.
    public var shownFraction: (start: Double, end: Double) {
        let total = Double(contentColumns)
        return (Double(offset) / total, min(1, Double(offset + columns) / total))
    }

    /// The shown part in picture pixels (x, y, width, height), for pixel modes.
    public var sourceRegion: (x: Int, y: Int, width: Int, height: Int) {
        let perColumn = Double(cellWidth) / scale, perRow = Double(cellHeight) / scale
        let x = Int((Double(offset) * perColumn).rounded()), y = Int((Double(rowOffset) * perRow).rounded())
        let width = Int((Double(shownColumns) * perColumn).rounded()), height = Int((Double(shownRows) * perRow).rounded())
        return (x, y, max(1, min(imageWidth - x, width)), max(1, min(imageHeight - y, height)))
    }

    /// The size to send the whole picture at, for a terminal that keeps it and shows a part
    /// (kitty): no more pixels than the screen shows at this zoom, nor than the picture has,
    /// nor than `maxSide` a side. It depends on the zoom and the area only, never on the pan,
    /// so panning re-places the picture sent once.
    public func rendition(maxSide: Int) -> Size {
        let fit = min(1, scale, Double(maxSide) / Double(imageWidth), Double(maxSide) / Double(imageHeight))
        return Size(width: max(1, min(maxSide, Int((Double(imageWidth) * fit).rounded()))),
                    height: max(1, min(maxSide, Int((Double(imageHeight) * fit).rounded()))))
    }

    /// ``sourceRegion`` in the pixels of a rendition of `size` (see ``rendition(maxSide:)``).
    public func sourceRect(in size: Size) -> Rect {
        let region = sourceRegion
        let sx = Double(size.width) / Double(imageWidth), sy = Double(size.height) / Double(imageHeight)
        let x = min(size.width - 1, Int((Double(region.x) * sx).rounded())), y = min(size.height - 1, Int((Double(region.y) * sy).rounded()))
        return Rect(x: x, y: y, width: max(1, min(size.width - x, Int((Double(region.width) * sx).rounded()))),
                    height: max(1, min(size.height - y, Int((Double(region.height) * sy).rounded()))))
    }
}

/// A decoded panorama and what panning it needs: decoded once, scaled once per zoom, and each
/// step turns only the visible window into cells.
///
/// A pan step at 200×60 cells on a 16000×2000 panorama crops a 200×116-pixel window of the
/// picture scaled for the zoom and turns just that into cells (see `ui-bench viewer`).
public final class PanoramaPicture: Sendable {
    public let source: PixelImage
    /// The picture scaled for the last zoom asked for. A worker decodes the picture and hands it
    /// to the UI, which alone asks for cells, so the lock is never contended; it only makes the
    /// hand-over safe without an unchecked promise.
    private let scaled = Mutex<(width: Int, height: Int, image: PixelImage)?>(nil)

    public init(_ source: PixelImage) {
        self.source = source
    }

    /// The visible window as cells (symbols mode: the viewport's cells are 1×2 pixels).
    ///
    /// The half-block renderer by default: a pan step redraws the whole screen, and chafa,
    /// which works at 8×8 pixels a cell to pick among its symbols, takes ten times longer at
    /// 200×60 (`ui-bench viewer`), past a frame's 16 ms; `▀` in two colors already shows every
    /// pixel the cells can.
    public func cells(_ viewport: PanoramaViewport, depth: ColorDepth, renderer: CellImage.Renderer = .halfBlock) -> CellImage {
        let width = viewport.contentColumns * viewport.cellWidth, height = viewport.contentRows * viewport.cellHeight
        let image = scaled.withLock { scaled in
            if let scaled, scaled.width == width, scaled.height == height { return scaled.image }
            let image = source.scaled(toWidth: width, height: height)
            scaled = (width, height, image)
            return image
        }
        let window = image.cropped(x: viewport.offset * viewport.cellWidth, y: viewport.rowOffset * viewport.cellHeight,
                                   width: viewport.shownColumns * viewport.cellWidth, height: viewport.shownRows * viewport.cellHeight)
        return CellImage.render(window, columns: viewport.shownColumns, rows: viewport.shownRows, depth: depth, fit: .fill, renderer: renderer)
    }

    /// The whole picture at `size` (kitty: sent once, then placed part by part).
    public func rendition(_ size: Size) -> PixelImage {
        source.scaled(toWidth: size.width, height: size.height)
    }

    /// The visible window in picture pixels (pixel modes: the terminal or chafa scales it).
    public func window(_ viewport: PanoramaViewport) -> PixelImage {
        let region = viewport.sourceRegion
        return source.cropped(x: region.x, y: region.y, width: region.width, height: region.height)
    }
}
