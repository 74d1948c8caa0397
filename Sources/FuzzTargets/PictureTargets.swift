import Foundation
import Imaging

/// The picture decoders (Imaging: libspng, giflib, libwebp, librsvg), fed pictures from outside
/// as a vault, a member's upload or a server brings them. Each target keeps its format's magic
/// bytes in front of what libFuzzer mutates, so the mutations reach the format's decoder and not
/// only ``PictureFormat/sniff(_:)``'s refusal.
///
/// What each checks: the header and the decode agree on the format; a picture that decodes has
/// pixels, no more than its covering size needs (or, for an SVG, its render cap), never beyond
/// the limit it was given; a thumbnail of it is a JPEG or a PNG of at most the box's size.
enum PictureTargets {
    /// A small limit, so a declared size is refused before a slow decode (the limit's own check
    /// is what is under test, not how fast a large picture decodes).
    static let maxPixels = 4_000_000

    static func png(_ data: Data) { run(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + data.dropFirst(8), format: .png) }
    static func gif(_ data: Data) { run(Data("GIF89a".utf8) + data.dropFirst(6), format: .gif) }

    static func webp(_ data: Data) {
        var bytes = Data("RIFF".utf8) + data.dropFirst(4)
        if bytes.count < 12 { bytes.append(Data(repeating: 0, count: 12 - bytes.count)) }
        bytes.replaceSubrange(8..<12, with: Data("WEBP".utf8))
        run(bytes, format: .webp)
    }

    /// SVG text as it comes (no fixed magic: the sniffer's XML prologue skipping is fuzzed too).
    static func svg(_ data: Data) {
        _ = PictureFormat.sniff(data)
        run(data, format: .svg)
    }

    static func run(_ data: Data, format: PictureFormat) {
        guard PictureFormat.sniff(data) == format else { return }
        let header = try? Picture.header(of: data)
        if let header {
            FuzzCheck.expect(header.format == format, "a \(format.name) whose header says \(header.format.name)")
            FuzzCheck.expect(header.width > 0 && header.height > 0, "a header of \(header.width)×\(header.height)")
        }
        do {
            let image = try Picture.decode(data, covering: 64, 64, maxPixels: maxPixels)
            FuzzCheck.expect(image.width > 0 && image.height > 0, "a decoded \(image.width)×\(image.height)")
            FuzzCheck.expect(image.pixels.count == image.width * image.height * 3, "a pixel buffer of the wrong size")
            if format == .svg {
                FuzzCheck.expect(image.width * image.height <= SVG.maxRenderPixels, "an SVG drawn at \(image.width)×\(image.height)")
            } else {
                FuzzCheck.expect(image.width * image.height <= maxPixels, "\(image.width)×\(image.height) decoded past the limit")
                if let header {
                    FuzzCheck.expect(image.width <= header.width && image.height <= header.height,
                                     "decoded \(image.width)×\(image.height) from a header of \(header.width)×\(header.height)")
                }
            }
        } catch .tooLarge(let width, let height) {
            // An animated WebP's canvas is held to 3/8 of the limit (it keeps two of them).
            let limit = format == .webp ? maxPixels / 8 * 3 : maxPixels
            // A PNG is also held to a side of PNG.maxSide (its rows are held whole).
            let tooWide = format == .png && max(width, height) > PNG.maxSide
            FuzzCheck.expect(Picture.pixels(width, height) > limit || tooWide, "\(width)×\(height) refused under the limit")
            return
        } catch {
            return
        }
        let limits = Thumbnail.Limits(maxPixels: maxPixels, maxBufferedBytes: 64 << 20)
        if let thumbnail = try? Thumbnail.make(from: data, boxWidth: 32, boxHeight: 32, fit: .within, limits: limits, output: .png) {
            let made = try? PNG.header(of: thumbnail)
            FuzzCheck.expect(made.map { $0.width <= 32 && $0.height <= 32 } ?? false, "a thumbnail past its 32×32 box")
        }
    }
}
