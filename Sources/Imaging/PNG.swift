import CSpng
import Foundation

/// PNG decode and encode on libspng.
///
/// A PNG is decoded a row at a time (libspng's progressive decode, which also deinterlaces an
/// Adam7 image pass by pass) into a ``RowScaler``, so a thumbnail of a big screenshot never
/// holds the full image. The header is checked against the pixel limit before anything else;
/// libspng's own limits bound each chunk and the chunks it keeps.
public enum PNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The largest chunk read, and the most bytes of ancillary chunks (text, ICC profiles) kept.
    static let chunkLimit = 16 << 20
    static let chunkCacheLimit = 32 << 20
    /// The widest or tallest PNG decoded: a row is held whole (ours at 4 bytes a pixel, libspng's
    /// two scanlines at up to 8), so a 400,000,000 × 1 picture, within the pixel limit, would
    /// still cost gigabytes a row.
    public static let maxSide = 1 << 20

    /// Width and height from the IHDR chunk, which must come first.
    public static func header(of data: Data) throws(ImagingError) -> (width: Int, height: Int) {
        let bytes = [UInt8](data.prefix(33))
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature else { throw .notPicture("not a PNG signature") }
        guard Array(bytes[12..<16]) == Array("IHDR".utf8) else { throw .decodeFailed("PNG: the first chunk is not IHDR") }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        guard width > 0, height > 0 else { throw .decodeFailed("PNG: a size of \(width)×\(height)") }
        return (width, height)
    }

    /// Decodes to the smallest size covering `minWidth`×`minHeight` (``Picture/decode(_:covering:_:maxPixels:)``).
    public static func decode(_ data: Data, covering minWidth: Int = .max, _ minHeight: Int = .max,
                              maxPixels: Int = Picture.maxPixels) throws(ImagingError) -> RGBImage {
        let declared = try header(of: data)
        guard Picture.pixels(declared.width, declared.height) <= maxPixels, declared.width <= maxSide, declared.height <= maxSide else {
            throw .tooLarge(width: declared.width, height: declared.height)
        }
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImagingError) in try decode(raw, covering: minWidth, minHeight, maxPixels: maxPixels) }
        }
        return try result.get()
    }

    private static func decode(_ raw: UnsafeRawBufferPointer, covering minWidth: Int, _ minHeight: Int,
                               maxPixels: Int) throws(ImagingError) -> RGBImage {
        guard let context = spng_ctx_new(0) else { throw .decodeFailed("PNG: cannot start the decoder") }
        defer { spng_ctx_free(context) }
        // A broken checksum in an ancillary chunk drops the chunk, as browsers do; in the image data it fails.
        spng_set_crc_action(context, Int32(SPNG_CRC_ERROR.rawValue), Int32(SPNG_CRC_DISCARD.rawValue))
        spng_set_chunk_limits(context, chunkLimit, chunkCacheLimit)
        spng_set_image_limits(context, UInt32(maxSide), UInt32(maxSide))
        try check(spng_set_png_buffer(context, raw.baseAddress, raw.count))
        var ihdr = spng_ihdr()
        try check(spng_get_ihdr(context, &ihdr))
        let width = Int(ihdr.width), height = Int(ihdr.height)
        guard width > 0, height > 0 else { throw .decodeFailed("PNG: a size of \(width)×\(height)") }
        guard Picture.pixels(width, height) <= maxPixels, width <= maxSide, height <= maxSide else { throw .tooLarge(width: width, height: height) }
        let format = Int32(SPNG_FMT_RGBA8.rawValue)
        try check(spng_decode_image(context, nil, 0, format, Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue)))
        let target = Picture.coveringSize(width: width, height: height, minWidth: minWidth, minHeight: minHeight)
        var scaler = RowScaler(sourceWidth: width, sourceHeight: height, width: target.width, height: target.height)
        var row = [UInt8](repeating: 0, count: width * 4)
        let interlaced = ihdr.interlace_method != 0
        // Adam7: each pass's first column and step.
        let passX = [0, 4, 0, 2, 0, 1, 0], stepX = [8, 8, 4, 4, 2, 2, 1]
        var decodedRows = 0
        while true {
            var info = spng_row_info()
            guard spng_get_row_info(context, &info) == 0 else { break }
            let status = row.withUnsafeMutableBytes { spng_decode_row(context, $0.baseAddress, $0.count) }
            guard status == 0 || status == Int32(SPNG_EOI.rawValue) else {
                // A file cut short keeps the rows it had, as a cut JPEG does; one with none fails.
                if decodedRows > 0 { break }
                throw .decodeFailed("PNG: " + message(status))
            }
            decodedRows += 1
            row.withUnsafeBufferPointer { pointer in
                let base = pointer.baseAddress!
                if interlaced, (0..<7).contains(Int(info.pass)) {
                    let pass = Int(info.pass)
                    let first = passX[pass], step = stepX[pass]
                    guard first < width else { return }
                    let count = (width - first + step - 1) / step
                    scaler.add(row: Int(info.row_num), x: first, step: step, count: count, rgba: base + first * 4, stride: 4 * step)
                } else {
                    scaler.add(row: Int(info.row_num), count: width, rgba: base)
                }
            }
            if status == Int32(SPNG_EOI.rawValue) { break }
        }
        return scaler.take()
    }

    /// Encodes RGB pixels as a PNG (what `get_thumbnail_v2` answers when asked for `png`).
    public static func encode(_ image: RGBImage) throws(ImagingError) -> Data {
        try encode(width: image.width, height: image.height, pixels: image.pixels, alpha: false)
    }

    /// Encodes straight RGBA pixels (4 bytes a pixel) as a PNG with an alpha channel.
    public static func encode(width: Int, height: Int, rgba: [UInt8]) throws(ImagingError) -> Data {
        guard rgba.count == width * height * 4 else { throw .encodeFailed("PNG: \(rgba.count) bytes for \(width)×\(height) RGBA") }
        return try encode(width: width, height: height, pixels: rgba, alpha: true)
    }

    private static func encode(width: Int, height: Int, pixels: [UInt8], alpha: Bool) throws(ImagingError) -> Data {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else { throw .encodeFailed("empty image") }
        guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { throw .encodeFailed("PNG: cannot start the encoder") }
        defer { spng_ctx_free(context) }
        spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1)
        var ihdr = spng_ihdr(width: UInt32(width), height: UInt32(height), bit_depth: 8,
                             color_type: UInt8(alpha ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue : SPNG_COLOR_TYPE_TRUECOLOR.rawValue),
                             compression_method: 0, filter_method: 0, interlace_method: 0)
        var status = spng_set_ihdr(context, &ihdr)
        if status == 0 {
            status = pixels.withUnsafeBytes { spng_encode_image(context, $0.baseAddress, $0.count, Int32(SPNG_FMT_PNG.rawValue),
                                                                Int32(SPNG_ENCODE_FINALIZE.rawValue)) }
        }
        guard status == 0 else { throw .encodeFailed("PNG: " + message(status)) }
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng_get_png_buffer(context, &length, &error), error == 0 else { throw .encodeFailed("PNG: " + message(error)) }
        defer { free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    private static func check(_ status: Int32) throws(ImagingError) {
        guard status == 0 else { throw .decodeFailed("PNG: " + message(status)) }
    }

    private static func message(_ status: Int32) -> String {
        guard let text = spng_strerror(status) else { return "error \(status)" }
        return String(cString: text)
    }
}
