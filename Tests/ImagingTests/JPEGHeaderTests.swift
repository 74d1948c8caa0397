import Foundation
import Imaging
import XCTest

/// The header read before decoding, and the limits a thumbnail checks against it.
final class JPEGHeaderTests: XCTestCase {
    func grey(width: Int, height: Int) -> RGBImage {
        RGBImage(width: width, height: height, pixels: [UInt8](repeating: 100, count: width * height * 3))
    }

    func testBaselineAndProgressiveHeaders() throws {
        let baseline = try JPEG.header(of: JPEG.encode(grey(width: 640, height: 480)))
        XCTAssertEqual(baseline.width, 640)
        XCTAssertEqual(baseline.height, 480)
        XCTAssertEqual(baseline.components, [.init(horizontal: 2, vertical: 2), .init(horizontal: 1, vertical: 1), .init(horizontal: 1, vertical: 1)])
        XCTAssertFalse(baseline.isProgressive)
        XCTAssertFalse(baseline.buffersWholeImage)

        let progressive = try JPEG.header(of: JPEG.encode(grey(width: 640, height: 480), progressive: true))
        XCTAssertTrue(progressive.isProgressive)
        XCTAssertTrue(progressive.buffersWholeImage)
        // 4:2:0: 80×60 luma blocks and 40×30 of each chroma, 128 bytes a block.
        XCTAssertEqual(progressive.coefficientBytes, (80 * 60 + 2 * 40 * 30) * 128)
        // And the progressive file still decodes.
        XCTAssertEqual(try JPEG.decode(JPEG.encode(grey(width: 640, height: 480), progressive: true)).width, 640)
    }

    func testCoefficientBytesRoundUpToWholeMCUs() throws {
        let header = try JPEG.header(of: JPEG.encode(grey(width: 17, height: 9), progressive: true))
        // Luma: 3×2 blocks, rounded up to 4×2 for 2×2 sampling; chroma: 2×1 each.
        XCTAssertEqual(header.coefficientBytes, (4 * 2 + 2 * 2 * 1) * 128)
    }

    func testAFrameWhoseFirstScanLeavesComponentsOutIsMultiScan() throws {
        var bytes = [UInt8](try JPEG.encode(grey(width: 32, height: 32)))
        let scan = try XCTUnwrap((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        bytes[scan + 4] = 1 // the first scan now claims one component of three
        let header = try JPEG.header(of: Data(bytes))
        XCTAssertFalse(header.isProgressive)
        XCTAssertTrue(header.isMultiScan)
        XCTAssertTrue(header.buffersWholeImage)
    }

    func testHeadersThatAreNotJPEGs() {
        for bad in [Data(), Data("not a jpeg".utf8), Data([0xFF, 0xD8, 0xFF, 0xD9]), Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11])] {
            XCTAssertThrowsError(try JPEG.header(of: bad), "\(Array(bad))")
        }
        // Cut short before the first scan: the caller may read more and try again.
        let whole = try! JPEG.encode(grey(width: 64, height: 64))
        XCTAssertThrowsError(try JPEG.header(of: whole.prefix(100)))
        XCTAssertNoThrow(try JPEG.header(of: whole))
    }

    func testLimitsRefuseBeforeDecoding() throws {
        let progressive = try JPEG.encode(grey(width: 400, height: 300), progressive: true)
        let header = try JPEG.header(of: progressive)
        let roomy = Thumbnail.Limits(maxPixels: 1_000_000, maxBufferedBytes: header.coefficientBytes)
        XCTAssertNoThrow(try Thumbnail.make(from: progressive, boxWidth: 64, boxHeight: 64, fit: .within, limits: roomy))
        let tight = Thumbnail.Limits(maxPixels: 1_000_000, maxBufferedBytes: header.coefficientBytes - 1)
        XCTAssertThrowsError(try Thumbnail.make(from: progressive, boxWidth: 64, boxHeight: 64, fit: .within, limits: tight)) {
            XCTAssertEqual($0 as? ImagingError, .tooLarge(width: 400, height: 300))
        }
        // The coefficient budget is for images that need the buffer: a baseline one passes.
        let baseline = try JPEG.encode(grey(width: 400, height: 300))
        XCTAssertNoThrow(try Thumbnail.make(from: baseline, boxWidth: 64, boxHeight: 64, fit: .within, limits: tight))
        let fewPixels = Thumbnail.Limits(maxPixels: 400 * 300 - 1, maxBufferedBytes: .max)
        XCTAssertThrowsError(try Thumbnail.make(from: baseline, boxWidth: 64, boxHeight: 64, fit: .within, limits: fewPixels))
    }
}
