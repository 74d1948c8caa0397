extension CellImage {
    /// The upper half block: its foreground paints the top half of the cell, its background the bottom.
    static let upperHalf: Unicode.Scalar = "▀"

    /// Our own renderer: the image averaged down to two pixels a cell, drawn as `▀` in color, or
    /// as one shade symbol a cell (the two pixels' mean luminance) in grayscale.
    static func renderHalfBlocks(_ pixels: PixelImage, layout: Layout, depth: ColorDepth) -> CellImage {
        let (columns, rows) = (layout.cells.width, layout.cells.height)
        let rgb = pixels.averaged(layout.source, toWidth: columns, height: 2 * rows)
        var cells: [Cell] = []
        cells.reserveCapacity(columns * rows)
        let gray = grayscaleColors(depth: depth)
        for y in 0..<rows {
            for x in 0..<columns {
                let top = (2 * y * columns + x) * 3
                let bottom = top + columns * 3
                let (r1, g1, b1) = (rgb[top], rgb[top + 1], rgb[top + 2])
                let (r2, g2, b2) = (rgb[bottom], rgb[bottom + 1], rgb[bottom + 2])
                if depth >= .indexed256 {
                    cells.append(Cell(symbol: upperHalf, foreground: color(r1, g1, b1, depth: depth), background: color(r2, g2, b2, depth: depth)))
                } else {
                    let level = (luminance(r1, g1, b1) + luminance(r2, g2, b2) + 1) / 2
                    cells.append(Cell(symbol: shade(forLuminance: level), foreground: gray.foreground, background: gray.background))
                }
            }
        }
        return CellImage(width: columns, height: rows, cells: cells)
    }
}
