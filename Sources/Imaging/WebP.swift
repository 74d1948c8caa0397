import CWebP
import Foundation

/// WebP decode (lossy, lossless, with alpha; an animation's first frame) and encode on libwebp.
///
/// A still WebP is scaled by libwebp's own rescaler while it decodes, so a thumbnail never
/// holds the full image. An animation is decoded by the demuxer's animation decoder, which
/// keeps two whole canvases (8 bytes a pixel where a still image's output takes 4): its canvas
/// is held to three eighths of the pixel limit, so it costs no more memory than the largest
/// JPEG does.
public enum WebP {
    /// Width and height from the bitstream's headers (an animation's canvas).
    public static func header(of data: Data) throws(ImagingError) -> (width: Int, height: Int) {
        let features = try self.features(of: data)
        return (Int(features.width), Int(features.height))
    }

    private static func features(of data: Data) throws(ImagingError) -> WebPBitstreamFeatures {
        guard PictureFormat.sniff(data) == .webp else { throw .notPicture("not a WebP signature") }
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBytes { raw in
            WebPGetFeatures(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &features)
        }
        guard status == VP8_STATUS_OK else { throw .decodeFailed("WebP: " + message(status)) }
        guard features.width > 0, features.height > 0 else { throw .decodeFailed("WebP: a size of \(features.width)×\(features.height)") }
        return features
    }

    /// Decodes to the smallest size covering `minWidth`×`minHeight`.
    public static func decode(_ data: Data, covering minWidth: Int = .max, _ minHeight: Int = .max,
                              maxPixels: Int = Picture.maxPixels) throws(ImagingError) -> RGBImage {
        let features = try self.features(of: data)
        let width = Int(features.width), height = Int(features.height)
        guard width * height <= maxPixels else { throw .tooLarge(width: width, height: height) }
        let target = Picture.coveringSize(width: width, height: height, minWidth: minWidth, minHeight: minHeight)
        if features.has_animation != 0 {
            guard width * height <= maxPixels / 8 * 3 else { throw .tooLarge(width: width, height: height) }
            return try firstFrame(data, width: width, height: height, target: target)
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .decodeFailed("WebP: the library's version does not match") }
        if target.width != width || target.height != height {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
        }
        // Into our own buffer, straight RGBA.
        var rgba = [UInt8](repeating: 0, count: target.width * target.height * 4)
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        let status = rgba.withUnsafeMutableBytes { output in
            config.output.u.RGBA.rgba = output.bindMemory(to: UInt8.self).baseAddress
            config.output.u.RGBA.stride = Int32(target.width * 4)
            config.output.u.RGBA.size = output.count
            return data.withUnsafeBytes { raw in WebPDecode(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &config) }
        }
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else { throw .decodeFailed("WebP: " + message(status)) }
        var scaler = RowScaler(sourceWidth: target.width, sourceHeight: target.height, width: target.width, height: target.height)
        rgba.withUnsafeBufferPointer { pixels in
            for y in 0..<target.height { scaler.add(row: y, count: target.width, rgba: pixels.baseAddress! + y * target.width * 4) }
        }
        return scaler.take()
    }

    /// An animation's first frame, composed on its canvas by the demuxer, then scaled down.
    private static func firstFrame(_ data: Data, width: Int, height: Int, target: (width: Int, height: Int)) throws(ImagingError) -> RGBImage {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw .decodeFailed("WebP: the library's version does not match") }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImagingError) -> RGBImage in
                var webp = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
                guard let decoder = WebPAnimDecoderNew(&webp, &options) else { throw .decodeFailed("WebP: a broken animation") }
                defer { WebPAnimDecoderDelete(decoder) }
                var info = WebPAnimInfo()
                guard WebPAnimDecoderGetInfo(decoder, &info) != 0, Int(info.canvas_width) == width, Int(info.canvas_height) == height else {
                    throw .decodeFailed("WebP: an animation's canvas that does not match its header")
                }
                var frame: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &frame, &timestamp) != 0, let frame else { throw .decodeFailed("WebP: a broken first frame") }
                var scaler = RowScaler(sourceWidth: width, sourceHeight: height, width: target.width, height: target.height)
                for y in 0..<height { scaler.add(row: y, count: width, rgba: frame + y * width * 4) }
                return scaler.take()
            }
        }
        return try result.get()
    }

    /// Encodes RGB pixels as a WebP, lossless or at `quality` (0…100). For tests and fixtures.
    public static func encode(_ image: RGBImage, lossless: Bool = true, quality: Float = 80) throws(ImagingError) -> Data {
        guard image.width > 0, image.height > 0 else { throw .encodeFailed("empty image") }
        var output: UnsafeMutablePointer<UInt8>?
        let size = image.pixels.withUnsafeBufferPointer { pixels in
            lossless ? WebPEncodeLosslessRGB(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * 3), &output)
                : WebPEncodeRGB(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * 3), quality, &output)
        }
        guard size > 0, let output else { throw .encodeFailed("WebP: the encoder failed") }
        defer { WebPFree(output) }
        return Data(bytes: output, count: size)
    }

    /// Encodes straight RGBA pixels as a lossless WebP with alpha. For tests and fixtures.
    public static func encode(width: Int, height: Int, rgba: [UInt8]) throws(ImagingError) -> Data {
        guard width > 0, height > 0, rgba.count == width * height * 4 else { throw .encodeFailed("WebP: \(rgba.count) bytes for \(width)×\(height) RGBA") }
        var output: UnsafeMutablePointer<UInt8>?
        let size = rgba.withUnsafeBufferPointer { WebPEncodeLosslessRGBA($0.baseAddress, Int32(width), Int32(height), Int32(width * 4), &output) }
        guard size > 0, let output else { throw .encodeFailed("WebP: the encoder failed") }
        defer { WebPFree(output) }
        return Data(bytes: output, count: size)
    }

    private static func message(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: return "out of memory"
        case VP8_STATUS_INVALID_PARAM: return "an invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: return "a broken bitstream"
        case VP8_STATUS_UNSUPPORTED_FEATURE: return "an unsupported feature"
        case VP8_STATUS_SUSPENDED: return "suspended"
        case VP8_STATUS_USER_ABORT: return "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: return "the data ends too soon"
        default: return "error \(status.rawValue)"
        }
    }
}
