import ClubServer
import Foundation
import Imaging
import XCTest

/// Thumbnails in bounded memory, measured on a real `byteclub serve` process: its peak resident
/// set (VmHWM) after the request, so what an image costs to decode shows whatever the outcome.
final class ThumbnailMemoryTests: XCTestCase {
    static let ceiling = 200 << 20

    var base: URL!
    var root: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("club-thumbs-\(UUID().uuidString)")
        root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("photos"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: base)
    }

    func thumbnailArgument(_ path: String) -> String {
        #"{"resource":{".tag":"path","path":"\#(path)"},"format":"jpeg","size":"w256h256","mode":"strict"}"#
    }

    /// Writes the image, asks a fresh server for its thumbnail, and returns the reply and the
    /// server's peak memory.
    func thumbnail(of jpeg: Data, named name: String) async throws -> (ServerFixture.Reply, peak: Int) {
        try jpeg.write(to: root.appendingPathComponent("photos/\(name)"))
        let server = try ServeChild(root: root)
        let reply = try await server.content("2/files/get_thumbnail_v2", thumbnailArgument("/photos/\(name)"))
        let peak = try XCTUnwrap(server.memory("VmHWM"), "no /proc/PID/status")
        let idle = server.memory("VmRSS") ?? 0
        print("\(name): \(jpeg.count) bytes, status \(reply.status), peak RSS \(peak >> 20) MB (now \(idle >> 20) MB)")
        XCTAssertTrue(server.terminate(within: 10))
        return (reply, peak)
    }

    func testHugeProgressiveJPEGIsRefusedWithoutTheMemory() async throws {
        // 16000×16000 progressive 4:2:0: decoding it at any scale takes a 768 MB coefficient buffer.
        let jpeg = SyntheticJPEG.make(width: 16000, height: 16000, layout: .color420, progressive: true)
        XCTAssertLessThan(jpeg.count, 2 << 20)
        let (reply, peak) = try await thumbnail(of: jpeg, named: "huge-progressive.jpg")
        XCTAssertEqual(reply.status, 409, reply.text)
        XCTAssertEqual(reply.summary, "unsupported_image")
        XCTAssertLessThan(peak, Self.ceiling)
    }

    func testProgressiveJPEGUnderTheCapIsMadeWithinTheCeiling() async throws {
        // 7000×6000 at 4:2:0: a 120 MiB coefficient buffer, just under the 128 MiB cap.
        let jpeg = SyntheticJPEG.make(width: 7000, height: 6000, layout: .color420, progressive: true)
        let (reply, peak) = try await thumbnail(of: jpeg, named: "big-progressive.jpg")
        XCTAssertEqual(reply.status, 200, reply.text)
        let size = try JPEG.dimensions(of: reply.body)
        XCTAssertEqual(size.width, 256)
        XCTAssertEqual(size.height, 219)
        XCTAssertLessThan(peak, Self.ceiling)
    }

    func testBigProgressiveJPEGsAtOnceTakeTurns() async throws {
        // Each needs a 120 MiB buffer; side by side they would pass the ceiling, so the server
        // decodes them one after the other (whatever the number of cores).
        for name in ["one", "two", "three"] {
            try SyntheticJPEG.make(width: 7000, height: 6000, layout: .color420, progressive: true)
                .write(to: root.appendingPathComponent("photos/\(name).jpg"))
        }
        let server = try ServeChild(root: root)
        let argument = thumbnailArgument("/photos/NAME.jpg")
        let client = server.client
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for name in ["one", "two", "three"] {
                group.addTask {
                    try await client.content("2/files/get_thumbnail_v2", argument.replacingOccurrences(of: "NAME", with: name)).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(statuses, [200, 200, 200])
        let peak = try XCTUnwrap(server.memory("VmHWM"))
        print("three 7000×6000 progressive thumbnails at once: peak RSS \(peak >> 20) MB")
        XCTAssertLessThan(peak, Self.ceiling)
        XCTAssertTrue(server.terminate(within: 10))
    }

    func testPNGBombIsRefusedWithoutTheMemory() async throws {
        // 100,000 × 100,000 declared: 30 GB of pixels, refused on its header.
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.append(try PNG.encode(RGBImage(width: 1, height: 1, pixels: [0, 0, 0])).dropFirst(8))
        // The IHDR's size fields (bytes 16…23), its checksum left as it was: the size is refused first.
        png.replaceSubrange(16..<24, with: [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0])
        let (reply, peak) = try await thumbnail(of: png, named: "bomb.png")
        XCTAssertEqual(reply.summary, "unsupported_image", reply.text)
        XCTAssertLessThan(peak, Self.ceiling)
    }

    func testLargePNGIsDecodedARowAtATime() async throws {
        // 81 megapixels (243 MB of RGB): decoded a row at a time into the thumbnail's pixels.
        var pixels = [UInt8](repeating: 40, count: 9000 * 9000 * 3)
        for y in stride(from: 0, to: 9000, by: 2) { pixels[y * 9000 * 3] = 200 }
        let png = try PNG.encode(RGBImage(width: 9000, height: 9000, pixels: pixels))
        pixels = []
        let (reply, peak) = try await thumbnail(of: png, named: "big.png")
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertTrue(try JPEG.dimensions(of: reply.body) == (256, 256))
        XCTAssertLessThan(peak, Self.ceiling)
    }

    func testLargeBaselineJPEGIsScaledCheaply() async throws {
        // 100 megapixels, baseline: DCT scaling decodes an eighth each way, a few MB of pixels.
        let jpeg = SyntheticJPEG.make(width: 10000, height: 10000, layout: .color420, progressive: false)
        let (reply, peak) = try await thumbnail(of: jpeg, named: "big-baseline.jpg")
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertTrue(try JPEG.dimensions(of: reply.body) == (256, 256))
        XCTAssertLessThan(peak, Self.ceiling)
    }
}
