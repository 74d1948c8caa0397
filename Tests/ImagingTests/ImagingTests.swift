import Foundation
import Imaging
import XCTest

final class ImagingTests: XCTestCase {
    /// A horizontal red→blue ramp with a green bar in the middle third.
    func ramp(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                pixels[index] = UInt8(255 * (width - 1 - x) / max(1, width - 1))
                pixels[index + 1] = (y >= height / 3 && y < 2 * height / 3) ? 200 : 0
                pixels[index + 2] = UInt8(255 * x / max(1, width - 1))
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    func testEncodeDecodeRoundTripKeepsThePicture() throws {
        let image = ramp(width: 640, height: 160)
        let jpeg = try JPEG.encode(image, quality: 90)
        XCTAssertEqual(jpeg.prefix(2), Data([0xFF, 0xD8]))
        let size = try JPEG.dimensions(of: jpeg)
        XCTAssertEqual(size.width, 640)
        XCTAssertEqual(size.height, 160)
        let decoded = try JPEG.decode(jpeg)
        XCTAssertEqual(decoded.width, 640)
        let left = decoded.pixel(x: 5, y: 10)
        let right = decoded.pixel(x: 634, y: 10)
        XCTAssertGreaterThan(Int(left.r), 200)
        XCTAssertGreaterThan(Int(right.b), 200)
        XCTAssertGreaterThan(Int(decoded.pixel(x: 320, y: 80).g), 150)
    }

    func testDCTScalingDecodesSmallerWhenAllowed() throws {
        let jpeg = try JPEG.encode(ramp(width: 1600, height: 400))
        let scaled = try JPEG.decode(jpeg, covering: 200, 50)
        XCTAssertEqual(scaled.width, 200, "1/8 scale still covers 200×50")
        XCTAssertEqual(scaled.height, 50)
        let quarter = try JPEG.decode(jpeg, covering: 300, 60)
        XCTAssertEqual(quarter.width, 400, "the smallest factor that still covers 300 wide is 1/4")
    }

    func testThumbnailGeometry() {
        XCTAssertTrue(Thumbnail.targetSize(width: 8000, height: 2000, boxWidth: 256, boxHeight: 256, fit: .within) == (256, 64))
        XCTAssertTrue(Thumbnail.targetSize(width: 2000, height: 8000, boxWidth: 480, boxHeight: 320, fit: .within) == (80, 320))
        XCTAssertTrue(Thumbnail.targetSize(width: 2000, height: 8000, boxWidth: 480, boxHeight: 320, fit: .withinEitherWay) == (120, 480),
                      "may use the transposed box")
        XCTAssertTrue(Thumbnail.targetSize(width: 8000, height: 2000, boxWidth: 64, boxHeight: 64, fit: .coverEitherWay) == (256, 64), "covers 64×64")
        XCTAssertTrue(Thumbnail.targetSize(width: 100, height: 50, boxWidth: 1024, boxHeight: 768, fit: .within) == (100, 50), "never upscales")
        XCTAssertTrue(Thumbnail.targetSize(width: 3, height: 3000, boxWidth: 64, boxHeight: 64, fit: .within) == (1, 64), "never below one pixel")
    }

    func testThumbnailOfAPanorama() throws {
        let jpeg = try JPEG.encode(ramp(width: 4000, height: 1000))
        let thumbnail = try Thumbnail.make(from: jpeg, boxWidth: 128, boxHeight: 128, fit: .within)
        let size = try JPEG.dimensions(of: thumbnail)
        XCTAssertEqual(size.width, 128)
        XCTAssertEqual(size.height, 32)
        let decoded = try JPEG.decode(thumbnail)
        XCTAssertGreaterThan(Int(decoded.pixel(x: 2, y: 2).r), 180)
        XCTAssertGreaterThan(Int(decoded.pixel(x: 125, y: 2).b), 180)
    }

    func testBadInputIsATypedError() {
        XCTAssertThrowsError(try JPEG.dimensions(of: Data("hello".utf8))) { error in
            guard case ImagingError.notJPEG = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try JPEG.decode(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0])))
        XCTAssertThrowsError(try JPEG.encode(RGBImage(width: 0, height: 0, pixels: [])))
        // A truncated but otherwise valid JPEG still decodes (libjpeg-turbo warns, we keep the pixels).
        let jpeg = try? JPEG.encode(ramp(width: 64, height: 64))
        XCTAssertNotNil(try? JPEG.decode(jpeg!.prefix(jpeg!.count * 3 / 4)))
    }
}
