import CGif
import Foundation

/// GIF decode (the first frame) and encode on giflib.
///
/// The file is read record by record with giflib's low-level calls, never slurped: only the
/// first image is decompressed, a row at a time, into a ``RowScaler`` the size of the logical
/// screen, so an animation of a thousand frames costs what its first frame does. Both the
/// screen and the frame are checked against the pixel limit before any row is decoded.
public enum GIF {
    /// Width and height of the logical screen (of the first frame where the screen says 0×0).
    public static func header(of data: Data) throws(ImagingError) -> (width: Int, height: Int) {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImagingError) -> (width: Int, height: Int) in
                let file = try Opened(raw)
                defer { file.close() }
                let frame = try file.firstFrame()
                return file.canvas(of: frame)
            }
        }
        return try result.get()
    }

    /// Decodes the first frame to the smallest size covering `minWidth`×`minHeight`.
    public static func decode(_ data: Data, covering minWidth: Int = .max, _ minHeight: Int = .max,
                              maxPixels: Int = Picture.maxPixels) throws(ImagingError) -> RGBImage {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImagingError) -> RGBImage in
                let file = try Opened(raw)
                defer { file.close() }
                let screen = (width: Int(file.gif.pointee.SWidth), height: Int(file.gif.pointee.SHeight))
                guard screen.width * screen.height <= maxPixels else { throw .tooLarge(width: screen.width, height: screen.height) }
                let frame = try file.firstFrame()
                guard frame.width * frame.height <= maxPixels else { throw .tooLarge(width: frame.width, height: frame.height) }
                let canvas = file.canvas(of: frame)
                guard canvas.width * canvas.height <= maxPixels else { throw .tooLarge(width: canvas.width, height: canvas.height) }
                return try file.decode(frame, canvas: canvas, covering: minWidth, minHeight)
            }
        }
        return try result.get()
    }

    /// The first image's placement and colors, once its descriptor is read.
    struct Frame {
        var left: Int
        var top: Int
        var width: Int
        var height: Int
        var interlaced: Bool
        var transparent: Int?
        /// Where the screen says 0×0: the frame alone, at the origin.
        var ignoresOffset = false
    }

    /// Bytes read through giflib's input callback.
    private struct Cursor {
        var base: UnsafeRawPointer?
        var count: Int
        var offset = 0
    }

    private final class Opened {
        let gif: UnsafeMutablePointer<GifFileType>
        private let cursor: UnsafeMutablePointer<Cursor>

        init(_ raw: UnsafeRawBufferPointer) throws(ImagingError) {
            guard raw.count >= 6, PictureFormat.sniff(raw.bindMemory(to: UInt8.self)) == .gif else { throw .notPicture("not a GIF signature") }
            cursor = .allocate(capacity: 1)
            cursor.initialize(to: Cursor(base: raw.baseAddress, count: raw.count))
            var error: Int32 = 0
            let read: InputFunc = { gif, buffer, length in
                guard let gif, let buffer, length > 0, let user = gif.pointee.UserData else { return 0 }
                let cursor = user.assumingMemoryBound(to: Cursor.self)
                let n = min(Int(length), cursor.pointee.count - cursor.pointee.offset)
                guard n > 0, let base = cursor.pointee.base else { return 0 }
                memcpy(buffer, base + cursor.pointee.offset, n)
                cursor.pointee.offset += n
                return Int32(n)
            }
            guard let gif = DGifOpen(cursor, read, &error) else {
                cursor.deallocate()
                throw .decodeFailed("GIF: " + GIF.message(error))
            }
            self.gif = gif
        }

        func close() {
            var error: Int32 = 0
            DGifCloseFile(gif, &error)
            cursor.deallocate()
        }

        /// Reads records up to the first image descriptor, keeping a graphic control
        /// extension's transparent color.
        func firstFrame() throws(ImagingError) -> Frame {
            var transparent: Int?
            while true {
                var type = UNDEFINED_RECORD_TYPE
                guard DGifGetRecordType(gif, &type) == GIF_OK else { throw failure() }
                switch type {
                case IMAGE_DESC_RECORD_TYPE:
                    guard DGifGetImageDesc(gif) == GIF_OK else { throw failure() }
                    let image = gif.pointee.Image
                    guard image.Width > 0, image.Height > 0 else { throw .decodeFailed("GIF: a frame of \(image.Width)×\(image.Height)") }
                    guard image.ColorMap != nil || gif.pointee.SColorMap != nil else { throw .decodeFailed("GIF: no color map") }
                    var frame = Frame(left: Int(image.Left), top: Int(image.Top), width: Int(image.Width), height: Int(image.Height),
                                      interlaced: image.Interlace, transparent: transparent)
                    if gif.pointee.SWidth <= 0 || gif.pointee.SHeight <= 0 { frame.ignoresOffset = true }
                    return frame
                case EXTENSION_RECORD_TYPE:
                    var code: Int32 = 0
                    var block: UnsafeMutablePointer<GifByteType>?
                    guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw failure() }
                    if code == GRAPHICS_EXT_FUNC_CODE, let block {
                        var control = GraphicsControlBlock()
                        if DGifExtensionToGCB(Int(block[0]), block + 1, &control) == GIF_OK {
                            transparent = control.TransparentColor == NO_TRANSPARENT_COLOR ? nil : Int(control.TransparentColor)
                        }
                    }
                    while block != nil {
                        guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw failure() }
                    }
                case TERMINATE_RECORD_TYPE:
                    throw .decodeFailed("GIF: no image in the file")
                default:
                    throw .decodeFailed("GIF: an unknown record")
                }
            }
        }

        /// The picture's size: the logical screen, or the frame where the screen is 0×0.
        func canvas(of frame: Frame) -> (width: Int, height: Int) {
            frame.ignoresOffset ? (frame.width, frame.height) : (Int(gif.pointee.SWidth), Int(gif.pointee.SHeight))
        }

        func decode(_ frame: Frame, canvas: (width: Int, height: Int), covering minWidth: Int, _ minHeight: Int) throws(ImagingError) -> RGBImage {
            let map = gif.pointee.Image.ColorMap ?? gif.pointee.SColorMap!
            let colorCount = Int(map.pointee.ColorCount)
            // Index to RGBA, 256 entries: indices past the map are black, the transparent one clear.
            var palette = [UInt8](repeating: 0, count: 256 * 4)
            for index in 0..<256 {
                palette[index * 4 + 3] = 255
                if index < colorCount {
                    let color = map.pointee.Colors[index]
                    palette[index * 4] = color.Red
                    palette[index * 4 + 1] = color.Green
                    palette[index * 4 + 2] = color.Blue
                }
            }
            if let transparent = frame.transparent, (0..<256).contains(transparent) { palette[transparent * 4 + 3] = 0 }
            let target = Picture.coveringSize(width: canvas.width, height: canvas.height, minWidth: minWidth, minHeight: minHeight)
            var scaler = RowScaler(sourceWidth: canvas.width, sourceHeight: canvas.height, width: target.width, height: target.height)
            let (left, top) = frame.ignoresOffset ? (0, 0) : (frame.left, frame.top)
            // The columns of the frame on the canvas.
            let firstColumn = max(0, -left), lastColumn = min(frame.width, canvas.width - left)
            var line = [GifPixelType](repeating: 0, count: frame.width)
            var rgba = [UInt8](repeating: 0, count: max(0, lastColumn - firstColumn) * 4)
            // Interlaced rows come in four passes: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
            let passes = frame.interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
            var decoded = 0
            decoding: for (start, step) in passes {
                for y in stride(from: start, to: frame.height, by: step) {
                    // Rows below the canvas are never shown: a plain frame stops there.
                    if !frame.interlaced, top + y >= canvas.height { break decoding }
                    let status = line.withUnsafeMutableBufferPointer { DGifGetLine(gif, $0.baseAddress, Int32(frame.width)) }
                    guard status == GIF_OK else {
                        // A file cut short keeps the rows it had; one with none fails.
                        if decoded > 0 { break decoding }
                        throw failure()
                    }
                    decoded += 1
                    let canvasY = top + y
                    guard canvasY >= 0, canvasY < canvas.height, lastColumn > firstColumn else { continue }
                    for column in firstColumn..<lastColumn {
                        let entry = Int(line[column]) * 4
                        let out = (column - firstColumn) * 4
                        rgba[out] = palette[entry]
                        rgba[out + 1] = palette[entry + 1]
                        rgba[out + 2] = palette[entry + 2]
                        rgba[out + 3] = palette[entry + 3]
                    }
                    rgba.withUnsafeBufferPointer { scaler.add(row: canvasY, x: left + firstColumn, count: lastColumn - firstColumn, rgba: $0.baseAddress!) }
                }
            }
            return scaler.take()
        }

        private func failure() -> ImagingError {
            .decodeFailed("GIF: " + GIF.message(gif.pointee.Error))
        }
    }

    static func message(_ code: Int32) -> String {
        guard let text = GifErrorString(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// Encodes frames of palette indices (each `width × height`) as a GIF89a with one global
    /// palette of up to 256 colors; `transparent` is a palette index drawn clear. For tests
    /// and fixtures: byteclub never writes GIFs for members.
    public static func encode(width: Int, height: Int, palette: [(r: UInt8, g: UInt8, b: UInt8)], frames: [[UInt8]],
                              transparent: Int? = nil, interlaced: Bool = false) throws(ImagingError) -> Data {
        guard width > 0, height > 0, !frames.isEmpty, frames.allSatisfy({ $0.count == width * height }),
              (1...256).contains(palette.count) else { throw .encodeFailed("GIF: frames that do not match \(width)×\(height)") }
        let output = UnsafeMutablePointer<Data>.allocate(capacity: 1)
        output.initialize(to: Data())
        defer { output.deinitialize(count: 1); output.deallocate() }
        let write: OutputFunc = { gif, bytes, length in
            guard let gif, let bytes, length > 0, let user = gif.pointee.UserData else { return 0 }
            user.assumingMemoryBound(to: Data.self).pointee.append(bytes, count: Int(length))
            return length
        }
        var error: Int32 = 0
        guard let gif = EGifOpen(output, write, &error) else { throw .encodeFailed("GIF: " + message(error)) }
        var bits = 1
        while 1 << bits < palette.count { bits += 1 }
        var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: 1 << bits)
        for (index, color) in palette.enumerated() { colors[index] = GifColorType(Red: color.r, Green: color.g, Blue: color.b) }
        let map = GifMakeMapObject(Int32(colors.count), &colors)
        defer { GifFreeMapObject(map) }
        EGifSetGifVersion(gif, true)
        var ok = EGifPutScreenDesc(gif, Int32(width), Int32(height), Int32(bits), 0, map) == GIF_OK
        let rows = interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { stride(from: $0.0, to: height, by: $0.1) } : Array(0..<height)
        for frame in frames where ok {
            if let transparent {
                var control = GraphicsControlBlock(DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false, DelayTime: 10,
                                                   TransparentColor: Int32(transparent))
                var extensionBytes = [GifByteType](repeating: 0, count: 4)
                let length = EGifGCBToExtension(&control, &extensionBytes)
                ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), extensionBytes) == GIF_OK
            }
            ok = ok && EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), interlaced, nil) == GIF_OK
            for y in rows where ok {
                var line = Array(frame[(y * width)..<((y + 1) * width)])
                ok = EGifPutLine(gif, &line, Int32(width)) == GIF_OK
            }
        }
        let failed = ok ? nil : message(gif.pointee.Error)
        guard EGifCloseFile(gif, &error) == GIF_OK, failed == nil else { throw .encodeFailed("GIF: " + (failed ?? message(error))) }
        return output.pointee
    }
}
