import ClubServer
import Foundation
import Imaging
import XCTest

/// `get_thumbnail_v2` of every picture format the club draws (PNG, GIF, WebP, SVG, as JPEG
/// does), answered in the format asked for: `jpeg` or `png`, Dropbox's two.
final class ThumbnailFormatsTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    /// 800×200: red on the left half, blue on the right.
    static let halves: RGBImage = {
        var pixels = [UInt8](repeating: 0, count: 800 * 200 * 3)
        for y in 0..<200 {
            for x in 0..<800 { pixels[(y * 800 + x) * 3 + (x < 400 ? 0 : 2)] = 255 }
        }
        return RGBImage(width: 800, height: 200, pixels: pixels)
    }()

    static func pictures() throws -> [(name: String, data: Data)] {
        let indices = (0..<(800 * 200)).map { UInt8($0 % 800 < 400 ? 0 : 1) }
        return [
            ("screenshot.png", try PNG.encode(halves)),
            ("anim.gif", try GIF.encode(width: 800, height: 200, palette: [(255, 0, 0), (0, 0, 255)], frames: [indices, indices.map { 1 - $0 }])),
            ("photo.webp", try WebP.encode(halves, lossless: false, quality: 90)),
            ("icon.svg", Data(#"""
                <svg xmlns="http://www.w3.org/2000/svg" width="80" height="20" viewBox="0 0 80 20">
                  <rect width="40" height="20" fill="#ff0000"/><rect x="40" width="40" height="20" fill="#0000ff"/>
                </svg>
                """#.utf8)),
        ]
    }

    func argument(_ path: String, format: String) -> [String: Any] {
        ["resource": [".tag": "path", "path": path], "format": format, "size": "w256h256", "mode": "strict"]
    }

    func testAPNGGIFWebPAndSVGAnswerJPEGOrPNGThumbnails() async throws {
        for (name, data) in try Self.pictures() {
            try await club.upload("/byteclub/photos/\(name)", data)
            for format in ["jpeg", "png"] {
                let reply = try await club.content("2/files/get_thumbnail_v2", argument("/byteclub/photos/\(name)", format: format))
                XCTAssertEqual(reply.status, 200, "\(name) as \(format): \(reply.text)")
                XCTAssertEqual(reply.headers?.value(forHeader: "Content-Type"), "image/\(format)", name)
                XCTAssertEqual(PictureFormat.sniff(reply.body), format == "png" ? .png : .jpeg, name)
                XCTAssertEqual((reply.result()["file_metadata"] as? [String: Any])?["name"] as? String, name)
                let image = try Picture.decode(reply.body)
                // 4:1 into 256×256; the SVG (80×20 declared) is drawn up to the box, being a vector.
                XCTAssertEqual([image.width, image.height], [256, 64], "\(name) as \(format)")
                let left = image.pixel(x: 64, y: 32), right = image.pixel(x: 192, y: 32)
                XCTAssertTrue(left.r > 200 && left.b < 60 && right.b > 200 && right.r < 60, "\(name) as \(format): \(left) \(right)")
            }
        }
    }

    func testWhatIsNoPictureOrAskedAsWebPIsRefused() async throws {
        // The bytes decide, not the name: a PNG named .jpg is a thumbnail; text named .png is not.
        try await club.upload("/byteclub/photos/really-a-png.jpg", try PNG.encode(Self.halves))
        let renamed = try await club.content("2/files/get_thumbnail_v2", argument("/byteclub/photos/really-a-png.jpg", format: "jpeg"))
        XCTAssertEqual(renamed.status, 200, renamed.text)
        try await club.upload("/byteclub/photos/fake.png", Data("not a picture".utf8))
        let fake = try await club.content("2/files/get_thumbnail_v2", argument("/byteclub/photos/fake.png", format: "jpeg"))
        XCTAssertEqual(fake.summary, "unsupported_image")
        var broken = try PNG.encode(Self.halves)
        broken.replaceSubrange(60..<broken.count, with: Data(repeating: 7, count: broken.count - 60))
        try await club.upload("/byteclub/photos/broken.png", broken)
        let conversion = try await club.content("2/files/get_thumbnail_v2", argument("/byteclub/photos/broken.png", format: "png"))
        XCTAssertEqual(conversion.summary, "conversion_error")
        try await club.upload("/byteclub/photos/scan.tiff", Data("II*\0".utf8))
        let tiff = try await club.content("2/files/get_thumbnail_v2", argument("/byteclub/photos/scan.tiff", format: "jpeg"))
        XCTAssertEqual(tiff.summary, "unsupported_extension")
        let webp = try await club.content("2/files/get_thumbnail_v2", argument("/byteclub/photos/really-a-png.jpg", format: "webp"))
        XCTAssertEqual(webp.status, 400, webp.text)
    }
}
