import Foundation
import Imaging
import XCTest

/// Every picture format through the one entry point (``Picture``): picked by the bytes, the
/// right size and pixels, scaled while decoding, and hostile pictures refused within bounds.
final class PictureTests: XCTestCase {
    typealias F = PictureFixtures

    /// Red, green, blue and white where the quadrants are (away from their edges).
    func assertQuadrants(_ image: RGBImage, tolerance: Int = 40, file: StaticString = #filePath, line: UInt = #line) {
        let (w, h) = (image.width, image.height)
        let probes: [((Int, Int), (Int, Int, Int))] = [
            ((w / 4, h / 4), (255, 0, 0)), ((3 * w / 4, h / 4), (0, 255, 0)),
            ((w / 4, 3 * h / 4), (0, 0, 255)), ((3 * w / 4, 3 * h / 4), (255, 255, 255)),
        ]
        for ((x, y), want) in probes {
            let got = image.pixel(x: x, y: y)
            let close = abs(Int(got.r) - want.0) <= tolerance && abs(Int(got.g) - want.1) <= tolerance && abs(Int(got.b) - want.2) <= tolerance
            XCTAssertTrue(close, "(\(x), \(y)) of \(w)×\(h) is \(got), not \(want)", file: file, line: line)
        }
    }

    func testEachFormatIsPickedByItsBytesNotItsName() throws {
        let image = F.quadrants(width: 8, height: 8)
        let samples: [(Data, PictureFormat)] = [
            (try JPEG.encode(image), .jpeg), (try PNG.encode(image), .png),
            (try GIF.encode(width: 8, height: 8, palette: F.quadrantPalette, frames: [F.quadrantIndices(width: 8, height: 8)]), .gif),
            (try WebP.encode(image), .webp), (F.quadrantsSVG(), .svg),
            (Data("\u{FEFF}  <!DOCTYPE svg [ <!ENTITY a \"b\"> ]>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), .svg),
        ]
        for (data, format) in samples {
            XCTAssertEqual(PictureFormat.sniff(data), format)
            XCTAssertEqual(try Picture.header(of: data).format, format)
        }
        for text in ["hello", "<html><svg/></html>", "<?xml version=\"1.0\"?><note/>", "RIFF0000WAVE", "GIF88a"] {
            XCTAssertNil(PictureFormat.sniff(Data(text.utf8)), text)
        }
    }

    func testPNGDecodesToItsSizeAndPixels() throws {
        let png = try PNG.encode(F.quadrants(width: 64, height: 32))
        XCTAssertTrue(try Picture.header(of: png) == Picture.Header(format: .png, width: 64, height: 32))
        let image = try Picture.decode(png)
        XCTAssertEqual([image.width, image.height], [64, 32])
        assertQuadrants(image, tolerance: 0)
        // Scaled while decoding: the smallest size that still covers 16×4.
        let small = try Picture.decode(png, covering: 16, 4)
        XCTAssertEqual([small.width, small.height], [16, 8])
        assertQuadrants(small, tolerance: 0)
    }

    func testAnInterlacedPNGAndTransparencyOverWhite() throws {
        let image = F.quadrants(width: 21, height: 13)
        let interlaced = F.interlacedPNG(image)
        XCTAssertEqual(try Picture.decode(interlaced), image, "Adam7 passes put back in place")
        XCTAssertEqual(try Picture.decode(interlaced, covering: 7, 5).width, 9, "5 of 13 rows kept is 9 of 21 columns")
        // Half transparent black over white is mid grey; fully clear is white.
        var rgba = [UInt8](repeating: 0, count: 4 * 2 * 4)
        for i in 0..<4 { rgba[i * 4 + 3] = 128 }
        let decoded = try Picture.decode(try PNG.encode(width: 4, height: 2, rgba: rgba))
        XCTAssertEqual(Int(decoded.pixel(x: 1, y: 0).r), 127, accuracy: 1)
        XCTAssertEqual(decoded.pixel(x: 1, y: 1).r, 255)
    }

    func testGIFDecodesItsFirstFrame() throws {
        let first = F.quadrantIndices(width: 40, height: 20)
        let second = [UInt8](repeating: 1, count: 40 * 20)
        for interlaced in [false, true] {
            let gif = try GIF.encode(width: 40, height: 20, palette: F.quadrantPalette, frames: [first, second], interlaced: interlaced)
            XCTAssertTrue(try Picture.header(of: gif) == Picture.Header(format: .gif, width: 40, height: 20))
            let image = try Picture.decode(gif)
            XCTAssertEqual([image.width, image.height], [40, 20])
            assertQuadrants(image, tolerance: 0)
            assertQuadrants(try Picture.decode(gif, covering: 10, 5))
        }
        // The transparent index is white.
        let clear = try GIF.encode(width: 4, height: 4, palette: F.quadrantPalette, frames: [[UInt8](repeating: 0, count: 16)], transparent: 0)
        XCTAssertTrue(try Picture.decode(clear).pixel(x: 2, y: 2) == (255, 255, 255))
    }

    func testWebPDecodesStillAndAnimated() throws {
        let image = F.quadrants(width: 64, height: 32)
        let lossless = try WebP.encode(image)
        XCTAssertTrue(try Picture.header(of: lossless) == Picture.Header(format: .webp, width: 64, height: 32))
        XCTAssertEqual(try Picture.decode(lossless), image)
        assertQuadrants(try Picture.decode(try WebP.encode(image, lossless: false, quality: 90)))
        // libwebp scales as it decodes.
        let small = try Picture.decode(lossless, covering: 16, 8)
        XCTAssertEqual([small.width, small.height], [16, 8])
        assertQuadrants(small)
        // An animation: its first frame, composed on the canvas.
        let green = RGBImage(width: 64, height: 32, pixels: [UInt8](repeating: 0, count: 64 * 32 * 3).enumerated().map { $0.offset % 3 == 1 ? 255 : 0 })
        let animation = F.animatedWebP(width: 64, height: 32, frames: [lossless, try WebP.encode(green)])
        XCTAssertEqual(try Picture.header(of: animation).width, 64)
        assertQuadrants(try Picture.decode(animation), tolerance: 0)
    }

    func testSVGIsRasterisedAtTheSizeAsked() throws {
        let svg = F.quadrantsSVG(width: 40, height: 20)
        XCTAssertTrue(try Picture.header(of: svg) == Picture.Header(format: .svg, width: 40, height: 20))
        let image = try Picture.decode(svg)
        XCTAssertEqual([image.width, image.height], [40, 20])
        assertQuadrants(image, tolerance: 2)
        // A vector is drawn larger than it declares when asked to cover more.
        let big = try Picture.decode(svg, covering: 400, 10)
        XCTAssertEqual([big.width, big.height], [400, 200])
        assertQuadrants(big, tolerance: 2)
        // No viewBox, only a size: drawn larger all the same, not small in a corner.
        let unboxed = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="20" height="20" fill="red"/><rect x="20" width="20" height="20" fill="blue"/></svg>"#.utf8)
        let scaled = try Picture.decode(unboxed, covering: 200, 100)
        XCTAssertEqual([scaled.width, scaled.height], [200, 100])
        XCTAssertTrue(scaled.pixel(x: 50, y: 80) == (255, 0, 0) && scaled.pixel(x: 150, y: 80) == (0, 0, 255), "\(scaled.pixel(x: 150, y: 80))")
        // No size but a viewBox: the viewBox's.
        let boxed = Data(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 10"><rect width="30" height="10" fill="red"/></svg>"#.utf8)
        XCTAssertEqual(try Picture.header(of: boxed).width, 30)
        // A thumbnail of an SVG fills its box.
        let thumbnail = try Thumbnail.make(from: svg, boxWidth: 128, boxHeight: 128, fit: .within)
        XCTAssertEqual(try JPEG.dimensions(of: thumbnail).width, 128)
    }

    func testThumbnailsOfEveryFormatInJPEGOrPNG() throws {
        let image = F.quadrants(width: 400, height: 200)
        let sources: [Data] = [
            try PNG.encode(image), try WebP.encode(image), F.interlacedPNG(image),
            try GIF.encode(width: 400, height: 200, palette: F.quadrantPalette, frames: [F.quadrantIndices(width: 400, height: 200)]),
        ]
        for source in sources {
            let jpeg = try Thumbnail.make(from: source, boxWidth: 64, boxHeight: 64, fit: .within)
            XCTAssertTrue(try JPEG.dimensions(of: jpeg) == (64, 32))
            assertQuadrants(try JPEG.decode(jpeg))
            let png = try Thumbnail.make(from: source, boxWidth: 64, boxHeight: 64, fit: .within, output: .png)
            XCTAssertEqual(PictureFormat.sniff(png), .png)
            let decoded = try Picture.decode(png)
            XCTAssertEqual([decoded.width, decoded.height], [64, 32])
            assertQuadrants(decoded, tolerance: 0)
        }
    }

    func testAPNGBombIsRefusedBeforeAnyAllocation() throws {
        let bomb = F.pngBomb()
        let before = Self.peakResidentBytes()
        let started = Date()
        XCTAssertThrowsError(try Picture.decode(bomb)) { XCTAssertEqual($0 as? ImagingError, .tooLarge(width: 100_000, height: 100_000)) }
        XCTAssertThrowsError(try Thumbnail.make(from: bomb, boxWidth: 64, boxHeight: 64, fit: .within)) {
            XCTAssertEqual($0 as? ImagingError, .tooLarge(width: 100_000, height: 100_000))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertLessThan(Self.peakResidentBytes() - before, 64 << 20, "bounded memory")
        // A row too long to hold, within the pixel limit: refused on its header too.
        XCTAssertThrowsError(try Picture.decode(F.pngBomb(width: 400_000_000, height: 1))) {
            XCTAssertEqual($0 as? ImagingError, .tooLarge(width: 400_000_000, height: 1))
        }
        // A size whose pixel count overflows 64 bits is refused, not a trap.
        XCTAssertThrowsError(try Picture.decode(F.pngBomb(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)))
        // Other formats declaring too much, each refused on its header.
        let gif = Data("GIF89a".utf8) + Data([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0]) + Data([0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 2, 2, 0x4C, 1, 0, 0x3B])
        XCTAssertThrowsError(try Picture.decode(gif, maxPixels: 1_000_000)) { XCTAssertEqual($0 as? ImagingError, .tooLarge(width: 65535, height: 65535)) }
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>"#.utf8)
        XCTAssertThrowsError(try Picture.decode(svg)) { XCTAssertEqual($0 as? ImagingError, .tooLarge(width: 100_000, height: 100_000)) }
    }

    func testAnSVGThatIncludesItselfOrOutsideFilesIsRefusedOrDrawnWithoutThem() throws {
        // A <use> of its own ancestor: the loop is not followed (librsvg draws the group once).
        let loop = Data("""
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
              <g id="a"><rect width="10" height="10" fill="red"/><use xlink:href="#a"/></g>
            </svg>
            """.utf8)
        let before = Self.peakResidentBytes()
        if let image = try? Picture.decode(loop) { XCTAssertTrue(image.pixel(x: 5, y: 5) == (255, 0, 0), "\(image.pixel(x: 5, y: 5))") }
        // Uses of uses, ten deep and ten wide (10¹⁰ copies): refused by librsvg's instancing limit.
        var laughs = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><defs><rect id="l0" width="1" height="1"/>"#
        for level in 1...10 {
            laughs += "<g id=\"l\(level)\">" + String(repeating: "<use xlink:href=\"#l\(level - 1)\"/>", count: 10) + "</g>"
        }
        laughs += ##"</defs><use xlink:href="#l10"/></svg>"##
        XCTAssertThrowsError(try Picture.decode(Data(laughs.utf8))) { error in
            guard case ImagingError.decodeFailed(let detail) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.hasPrefix("SVG:"), detail)
        }
        // Bounded in memory (how long librsvg takes to refuse is a bench's figure, not a test's: it
        // took 2 to 7 s on this machine as the load on it changed).
        XCTAssertLessThan(Self.peakResidentBytes() - before, 64 << 20, "bounded memory")
        // Files and URLs outside the document, itself among them, are never loaded.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let red = folder.appendingPathComponent("red.png")
        try PNG.encode(RGBImage(width: 10, height: 10, pixels: [UInt8](repeating: 0, count: 300).enumerated().map { $0.offset % 3 == 0 ? 255 : 0 }))
            .write(to: red)
        try "fill: red".write(to: folder.appendingPathComponent("style.txt"), atomically: true, encoding: .utf8)
        let me = folder.appendingPathComponent("me.svg")
        let outside = """
            <?xml version="1.0"?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
                 xmlns:xi="http://www.w3.org/2001/XInclude" width="10" height="10">
              <image xlink:href="\(red.absoluteString)" x="0" y="0" width="10" height="10"/>
              <image xlink:href="\(red.path)" x="0" y="0" width="10" height="10"/>
              <image xlink:href="red.png" x="0" y="0" width="10" height="10"/>
              <image xlink:href="me.svg" x="0" y="0" width="10" height="10"/>
              <image xlink:href="\(me.absoluteString)" x="0" y="0" width="10" height="10"/>
              <image xlink:href="http://127.0.0.1:9/red.png" x="0" y="0" width="10" height="10"/>
              <xi:include href="\(me.absoluteString)" parse="xml"/>
            </svg>
            """
        try outside.write(to: me, atomically: true, encoding: .utf8)
        do {
            let image = try Picture.decode(Data(outside.utf8))
            XCTAssertTrue(image.pixel(x: 5, y: 5) == (255, 255, 255), "nothing from outside was drawn: \(image.pixel(x: 5, y: 5))")
        } catch {
            XCTFail("\(error)")
        }
        // An external entity (a file's text in the document) is refused outright.
        let entity = """
            <?xml version="1.0"?>
            <!DOCTYPE svg [ <!ENTITY style SYSTEM "\(folder.appendingPathComponent("style.txt").absoluteString)"> ]>
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><style>rect { &style; }</style><rect width="10" height="10"/></svg>
            """
        XCTAssertThrowsError(try Picture.decode(Data(entity.utf8))) { error in
            guard case ImagingError.decodeFailed(let detail) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.hasPrefix("SVG:"), detail)
        }
    }

    func testGarbageIsRefusedWithAClearError() {
        for garbage in [Data(), Data("hello".utf8), Data([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08])] {
            XCTAssertThrowsError(try Picture.decode(garbage)) { error in
                guard case ImagingError.notPicture = error else { return XCTFail("\(error)") }
                XCTAssertTrue("\(error)".hasPrefix("Not a picture byteclub draws (JPEG, PNG, GIF, WebP or SVG)"), "\(error)")
            }
        }
        // The right magic, then nothing usable: the format's library says what is wrong.
        let broken: [(Data, String)] = [
            (Data(F.PNGSignature + [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 4, 0, 0, 0, 4, 8, 2, 0, 0, 0, 1, 2, 3, 4]), "PNG:"),
            (Data("GIF89a".utf8) + Data([4, 0, 4, 0, 0, 0, 0, 0x3B]), "GIF:"),
            (Data("RIFF".utf8) + Data([20, 0, 0, 0]) + Data("WEBPVP8 ".utf8) + Data([8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]), "WebP:"),
            (Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect></svg>".utf8), "SVG:"),
        ]
        for (data, prefix) in broken {
            XCTAssertThrowsError(try Picture.decode(data)) { error in
                guard case ImagingError.decodeFailed(let detail) = error else { return XCTFail("\(prefix) \(error)") }
                XCTAssertTrue(detail.hasPrefix(prefix), detail)
                XCTAssertTrue("\(error)".hasPrefix("Cannot decode the picture: "), "\(error)")
            }
        }
        XCTAssertThrowsError(try Thumbnail.make(from: Data("hello".utf8), boxWidth: 64, boxHeight: 64, fit: .within))
    }

    /// The process's peak resident set so far.
    static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
