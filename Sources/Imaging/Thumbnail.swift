import Foundation

/// Thumbnail geometry and making: an image scaled down into a box.
///
/// Imaging knows boxes and fits, not Dropbox's names for them; the server maps a wire size
/// and mode onto these.
public enum Thumbnail {
    /// How an image goes into its box.
    public enum Fit: Sendable, Hashable, CaseIterable {
        /// Scale down to fit within the box.
        case within
        /// Scale down to fit within the box or its transpose, whichever keeps more pixels.
        case withinEitherWay
        /// Scale down to cover the box (or its transpose) completely.
        case coverEitherWay
    }

    /// The output size for an image of `width`×`height` in a `boxWidth`×`boxHeight` box.
    /// Never larger than the source, unless `upscale` (a vector picture, which has no pixels
    /// of its own to run out of).
    public static func targetSize(width: Int, height: Int, boxWidth: Int, boxHeight: Int, fit: Fit,
                                  upscale: Bool = false) -> (width: Int, height: Int) {
        func scale(_ w: Int, _ h: Int, cover: Bool) -> Double {
            let scaleX = Double(w) / Double(width)
            let scaleY = Double(h) / Double(height)
            let scale = cover ? max(scaleX, scaleY) : min(scaleX, scaleY)
            return upscale ? scale : min(1, scale)
        }
        let factor: Double
        switch fit {
        case .within:
            factor = scale(boxWidth, boxHeight, cover: false)
        case .withinEitherWay:
            factor = max(scale(boxWidth, boxHeight, cover: false), scale(boxHeight, boxWidth, cover: false))
        case .coverEitherWay:
            factor = min(scale(boxWidth, boxHeight, cover: true), scale(boxHeight, boxWidth, cover: true))
        }
        return (max(1, Int((Double(width) * factor).rounded())), max(1, Int((Double(height) * factor).rounded())))
    }

    /// What decoding one image for a thumbnail may cost, judged from its header alone.
    public struct Limits: Sendable, Equatable {
        /// Pixels of the full-size image.
        public var maxPixels: Int
        /// Bytes of the whole-image coefficient buffer that progressive and multi-scan images
        /// need (`JPEG.Header.coefficientBytes`); single-scan images do not have one.
        public var maxBufferedBytes: Int

        public init(maxPixels: Int, maxBufferedBytes: Int) {
            self.maxPixels = maxPixels
            self.maxBufferedBytes = maxBufferedBytes
        }

        /// Only `JPEG.maxPixels`, the decoder's own bomb guard.
        public static let decoderDefault = Limits(maxPixels: JPEG.maxPixels, maxBufferedBytes: .max)

        /// Throws `tooLarge` for an image that would cost more than allowed to decode.
        public func check(_ header: JPEG.Header) throws(ImagingError) {
            guard header.pixels <= maxPixels else { throw .tooLarge(width: header.width, height: header.height) }
            if header.buffersWholeImage, header.coefficientBytes > maxBufferedBytes {
                throw .tooLarge(width: header.width, height: header.height)
            }
        }

        /// The same for a picture of any format: its declared pixels, and a JPEG's buffer.
        public func check(_ header: Picture.Header) throws(ImagingError) {
            guard header.pixels <= maxPixels else { throw .tooLarge(width: header.width, height: header.height) }
            if let jpeg = header.jpeg { try check(jpeg) }
        }
    }

    /// The encodings a thumbnail comes in (Dropbox's `get_thumbnail_v2` makes these two).
    public enum Output: Sendable, Hashable {
        case jpeg
        case png
    }

    /// Makes a thumbnail of a picture of any format (``PictureFormat``, picked by its bytes),
    /// refusing pictures beyond `limits` before decoding. A JPEG's DCT scaling, WebP's scaler and
    /// PNG's and GIF's row-at-a-time decode keep the decode near the thumbnail's size; an SVG is
    /// rasterised at the thumbnail's size, up to the box even where it declares less.
    public static func make(from data: Data, boxWidth: Int, boxHeight: Int, fit: Fit, quality: Int = 80,
                            limits: Limits = .decoderDefault, output: Output = .jpeg) throws(ImagingError) -> Data {
        let image: RGBImage
        switch PictureFormat.sniff(data) {
        case .jpeg?:
            if limits != .decoderDefault { try limits.check(try JPEG.header(of: data)) }
            let source = try JPEG.dimensions(of: data)
            guard source.width * source.height <= limits.maxPixels else { throw .tooLarge(width: source.width, height: source.height) }
            let target = targetSize(width: source.width, height: source.height, boxWidth: boxWidth, boxHeight: boxHeight, fit: fit)
            image = try JPEG.decode(data, covering: target.width, target.height).resized(width: target.width, height: target.height)
        case .svg?:
            image = try SVG.decode(data, maxPixels: limits.maxPixels) { width, height in
                targetSize(width: width, height: height, boxWidth: boxWidth, boxHeight: boxHeight, fit: fit, upscale: true)
            }
        case let format?:
            let header = try Picture.header(of: data)
            assert(header.format == format)
            try limits.check(header)
            let target = targetSize(width: header.width, height: header.height, boxWidth: boxWidth, boxHeight: boxHeight, fit: fit)
            let decoded = try Picture.decode(data, covering: target.width, target.height, maxPixels: limits.maxPixels)
            image = decoded.resized(width: target.width, height: target.height)
        case nil:
            throw .notPicture(Picture.describe(data))
        }
        switch output {
        case .jpeg: return try JPEG.encode(image, quality: quality)
        case .png: return try PNG.encode(image)
        }
    }
}
