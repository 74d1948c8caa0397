internal import CChafa

extension CellImage {
    /// The chafa back end: chafa picks each cell's symbol among spaces, solid, block and
    /// half-block symbols, and its two colors; the cells are read back from its canvas.
    ///
    /// Every chafa object lives only inside this call, so renders on different threads share
    /// nothing (chafa itself is thread-safe for separate objects).
    ///
    /// - Returns: `nil` if chafa cannot make a canvas.
    static func renderWithChafa(_ pixels: PixelImage, layout: Layout, depth: ColorDepth) -> CellImage? {
        let (columns, rows) = (layout.cells.width, layout.cells.height)
        let grayscale = depth < .indexed256

        guard let symbols = chafa_symbol_map_new() else { return nil }
        defer { chafa_symbol_map_unref(symbols) }
        var tags = CHAFA_SYMBOL_TAG_SPACE.rawValue | CHAFA_SYMBOL_TAG_SOLID.rawValue
            | CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_HALF.rawValue
        // Without colors, chafa's only way to show a mid-gray is a shade symbol.
        if grayscale { tags |= CHAFA_SYMBOL_TAG_STIPPLE.rawValue }
        chafa_symbol_map_add_by_tags(symbols, ChafaSymbolTags(rawValue: tags))

        guard let config = chafa_canvas_config_new() else { return nil }
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
        chafa_canvas_config_set_symbol_map(config, symbols)
        switch depth {
        case .truecolor: chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        // 240, not 256: the 16 system colors look however the user's theme says.
        case .indexed256: chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_INDEXED_240)
        // Default colors only, assumed light on dark, as the half-block renderer's shades are.
        case .ansi8, .none: chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_FGBG)
        }
        chafa_canvas_config_set_dither_mode(config, CHAFA_DITHER_MODE_NONE)
        chafa_canvas_config_set_color_extractor(config, CHAFA_COLOR_EXTRACTOR_AVERAGE)
        // Chafa's contrast and saturation boost helps only when there are no colors to match.
        chafa_canvas_config_set_preprocessing_enabled(config, grayscale ? 1 : 0)
        // Alpha is ignored (as by the half-block renderer): at 1, no pixel counts as transparent.
        chafa_canvas_config_set_transparency_threshold(config, 1)

        guard let canvas = chafa_canvas_new(config) else { return nil }
        defer { chafa_canvas_unref(canvas) }

        // Chafa takes whole pixels, so a crop for `.fill` is rounded to them.
        let x0 = max(0, min(pixels.width - 1, Int(layout.source.x.rounded())))
        let y0 = max(0, min(pixels.height - 1, Int(layout.source.y.rounded())))
        let shownWidth = max(1, min(pixels.width - x0, Int(layout.source.width.rounded())))
        let shownHeight = max(1, min(pixels.height - y0, Int(layout.source.height.rounded())))
        let pixelType = pixels.format == .rgb ? CHAFA_PIXEL_RGB8 : CHAFA_PIXEL_RGBA8_UNASSOCIATED
        pixels.bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            chafa_canvas_draw_all_pixels(
                canvas, pixelType, base + y0 * pixels.rowStride + x0 * pixels.format.bytesPerPixel,
                Int32(shownWidth), Int32(shownHeight), Int32(pixels.rowStride)
            )
        }

        let gray = grayscaleColors(depth: depth)
        var cells: [Cell] = []
        cells.reserveCapacity(columns * rows)
        for y in 0..<rows {
            for x in 0..<columns {
                let code = chafa_canvas_get_char_at(canvas, Int32(x), Int32(y))
                // 0 marks the right half of a wide symbol, which this symbol map never has.
                let symbol = code == 0 ? " " : Unicode.Scalar(code) ?? " "
                if grayscale {
                    cells.append(Cell(symbol: symbol, foreground: gray.foreground, background: gray.background))
                    continue
                }
                var foreground: Int32 = -1, background: Int32 = -1
                chafa_canvas_get_raw_colors_at(canvas, Int32(x), Int32(y), &foreground, &background)
                cells.append(Cell(symbol: symbol, foreground: color(raw: foreground, depth: depth), background: color(raw: background, depth: depth)))
            }
        }
        return CellImage(width: columns, height: rows, cells: cells)
    }

    /// A color as chafa's canvas stores it: -1 for transparent, 0xRRGGBB in truecolor, a pen number otherwise.
    private static func color(raw: Int32, depth: ColorDepth) -> Color {
        guard raw >= 0 else { return .default }
        if depth == .truecolor {
            return .rgb(UInt8(truncatingIfNeeded: raw >> 16), UInt8(truncatingIfNeeded: raw >> 8), UInt8(truncatingIfNeeded: raw))
        }
        return raw < 256 ? .indexed(UInt8(raw)) : .default
    }
}
