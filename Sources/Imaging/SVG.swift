import CRsvg
import Foundation

/// SVG rasterised with librsvg onto a cairo surface at the size asked for.
///
/// The document is read from memory with no base file and no base URL, so librsvg loads
/// nothing from outside it: an `<image>`, `<use>`, `xi:include` or stylesheet that names a file
/// or a URL (the SVG itself among them) is refused by librsvg and drawn as nothing; only
/// `data:` URLs inside the document are read. librsvg's XML limits stay on (no
/// `RSVG_HANDLE_FLAG_UNLIMITED`), a reference that loops (`<use>` of an ancestor) fails the
/// render, and the drawing is never larger than ``maxRenderPixels``.
public enum SVG {
    /// The most pixels an SVG is drawn at (4096×4096): a vector picture has no full size to
    /// decode, and this is more than a terminal or a thumbnail shows.
    public static let maxRenderPixels = 4096 * 4096
    /// Where the document gives no size in pixels nor a viewBox: CSS's default for a picture.
    static let defaultSize = (width: 300.0, height: 150.0)
    /// How far into the bytes the `<svg` element is looked for.
    static let sniffLimit = 64 << 10

    /// Whether `bytes` start as an SVG document: its first element `<svg` (or `<x:svg`), after a
    /// byte order mark, blanks, the XML declaration, processing instructions, comments and a
    /// doctype.
    static func looksLikeSVG(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let end = min(bytes.count, sniffLimit)
        var i = 0
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        func starts(_ text: String) -> Bool {
            let utf8 = Array(text.utf8)
            guard i + utf8.count <= end else { return false }
            return utf8.indices.allSatisfy { bytes[i + $0] == utf8[$0] }
        }
        func skip(past terminator: String) -> Bool {
            let utf8 = Array(terminator.utf8)
            while i + utf8.count <= end {
                if utf8.indices.allSatisfy({ bytes[i + $0] == utf8[$0] }) {
                    i += utf8.count
                    return true
                }
                i += 1
            }
            return false
        }
        while i < end {
            let byte = bytes[i]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                i += 1
            } else if starts("<?") {
                guard skip(past: "?>") else { return false }
            } else if starts("<!--") {
                guard skip(past: "-->") else { return false }
            } else if starts("<!DOCTYPE") {
                // An internal subset ([…]) may hold '>' of its own.
                var j = i
                while j < end, bytes[j] != UInt8(ascii: ">"), bytes[j] != UInt8(ascii: "[") { j += 1 }
                guard j < end else { return false }
                if bytes[j] == UInt8(ascii: "[") { i = j; guard skip(past: "]") else { return false } }
                guard skip(past: ">") else { return false }
            } else if byte == UInt8(ascii: "<") {
                // The root element: svg, or a prefixed svg (svg:svg).
                var j = i + 1
                while j < end, j - i < 64, bytes[j] != UInt8(ascii: ":"), bytes[j] > 0x20, bytes[j] != UInt8(ascii: ">"), bytes[j] != UInt8(ascii: "/") { j += 1 }
                if j < end, bytes[j] == UInt8(ascii: ":") { i = j }
                guard starts(i == j ? ":svg" : "<svg") else { return false }
                let after = i + 4
                guard after < end else { return false }
                let next = bytes[after]
                return next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D || next == UInt8(ascii: ">") || next == UInt8(ascii: "/")
            } else {
                return false
            }
        }
        return false
    }

    /// The size the document declares, in pixels (at 96 dpi): its width and height, else its
    /// viewBox, else 300×150. Parses the document.
    public static func header(of data: Data) throws(ImagingError) -> (width: Int, height: Int) {
        let result = withHandle(data) { handle throws(ImagingError) in try self.size(of: handle) }
        return try result.get()
    }

    /// Rasterises at the smallest size covering `minWidth`×`minHeight`; with neither given, at
    /// the declared size; a vector is drawn larger than declared when asked to cover more.
    /// Never more than ``maxRenderPixels``.
    public static func decode(_ data: Data, covering minWidth: Int = .max, _ minHeight: Int = .max,
                              maxPixels: Int = Picture.maxPixels) throws(ImagingError) -> RGBImage {
        try decode(data, maxPixels: maxPixels) { width, height in
            guard minWidth != .max || minHeight != .max else { return (width, height) }
            let scale = max(minWidth == .max ? 0 : Double(max(1, minWidth)) / Double(width),
                            minHeight == .max ? 0 : Double(max(1, minHeight)) / Double(height))
            return (Int((Double(width) * scale).rounded(.up)), Int((Double(height) * scale).rounded(.up)))
        }
    }

    /// Rasterises at the size `size` picks from the declared one (after the declared size is
    /// checked against `maxPixels`), shrunk to ``maxRenderPixels`` if it picks more.
    static func decode(_ data: Data, maxPixels: Int,
                       size: (_ width: Int, _ height: Int) -> (width: Int, height: Int)) throws(ImagingError) -> RGBImage {
        let result = withHandle(data) { handle throws(ImagingError) -> RGBImage in
            let declared = try self.size(of: handle)
            guard Picture.pixels(declared.width, declared.height) <= maxPixels else { throw .tooLarge(width: declared.width, height: declared.height) }
            var (width, height) = size(declared.width, declared.height)
            width = max(1, width)
            height = max(1, height)
            if Double(width) * Double(height) > Double(maxRenderPixels) {
                let shrink = (Double(maxRenderPixels) / (Double(width) * Double(height))).squareRoot()
                width = max(1, Int(Double(width) * shrink))
                height = max(1, Int(Double(height) * shrink))
            }
            return try render(handle, width: width, height: height)
        }
        return try result.get()
    }

    /// Rasterises at exactly `width`×`height` (the document keeps its aspect ratio inside, as
    /// its `preserveAspectRatio` says).
    public static func render(_ data: Data, width: Int, height: Int) throws(ImagingError) -> RGBImage {
        guard width > 0, height > 0, width * height <= maxRenderPixels else { throw .tooLarge(width: width, height: height) }
        let result = withHandle(data) { handle throws(ImagingError) in try render(handle, width: width, height: height) }
        return try result.get()
    }

    // MARK: librsvg

    /// librsvg, loaded on the first SVG (CRsvg's header says why); nil where it is not installed.
    private static let library: BCRsvgLibrary? = {
        var library = BCRsvgLibrary()
        return bc_rsvg_load(&library) != 0 ? library : nil
    }()

    /// A parsed document: librsvg's handle and the calls that use it.
    private struct Handle {
        let library: BCRsvgLibrary
        let pointer: UnsafeMutableRawPointer
    }

    private static func withHandle<T>(_ data: Data, _ body: (Handle) throws(ImagingError) -> T) -> Result<T, ImagingError> {
        guard PictureFormat.sniff(data) == .svg else { return .failure(.notPicture("not an SVG document")) }
        guard let library else { return .failure(.decodeFailed("SVG: librsvg (librsvg-2.so.2) is not installed")) }
        return data.withUnsafeBytes { raw in
            Result { () throws(ImagingError) -> T in
                // The stream reads our bytes in place: they outlive the handle, which is freed below.
                guard let stream = library.memory_input_stream_new_from_data(raw.baseAddress, raw.count, nil) else {
                    throw .decodeFailed("SVG: cannot read the bytes")
                }
                defer { library.object_unref(stream) }
                var error: UnsafeMutablePointer<BCGError>?
                // No base file: nothing outside the document can be loaded.
                guard let pointer = library.handle_new_from_stream_sync(stream, nil, Int32(BC_RSVG_HANDLE_FLAGS_NONE), nil, &error) else {
                    throw .decodeFailed("SVG: " + take(error, library))
                }
                defer { library.object_unref(pointer) }
                library.handle_set_dpi(pointer, 96)
                return try body(Handle(library: library, pointer: pointer))
            }
        }
    }

    private static func size(of handle: Handle) throws(ImagingError) -> (width: Int, height: Int) {
        let size = try exactSize(of: handle)
        // Sizes past any limit are clamped before they become integers.
        let clamp = { (value: Double) in Int(min(value.rounded(.up), 1e9)) }
        return (clamp(size.width), clamp(size.height))
    }

    /// The declared size in pixels, unrounded: what the document is drawn into before it is
    /// scaled to the size asked for.
    private static func exactSize(of handle: Handle) throws(ImagingError) -> (width: Double, height: Double) {
        var width = 0.0, height = 0.0
        if handle.library.handle_get_intrinsic_size_in_pixels(handle.pointer, &width, &height) == 0 {
            var hasWidth: Int32 = 0, hasHeight: Int32 = 0, hasViewBox: Int32 = 0
            var lengthW = BCRsvgLength(), lengthH = BCRsvgLength()
            var viewBox = BCRsvgRectangle()
            handle.library.handle_get_intrinsic_dimensions(handle.pointer, &hasWidth, &lengthW, &hasHeight, &lengthH, &hasViewBox, &viewBox)
            (width, height) = hasViewBox != 0 ? (viewBox.width, viewBox.height) : defaultSize
        }
        guard width.isFinite, height.isFinite, width > 0, height > 0 else { throw .decodeFailed("SVG: a size of \(width)×\(height)") }
        return (width, height)
    }

    private static func render(_ handle: Handle, width: Int, height: Int) throws(ImagingError) -> RGBImage {
        let cairo = handle.library
        guard let surface = cairo.image_surface_create(Int32(BC_CAIRO_FORMAT_ARGB32), Int32(width), Int32(height)),
              cairo.surface_status(surface) == Int32(BC_CAIRO_STATUS_SUCCESS) else {
            throw .decodeFailed("SVG: no surface of \(width)×\(height)")
        }
        defer { cairo.surface_destroy(surface) }
        guard let context = cairo.create(surface) else { throw .decodeFailed("SVG: no cairo context") }
        defer { cairo.destroy(context) }
        // The document drawn at its declared size, scaled to the one asked for: one without a
        // viewBox has nothing to scale it by itself, and would be drawn small in a corner.
        let declared = try exactSize(of: handle)
        cairo.scale(context, Double(width) / declared.width, Double(height) / declared.height)
        var viewport = BCRsvgRectangle(x: 0, y: 0, width: declared.width, height: declared.height)
        var error: UnsafeMutablePointer<BCGError>?
        guard handle.library.handle_render_document(handle.pointer, context, &viewport, &error) != 0 else {
            throw .decodeFailed("SVG: " + take(error, handle.library))
        }
        cairo.surface_flush(surface)
        guard let data = cairo.image_surface_get_data(surface) else { throw .decodeFailed("SVG: an empty surface") }
        let stride = Int(cairo.image_surface_get_stride(surface))
        var scaler = RowScaler(sourceWidth: width, sourceHeight: height, width: width, height: height)
        for y in 0..<height {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            scaler.add(row: y, premultipliedARGB: row, count: width)
        }
        return scaler.take()
    }

    private static func take(_ error: UnsafeMutablePointer<BCGError>?, _ library: BCRsvgLibrary) -> String {
        guard let error else { return "unknown error" }
        defer { library.error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }
}
