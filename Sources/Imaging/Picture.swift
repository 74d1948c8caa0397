import Foundation

/// The picture formats byteclub draws, told apart by their first bytes (never by a file's name).
public enum PictureFormat: String, Sendable, CaseIterable, Hashable {
    case jpeg, png, gif, webp, svg

    /// The file extensions of pictures, lower case: what PanoPhotos lists and the server makes
    /// thumbnails of. A file's extension only says it may be a picture; its bytes say which.
    public static let fileExtensions = ["jpg", "jpeg", "png", "gif", "webp", "svg"]

    /// "JPEG", "PNG", "GIF", "WebP", "SVG".
    public var name: String {
        switch self {
        case .jpeg: return "JPEG"
        case .png: return "PNG"
        case .gif: return "GIF"
        case .webp: return "WebP"
        case .svg: return "SVG"
        }
    }

    /// The format `data` starts as, or nil. An SVG is XML whose first element is `<svg` (after
    /// a byte order mark, blanks, the XML declaration, comments and a doctype); a gzipped SVG
    /// (`.svgz`) is not taken.
    public static func sniff(_ data: Data) -> PictureFormat? {
        data.withUnsafeBytes { raw in sniff(raw.bindMemory(to: UInt8.self)) }
    }

    static func sniff(_ bytes: UnsafeBufferPointer<UInt8>) -> PictureFormat? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && magic.indices.allSatisfy { bytes[offset + $0] == magic[$0] }
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(PNG.signature) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        if SVG.looksLikeSVG(bytes) { return .svg }
        return nil
    }
}

/// One entry point for every picture format: the format picked by the bytes' magic, the size
/// its header declares, and the pixels decoded as ``RGBImage`` (transparent pixels over white),
/// under the same limit as JPEG's: a declared size over ``maxPixels`` is refused before any
/// pixel buffer is allocated.
public enum Picture {
    /// The pixel limit every format shares (JPEG's bomb guard).
    public static var maxPixels: Int { JPEG.maxPixels }

    /// What a picture's header declares.
    public struct Header: Sendable, Equatable {
        public var format: PictureFormat
        public var width: Int
        public var height: Int
        /// A JPEG's markers (for the coefficient-buffer limit), nil for other formats.
        public var jpeg: JPEG.Header?

        public var pixels: Int { Picture.pixels(width, height) }

        public init(format: PictureFormat, width: Int, height: Int, jpeg: JPEG.Header? = nil) {
            self.format = format
            self.width = width
            self.height = height
            self.jpeg = jpeg
        }
    }

    /// The format of `data` and the size it declares, without decoding pixels. An SVG is
    /// parsed (librsvg) to learn its size; the other formats' sizes are in their first bytes.
    public static func header(of data: Data) throws(ImagingError) -> Header {
        guard let format = PictureFormat.sniff(data) else { throw .notPicture(Self.describe(data)) }
        switch format {
        case .jpeg:
            let header = try JPEG.header(of: data)
            return Header(format: .jpeg, width: header.width, height: header.height, jpeg: header)
        case .png:
            let size = try PNG.header(of: data)
            return Header(format: .png, width: size.width, height: size.height)
        case .gif:
            let size = try GIF.header(of: data)
            return Header(format: .gif, width: size.width, height: size.height)
        case .webp:
            let size = try WebP.header(of: data)
            return Header(format: .webp, width: size.width, height: size.height)
        case .svg:
            let size = try SVG.header(of: data)
            return Header(format: .svg, width: size.width, height: size.height)
        }
    }

    /// Decodes `data`, whatever its format, scaled down while decoding where the library
    /// allows (JPEG's DCT scaling, WebP's scaler, PNG and GIF a row at a time into the smaller
    /// image, SVG rasterised at the size) to the smallest size that still covers
    /// `minWidth`×`minHeight`. Transparent pixels are composed over white.
    ///
    /// `maxPixels` bounds the declared size (each format checks its header before allocating).
    public static func decode(_ data: Data, covering minWidth: Int = .max, _ minHeight: Int = .max,
                              maxPixels: Int = Picture.maxPixels) throws(ImagingError) -> RGBImage {
        guard let format = PictureFormat.sniff(data) else { throw .notPicture(Self.describe(data)) }
        switch format {
        case .jpeg:
            let size = try JPEG.dimensions(of: data)
            guard size.width * size.height <= maxPixels else { throw .tooLarge(width: size.width, height: size.height) }
            return try JPEG.decode(data, covering: minWidth, minHeight)
        case .png: return try PNG.decode(data, covering: minWidth, minHeight, maxPixels: maxPixels)
        case .gif: return try GIF.decode(data, covering: minWidth, minHeight, maxPixels: maxPixels)
        case .webp: return try WebP.decode(data, covering: minWidth, minHeight, maxPixels: maxPixels)
        case .svg: return try SVG.decode(data, covering: minWidth, minHeight, maxPixels: maxPixels)
        }
    }

    /// The size a `width`×`height` picture decodes to when it must cover `minWidth`×`minHeight`:
    /// the smallest that keeps both sides at least that (or the whole side), the aspect ratio
    /// kept. Never larger than the picture, and never so small that one output pixel averages
    /// more than 4096×4096 source pixels (``RowScaler``'s sums stay in 32 bits).
    static func coveringSize(width: Int, height: Int, minWidth: Int, minHeight: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (max(0, width), max(0, height)) }
        let needW = Double(min(max(1, minWidth), width)) / Double(width)
        let needH = Double(min(max(1, minHeight), height)) / Double(height)
        let scale = min(1, max(needW, needH))
        var w = min(width, max(1, Int((Double(width) * scale).rounded(.up))))
        var h = min(height, max(1, Int((Double(height) * scale).rounded(.up))))
        w = max(w, (width + 4095) / 4096)
        h = max(h, (height + 4095) / 4096)
        return (w, h)
    }

    /// `width × height`, saturating: a declared size is whatever the file says (a PNG's may be
    /// 2³²−1 a side), and must not trap before it is refused.
    public static func pixels(_ width: Int, _ height: Int) -> Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    /// A short, printable account of bytes that are no picture: their first bytes in hex.
    public static func describe(_ data: Data) -> String {
        guard !data.isEmpty else { return "no bytes" }
        return "starts " + data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}
