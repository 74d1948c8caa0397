import Foundation

/// Dropbox's thumbnail sizes and modes, and the geometry they imply.
public enum ThumbnailMode: String, Sendable, CaseIterable {
    /// Scale down to fit within the size.
    case strict
    /// Scale down to fit within the size or its transpose, whichever keeps more pixels.
    case bestfit
    /// Scale down to cover the size (or its transpose) completely.
    case fitoneBestfit = "fitone_bestfit"
}

public enum ThumbnailSize: String, Sendable, CaseIterable {
    case w32h32, w64h64, w128h128, w256h256, w480h320, w640h480, w960h640, w1024h768, w2048h1536

    public var box: (width: Int, height: Int) {
        switch self {
        case .w32h32: return (32, 32)
        case .w64h64: return (64, 64)
        case .w128h128: return (128, 128)
        case .w256h256: return (256, 256)
        case .w480h320: return (480, 320)
        case .w640h480: return (640, 480)
        case .w960h640: return (960, 640)
        case .w1024h768: return (1024, 768)
        case .w2048h1536: return (2048, 1536)
        }
    }
}

public enum Thumbnail {
    /// The output size for an image of `width`×`height`. Never larger than the source.
    public static func targetSize(width: Int, height: Int, size: ThumbnailSize, mode: ThumbnailMode) -> (width: Int, height: Int) {
        let box = size.box
        func fit(_ w: Int, _ h: Int, cover: Bool) -> Double {
            let scaleX = Double(w) / Double(width)
            let scaleY = Double(h) / Double(height)
            return min(1, cover ? max(scaleX, scaleY) : min(scaleX, scaleY))
        }
        let scale: Double
        switch mode {
        case .strict:
            scale = fit(box.width, box.height, cover: false)
        case .bestfit:
            scale = max(fit(box.width, box.height, cover: false), fit(box.height, box.width, cover: false))
        case .fitoneBestfit:
            scale = min(fit(box.width, box.height, cover: true), fit(box.height, box.width, cover: true))
        }
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// Makes a JPEG thumbnail of JPEG `data`.
    public static func make(from data: Data, size: ThumbnailSize, mode: ThumbnailMode, quality: Int = 80) throws(ImagingError) -> Data {
        let source = try JPEG.dimensions(of: data)
        let target = targetSize(width: source.width, height: source.height, size: size, mode: mode)
        let decoded = try JPEG.decode(data, covering: target.width, target.height)
        return try JPEG.encode(decoded.resized(width: target.width, height: target.height), quality: quality)
    }
}
