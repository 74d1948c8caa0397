/// Pixels to draw in terminal cells: 8-bit RGB or RGBA, row by row.
///
/// TerminalUI does not decode images; the caller hands over decoded pixels (for a JPEG, the
/// `RGBImage` that Imaging produces). Alpha, when present, is ignored: pixels are drawn opaque.
public struct PixelImage: Sendable, Equatable {
    /// The pixel layout of ``bytes``.
    public enum Format: Sendable, Equatable {
        /// Three bytes a pixel: red, green, blue.
        case rgb
        /// Four bytes a pixel: red, green, blue, alpha (not premultiplied).
        case rgba

        /// Bytes per pixel.
        public var bytesPerPixel: Int { self == .rgb ? 3 : 4 }
    }

    public let width: Int
    public let height: Int
    public let format: Format
    /// Bytes from the start of one row to the start of the next (at least `width × bytesPerPixel`).
    public let rowStride: Int
    public let bytes: [UInt8]

    /// Wraps decoded pixels; `rowStride` defaults to tightly packed rows.
    ///
    /// - Precondition: both sides are positive and `bytes` holds every row.
    public init(width: Int, height: Int, format: Format = .rgb, rowStride: Int? = nil, bytes: [UInt8]) {
        let stride = rowStride ?? width * format.bytesPerPixel
        precondition(width > 0 && height > 0, "an image needs at least one pixel, not \(width)×\(height)")
        precondition(stride >= width * format.bytesPerPixel, "row stride \(stride) is shorter than a row")
        precondition(bytes.count >= stride * (height - 1) + width * format.bytesPerPixel, "\(bytes.count) bytes cannot hold \(width)×\(height) pixels")
        self.width = width
        self.height = height
        self.format = format
        self.rowStride = stride
        self.bytes = bytes
    }

    /// One image of a single color (for placeholders and tests).
    public init(width: Int, height: Int, filledWith color: (UInt8, UInt8, UInt8)) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 3)
        for _ in 0..<(width * height) { bytes += [color.0, color.1, color.2] }
        self.init(width: width, height: height, bytes: bytes)
    }

    /// The pixel at (x, y) as RGB.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = y * rowStride + x * format.bytesPerPixel
        return (bytes[i], bytes[i + 1], bytes[i + 2])
    }
}

/// A rectangle of an image in pixel units, which may start and end inside a pixel.
struct PixelRegion: Equatable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
}

extension PixelImage {
    /// The whole image as a region.
    var wholeRegion: PixelRegion { PixelRegion(x: 0, y: 0, width: Double(width), height: Double(height)) }

    /// `region` scaled to `outputWidth × outputHeight` by area averaging: each output pixel is the
    /// mean of the source pixels under it, weighted by how much of each it covers.
    ///
    /// Done in two passes (along rows, then down columns), so the cost is per source pixel, not
    /// per pair of source and output pixels.
    ///
    /// - Returns: tightly packed RGB, `outputWidth × outputHeight` pixels.
    func averaged(_ region: PixelRegion, toWidth outputWidth: Int, height outputHeight: Int) -> [UInt8] {
        let columns = Self.taps(from: region.x, length: region.width, count: outputWidth, limit: width)
        let rows = Self.taps(from: region.y, length: region.height, count: outputHeight, limit: height)
        guard let firstRow = rows.first?.first, let lastTap = rows.last else { return [] }
        let lastRow = lastTap.first + lastTap.weights.count - 1

        // Pass 1: every source row the output needs, averaged horizontally.
        let bpp = format.bytesPerPixel
        var horizontal = [Float](repeating: 0, count: (lastRow - firstRow + 1) * outputWidth * 3)
        bytes.withUnsafeBufferPointer { source in
            for y in firstRow...lastRow {
                let rowStart = y * rowStride
                let out = (y - firstRow) * outputWidth * 3
                for (i, tap) in columns.enumerated() {
                    var r: Float = 0, g: Float = 0, b: Float = 0
                    var p = rowStart + tap.first * bpp
                    for w in tap.weights {
                        r += w * Float(source[p])
                        g += w * Float(source[p + 1])
                        b += w * Float(source[p + 2])
                        p += bpp
                    }
                    horizontal[out + 3 * i] = r * tap.scale
                    horizontal[out + 3 * i + 1] = g * tap.scale
                    horizontal[out + 3 * i + 2] = b * tap.scale
                }
            }
        }

        // Pass 2: those rows averaged vertically.
        var result = [UInt8](repeating: 0, count: outputWidth * outputHeight * 3)
        let rowLength = outputWidth * 3
        for (j, tap) in rows.enumerated() {
            var sums = [Float](repeating: 0, count: rowLength)
            for (k, w) in tap.weights.enumerated() {
                let row = (tap.first + k - firstRow) * rowLength
                for i in 0..<rowLength { sums[i] += w * horizontal[row + i] }
            }
            for i in 0..<rowLength {
                result[j * rowLength + i] = UInt8(max(0, min(255, (sums[i] * tap.scale).rounded())))
            }
        }
        return result
    }

    /// One output pixel's share of the source along one axis: the first source pixel it covers,
    /// the covered fraction of each, and 1 / their sum.
    struct Tap {
        var first: Int
        var weights: [Float]
        var scale: Float
    }

    /// The taps that split `[origin, origin + length)` of an axis `limit` pixels long into `count` equal spans.
    static func taps(from origin: Double, length: Double, count: Int, limit: Int) -> [Tap] {
        let step = length / Double(count)
        return (0..<count).map { i in
            let start = min(Double(limit), max(0, origin + Double(i) * step))
            let end = min(Double(limit), max(start, origin + Double(i + 1) * step))
            guard end - start > 1e-9 else {
                return Tap(first: min(limit - 1, Int(start)), weights: [1], scale: 1)
            }
            let first = Int(start.rounded(.down))
            let last = max(first, min(limit - 1, Int(end.rounded(.up)) - 1))
            let weights = (first...last).map { p in Float(min(end, Double(p + 1)) - max(start, Double(p))) }
            let total = weights.reduce(0, +)
            return Tap(first: first, weights: weights, scale: 1 / total)
        }
    }
}
