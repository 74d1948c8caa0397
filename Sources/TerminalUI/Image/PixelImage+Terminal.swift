internal import CChafa

/// How pictures reach the terminal: real pixels through one of three protocols, or cells.
public enum PixelMode: String, Sendable, CaseIterable {
    /// The kitty graphics protocol (kitty, WezTerm, Ghostty, Konsole): `ESC _ G a=T … ESC \`.
    case kitty
    /// iTerm2's inline images (iTerm2, WezTerm, mintty): `ESC ] 1337 ; File=… BEL`.
    case iterm
    /// DEC sixel graphics (xterm -ti 340, foot, mlterm, WezTerm, Windows Terminal): `ESC P … q … ESC \`.
    case sixel
    /// chafa's block and half-block symbols in colors, which every terminal shows.
    case symbols

    /// Whether pictures in this mode are pixels drawn over the cells.
    public var isPixels: Bool { self != .symbols }
}

extension PixelImage {
    /// The escape sequences that draw the whole image in `columns × rows` cells at the cursor,
    /// in `mode` (not `.symbols`), written by chafa.
    ///
    /// `cellWidth × cellHeight` is a cell in pixels. Sixels are pixels on the screen, so they
    /// are made at that size; kitty and iTerm2 scale what they are sent to the cells, so they
    /// are sent no more pixels than the image has (a panning viewer sends less each step).
    ///
    /// - Returns: `nil` for `.symbols`, for an empty area, or if chafa cannot make a canvas.
    public func terminalSequence(mode: PixelMode, columns: Int, rows: Int, cellWidth: Int, cellHeight: Int) -> [UInt8]? {
        guard mode.isPixels, columns > 0, rows > 0, cellWidth > 0, cellHeight > 0 else { return nil }
        var (cw, ch) = (cellWidth, cellHeight)
        if mode != .sixel {
            // Never more pixels than the picture has: the terminal scales up for free.
            let scale = min(1, Double(width) / Double(columns * cw), Double(height) / Double(rows * ch))
            cw = max(1, Int((Double(cw) * scale).rounded()))
            ch = max(1, Int((Double(ch) * scale).rounded()))
        }
        guard let config = chafa_canvas_config_new() else { return nil }
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
        chafa_canvas_config_set_cell_geometry(config, Int32(cw), Int32(ch))
        chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        switch mode {
        case .kitty: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_KITTY)
        case .iterm: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_ITERM2)
        case .sixel: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SIXELS)
        case .symbols: return nil
        }
        // Stretch to the whole area: the caller has already cut the picture to the area's shape.
        chafa_canvas_config_set_transparency_threshold(config, 1)
        guard let canvas = chafa_canvas_new(config) else { return nil }
        defer { chafa_canvas_unref(canvas) }
        let pixelType = format == .rgb ? CHAFA_PIXEL_RGB8 : CHAFA_PIXEL_RGBA8_UNASSOCIATED
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            chafa_canvas_draw_all_pixels(canvas, pixelType, base, Int32(width), Int32(height), Int32(rowStride))
        }
        guard let info = Self.termInfo() else { return nil }
        defer { chafa_term_info_unref(info) }
        guard let printed = chafa_canvas_print(canvas, info) else { return nil }
        defer { g_string_free(printed, 1) }
        let length = Int(printed.pointee.len)
        guard let start = printed.pointee.str else { return nil }
        return start.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// chafa's fallback sequences (which hold all three protocols), with the kitty image told
    /// not to answer (`q=2`: its `OK` would come back as input) nor to move the cursor (`C=1`).
    private static func termInfo() -> OpaquePointer? {
        guard let database = chafa_term_db_get_default(), let info = chafa_term_db_get_fallback_info(database) else { return nil }
        let kitty = "\u{1B}_Ga=T,q=2,C=1,f=%1,s=%2,v=%3,c=%4,r=%5,m=1\u{1B}\\"
        _ = chafa_term_info_set_seq(info, CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1, kitty, nil)
        return info
    }

    /// The part `x..<x+width`, `y..<y+height` of the image (clamped to it), as a new image.
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> PixelImage {
        let x0 = max(0, min(width - 1, x)), y0 = max(0, min(height - 1, y))
        let w = max(1, min(width - x0, cropWidth)), h = max(1, min(height - y0, cropHeight))
        let bpp = format.bytesPerPixel
        var out = [UInt8](repeating: 0, count: w * h * bpp)
        bytes.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                for row in 0..<h {
                    (to + row * w * bpp).update(from: from + (y0 + row) * rowStride + x0 * bpp, count: w * bpp)
                }
            }
        }
        return PixelImage(width: w, height: h, format: format, bytes: out)
    }

    /// The whole image scaled to `newWidth × newHeight` by area averaging (RGB).
    public func scaled(toWidth newWidth: Int, height newHeight: Int) -> PixelImage {
        let w = max(1, newWidth), h = max(1, newHeight)
        if w == width, h == height, format == .rgb, rowStride == width * 3 { return self }
        return PixelImage(width: w, height: h, bytes: averaged(wholeRegion, toWidth: w, height: h))
    }
}
