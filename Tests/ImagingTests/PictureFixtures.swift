import Foundation
import Imaging

/// Pictures for the tests, made with the libraries themselves (PNG, GIF and WebP encoders), or
/// written byte by byte where a library cannot make them (an interlaced PNG, a PNG that declares
/// a size it does not have, an animated WebP).
enum PictureFixtures {
    /// Four quadrants: red top left, green top right, blue bottom left, white bottom right.
    static func quadrants(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let color: (UInt8, UInt8, UInt8)
                switch (x < width / 2, y < height / 2) {
                case (true, true): color = (255, 0, 0)
                case (false, true): color = (0, 255, 0)
                case (true, false): color = (0, 0, 255)
                case (false, false): color = (255, 255, 255)
                }
                let index = (y * width + x) * 3
                (pixels[index], pixels[index + 1], pixels[index + 2]) = color
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// The quadrants as palette indices 0…3 over ``quadrantPalette``.
    static func quadrantIndices(width: Int, height: Int) -> [UInt8] {
        (0..<(width * height)).map { i in
            let (x, y) = (i % width, i / width)
            return UInt8((x < width / 2 ? 0 : 1) + (y < height / 2 ? 0 : 2))
        }
    }

    static let quadrantPalette: [(r: UInt8, g: UInt8, b: UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]

    // MARK: PNG by hand

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
    }

    /// zlib data in stored (uncompressed) deflate blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let last: UInt8 = offset + count == data.count ? 1 : 0
            out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + bigEndian(b << 16 | a)
    }

    static func ihdr(width: Int, height: Int, colorType: UInt8 = 2, interlace: UInt8 = 0) -> [UInt8] {
        chunk("IHDR", bigEndian(UInt32(truncatingIfNeeded: width)) + bigEndian(UInt32(truncatingIfNeeded: height)) + [8, colorType, 0, 0, interlace])
    }

    /// `image` as an Adam7-interlaced 8-bit RGB PNG, every scanline unfiltered.
    static func interlacedPNG(_ image: RGBImage) -> Data {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw: [UInt8] = []
        for (x0, y0, dx, dy) in passes where x0 < image.width && y0 < image.height {
            for y in stride(from: y0, to: image.height, by: dy) {
                raw.append(0)
                for x in stride(from: x0, to: image.width, by: dx) {
                    let p = image.pixel(x: x, y: y)
                    raw += [p.r, p.g, p.b]
                }
            }
        }
        return Data(PNGSignature + ihdr(width: image.width, height: image.height, interlace: 1) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", []))
    }

    static let PNGSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A PNG bomb: a header declaring `width`×`height` (100,000 × 100,000 by default) over a
    /// small stream of zero rows (a real bomb's deflate would expand them without end).
    static func pngBomb(width: Int = 100_000, height: Int = 100_000) -> Data {
        let rows = [UInt8](repeating: 0, count: 64 * 1024)
        return Data(PNGSignature + ihdr(width: width, height: height) + chunk("IDAT", zlibStored(rows)) + chunk("IEND", []))
    }

    // MARK: An animated WebP by hand

    static func littleEndian24(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
    static func littleEndian32(_ value: Int) -> [UInt8] { littleEndian24(value) + [UInt8(value >> 24 & 0xFF)] }

    static func riffChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        Array(type.utf8) + littleEndian32(body.count) + body + (body.count % 2 == 1 ? [0] : [])
    }

    /// An animation of `frames` (still lossless WebPs of the canvas's size), each shown 100 ms.
    static func animatedWebP(width: Int, height: Int, frames: [Data]) -> Data {
        var body: [UInt8] = Array("WEBP".utf8)
        body += riffChunk("VP8X", [0x02, 0, 0, 0] + littleEndian24(width - 1) + littleEndian24(height - 1))
        body += riffChunk("ANIM", [255, 255, 255, 255, 0, 0])
        for frame in frames {
            // A still WebP's VP8L chunk follows its 12-byte RIFF header.
            let bitstream = Array(frame.dropFirst(12))
            body += riffChunk("ANMF", littleEndian24(0) + littleEndian24(0) + littleEndian24(width - 1) + littleEndian24(height - 1)
                              + littleEndian24(100) + [0x02] + bitstream)
        }
        return Data(Array("RIFF".utf8) + littleEndian32(body.count) + body)
    }

    // MARK: SVG

    /// Four quadrants drawn as rects, `width`×`height` declared.
    static func quadrantsSVG(width: Int = 40, height: Int = 20) -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- four colors -->
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 4 2" preserveAspectRatio="none">
          <rect x="0" y="0" width="2" height="1" fill="#ff0000"/>
          <rect x="2" y="0" width="2" height="1" fill="#00ff00"/>
          <rect x="0" y="1" width="2" height="1" fill="#0000ff"/>
          <rect x="2" y="1" width="2" height="1" fill="#ffffff"/>
        </svg>
        """.utf8)
    }
}
