import CTurboJPEG
import Foundation

/// An 8-bit RGB image, rows top to bottom, no padding.
public struct RGBImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 3, "pixel buffer does not match the size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The RGB value at (x, y).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let index = (y * width + x) * 3
        return (pixels[index], pixels[index + 1], pixels[index + 2])
    }
}

public enum ImagingError: Error, Equatable, CustomStringConvertible {
    /// JPEG's own readers (``JPEG/header(of:)``, ``JPEG/dimensions(of:)``): not a JPEG.
    case notJPEG(String)
    /// ``Picture``: bytes that start as none of the formats it knows (``PictureFormat``).
    case notPicture(String)
    /// A picture of a known format that its library could not decode; the detail names the format.
    case decodeFailed(String)
    case encodeFailed(String)
    /// A declared size over the limit, refused before any pixel is allocated.
    case tooLarge(width: Int, height: Int)

    public var description: String {
        switch self {
        case .notJPEG(let detail): return "Not a JPEG image: \(detail)"
        case .notPicture(let detail): return "Not a picture byteclub draws (JPEG, PNG, GIF, WebP or SVG): \(detail)"
        case .decodeFailed(let detail): return "Cannot decode the picture: \(detail)"
        case .encodeFailed(let detail): return "Cannot encode the picture: \(detail)"
        case .tooLarge(let width, let height): return "Image too large (\(width)×\(height))"
        }
    }
}

/// JPEG decode, scale and encode on libjpeg-turbo's TurboJPEG API.
public enum JPEG {
    /// Images beyond this many pixels are refused rather than decoded (a decompression bomb guard).
    public static let maxPixels = 400_000_000

    /// Width and height from the JPEG header, without decoding the pixels.
    public static func dimensions(of data: Data) throws(ImagingError) -> (width: Int, height: Int) {
        guard let handle = tjInitDecompress() else { throw .decodeFailed("cannot start the decoder") }
        defer { tjDestroy(handle) }
        let header = try readHeader(handle, data)
        return (header.width, header.height)
    }

    /// Decodes, letting libjpeg-turbo scale in the DCT domain (1/2, 1/4, 1/8, …) to the
    /// smallest size that still covers `minWidth`×`minHeight`. Decoding an 8000-pixel panorama
    /// for a 256-pixel thumbnail thus touches an eighth of the pixels in each direction.
    public static func decode(_ data: Data, covering minWidth: Int = .max, _ minHeight: Int = .max) throws(ImagingError) -> RGBImage {
        guard let handle = tjInitDecompress() else { throw .decodeFailed("cannot start the decoder") }
        defer { tjDestroy(handle) }
        let header = try readHeader(handle, data)
        guard header.width * header.height <= maxPixels else { throw .tooLarge(width: header.width, height: header.height) }

        var factor = tjscalingfactor(num: 1, denom: 1)
        if minWidth != .max || minHeight != .max {
            var count: Int32 = 0
            if let factors = tjGetScalingFactors(&count) {
                // Of the factors that keep both sides large enough, take the smallest result.
                var best = (width: header.width, height: header.height)
                for index in 0..<Int(count) {
                    let candidate = factors[index]
                    guard candidate.num <= candidate.denom else { continue }
                    let width = scaled(header.width, candidate)
                    let height = scaled(header.height, candidate)
                    if width >= min(minWidth, header.width), height >= min(minHeight, header.height), width * height < best.width * best.height {
                        best = (width, height)
                        factor = candidate
                    }
                }
            }
        }
        let width = scaled(header.width, factor)
        let height = scaled(header.height, factor)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let result = data.withUnsafeBytes { source in
            pixels.withUnsafeMutableBufferPointer { destination in
                tjDecompress2(handle, source.bindMemory(to: UInt8.self).baseAddress, UInt(source.count),
                              destination.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), TJFLAG_FASTDCT)
            }
        }
        if result != 0 {
            // A warning (e.g. a truncated but usable file) still yields pixels.
            if tjGetErrorCode(handle) != TJERR_WARNING.rawValue {
                throw .decodeFailed("JPEG: " + errorString(handle))
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// Encodes RGB pixels as a JPEG with 4:2:0 chroma subsampling: baseline, or progressive
    /// (several scans, coarse to fine) when asked.
    public static func encode(_ image: RGBImage, quality: Int = 85, progressive: Bool = false) throws(ImagingError) -> Data {
        guard image.width > 0, image.height > 0 else { throw .encodeFailed("empty image") }
        guard let handle = tjInitCompress() else { throw .encodeFailed("cannot start the JPEG encoder") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = image.pixels.withUnsafeBufferPointer { source in
            tjCompress2(handle, source.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue),
                        &output, &size, Int32(TJSAMP_420.rawValue), Int32(max(1, min(100, quality))),
                        TJFLAG_FASTDCT | (progressive ? TJFLAG_PROGRESSIVE : 0))
        }
        defer { if let output { tjFree(output) } }
        guard result == 0, let output else { throw .encodeFailed("JPEG: " + errorString(handle)) }
        return Data(bytes: output, count: Int(size))
    }

    private static func readHeader(_ handle: tjhandle, _ data: Data) throws(ImagingError) -> (width: Int, height: Int) {
        guard data.count >= 4, data[data.startIndex] == 0xFF, data[data.startIndex + 1] == 0xD8 else {
            throw .notJPEG("missing the JPEG start marker")
        }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let result = data.withUnsafeBytes { bytes in
            tjDecompressHeader3(handle, bytes.bindMemory(to: UInt8.self).baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        }
        guard result == 0, width > 0, height > 0 else { throw .notJPEG(errorString(handle)) }
        return (Int(width), Int(height))
    }

    private static func scaled(_ dimension: Int, _ factor: tjscalingfactor) -> Int {
        (dimension * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
    }

    private static func errorString(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: text)
    }
}

extension RGBImage {
    /// Resamples to exactly `width`×`height`: an area average when shrinking (no aliasing in
    /// thumbnails), nearest sample when growing.
    public func resized(width newWidth: Int, height newHeight: Int) -> RGBImage {
        let newWidth = max(1, newWidth)
        let newHeight = max(1, newHeight)
        guard width > 0, height > 0 else { return RGBImage(width: newWidth, height: newHeight, pixels: [UInt8](repeating: 0, count: newWidth * newHeight * 3)) }
        if newWidth == width && newHeight == height { return self }
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for y in 0..<newHeight {
                    let y0 = y * height / newHeight
                    let y1 = max(y0 + 1, (y + 1) * height / newHeight)
                    for x in 0..<newWidth {
                        let x0 = x * width / newWidth
                        let x1 = max(x0 + 1, (x + 1) * width / newWidth)
                        var r = 0, g = 0, b = 0
                        for sy in y0..<min(y1, height) {
                            var index = (sy * width + x0) * 3
                            for _ in x0..<min(x1, width) {
                                r += Int(source[index]); g += Int(source[index + 1]); b += Int(source[index + 2])
                                index += 3
                            }
                        }
                        let count = max(1, (min(y1, height) - y0) * (min(x1, width) - x0))
                        let out = (y * newWidth + x) * 3
                        destination[out] = UInt8(r / count)
                        destination[out + 1] = UInt8(g / count)
                        destination[out + 2] = UInt8(b / count)
                    }
                }
            }
        }
        return RGBImage(width: newWidth, height: newHeight, pixels: output)
    }
}
