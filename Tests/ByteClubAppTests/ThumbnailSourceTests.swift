import Foundation
@testable import ByteClubApp
import Imaging
import Remote
import TestSupport
import XCTest

/// Thumbnails for a store without a thumbnail endpoint (WebDAV on `rclone serve webdav`): the
/// app downloads the JPEG and scales it itself, within the size limit, even when the server
/// lies about the size in its listing.
final class ThumbnailSourceTests: XCTestCase {
    var server: RcloneWebDAV!

    override func setUp() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub/photos"), withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        server?.remove()
    }

    func testAStoreWithoutThumbnailsGetsThemMadeHereFromTheJPEG() async throws {
        // Dark on the left, red on the right.
        var pixels = [UInt8](repeating: 0, count: 640 * 320 * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) { pixels[index] = (index / 3) % 640 < 320 ? 0 : 250 }
        try JPEG.encode(RGBImage(width: 640, height: 320, pixels: pixels)).write(to: server.file("byteclub/photos/desk.jpg"))
        let store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
        let entry = try await store.metadata("/byteclub/photos/desk.jpg")

        let jpeg = try await ThumbnailSource.jpeg(of: entry, size: .w128h128, from: store)
        let image = try JPEG.decode(jpeg)
        XCTAssertEqual(image.width, 128)
        XCTAssertEqual(image.height, 64)
        XCTAssertLessThan(image.pixels[(32 * 128 + 10) * 3], 40, "the left stays dark")
        XCTAssertGreaterThan(image.pixels[(32 * 128 + 118) * 3], 200, "the right stays red")

        // Larger than the limit by the listing: refused before any download.
        var listedLarge = entry
        listedLarge.size = ThumbnailSource.maxSourceBytes + 1
        await assertLocalError(containing: "larger than 64 MiB") { () async throws(RemoteError) -> Data in try await ThumbnailSource.jpeg(of: listedLarge, size: .w128h128, from: store) }

        // A server whose listing understates the size: the download stops past the limit.
        try Data(count: Int(ThumbnailSource.maxSourceBytes) + (1 << 20)).write(to: server.file("byteclub/photos/huge.jpg"))
        var understated = try await store.metadata("/byteclub/photos/huge.jpg")
        understated.size = 1000
        await assertLocalError(containing: "larger than 64 MiB") { () async throws(RemoteError) -> Data in try await ThumbnailSource.jpeg(of: understated, size: .w128h128, from: store) }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("byteclub-thumbnail-") }
        XCTAssertEqual(leftovers, [], "the downloaded photos are removed")
    }

    func testPNGGIFWebPAndSVGGetThemMadeHereToo() async throws {
        // Red on the left, blue on the right, in each format.
        var pixels = [UInt8](repeating: 0, count: 400 * 200 * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) { pixels[index + ((index / 3) % 400 < 200 ? 0 : 2)] = 255 }
        let image = RGBImage(width: 400, height: 200, pixels: pixels)
        let indices = (0..<(400 * 200)).map { UInt8($0 % 400 < 200 ? 0 : 1) }
        let files: [(String, Data)] = [
            ("a.png", try PNG.encode(image)), ("b.webp", try WebP.encode(image)),
            ("c.gif", try GIF.encode(width: 400, height: 200, palette: [(255, 0, 0), (0, 0, 255)], frames: [indices])),
            ("d.svg", Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="20" height="20" fill="red"/><rect x="20" width="20" height="20" fill="blue"/></svg>"#.utf8)),
        ]
        let store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
        for (name, data) in files {
            try data.write(to: server.file("byteclub/photos/\(name)"))
            let entry = try await store.metadata("/byteclub/photos/\(name)")
            let thumbnail = try Picture.decode(try await ThumbnailSource.jpeg(of: entry, size: .w128h128, from: store))
            XCTAssertEqual([thumbnail.width, thumbnail.height], [128, 64], name)
            let left = thumbnail.pixel(x: 20, y: 32), right = thumbnail.pixel(x: 108, y: 32)
            XCTAssertTrue(left.r > 200 && left.b < 60 && right.b > 200 && right.r < 60, "\(name): \(left) \(right)")
        }
        // A file named as a picture that is none: said so, no thumbnail.
        try Data("text".utf8).write(to: server.file("byteclub/photos/e.png"))
        let text = try await store.metadata("/byteclub/photos/e.png")
        await assertLocalError(containing: "Not a picture") { () async throws(RemoteError) -> Data in try await ThumbnailSource.jpeg(of: text, size: .w128h128, from: store) }
    }

    private func assertLocalError(containing text: String, file: StaticString = #filePath, line: UInt = #line,
                                  _ body: () async throws(RemoteError) -> Data) async {
        do throws(RemoteError) {
            _ = try await body()
            XCTFail("no error", file: file, line: line)
        } catch {
            XCTAssertTrue(error.message.contains(text), error.message, file: file, line: line)
        }
    }
}
