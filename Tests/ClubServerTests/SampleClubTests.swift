import ClubServer
import Foundation
import Imaging
import SampleClub
import XCTest

final class SampleClubTests: XCTestCase {
    func testSeedingCopiesNotesAndPanoramasOnce() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        XCTAssertTrue(try SampleClub.seed(into: root))
        let notes = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("byteclub").path).filter { $0.hasSuffix(".txt") }
        XCTAssertEqual(notes.count, 2)
        let texts = try notes.map { try String(contentsOf: root.appendingPathComponent("byteclub/\($0)"), encoding: .utf8) }
        XCTAssertTrue(texts.contains { $0.contains("你好") && $0.contains("Grüße") }, "one note has Chinese and German text")
        XCTAssertTrue(notes.contains { $0.hasPrefix("Welcome") })

        let photos = root.appendingPathComponent("byteclub/photos")
        let names = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(names.count, 4)
        for name in names {
            let data = try Data(contentsOf: photos.appendingPathComponent(name))
            XCTAssertLessThan(data.count, 400 * 1024, name)
            let size = try JPEG.dimensions(of: data)
            XCTAssertTrue((2000...4000).contains(size.width), "\(name) is \(size.width) wide")
            XCTAssertEqual(Double(size.width) / Double(size.height), 4, accuracy: 0.5, "\(name) is a panorama")
        }

        // A second run leaves the member's folder alone.
        try Data("mine".utf8).write(to: root.appendingPathComponent("byteclub/mine.txt"))
        XCTAssertFalse(try SampleClub.seed(into: root))
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/mine.txt").path))
    }
}
