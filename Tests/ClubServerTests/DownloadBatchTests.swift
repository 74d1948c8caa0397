import ClubServer
import DropboxWire
import Foundation
import XCTest

/// `/2/byteclub/files/download_batch` over real HTTP, as the server answers it: its parts in
/// the request's order, failures in their places (a hidden or malformed path included), and
/// requests it refuses with a 400 that says why.
final class DownloadBatchTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func post(_ body: Data) async throws -> ServerFixture.Reply {
        try await club.post(Endpoint.downloadBatch.relativePath, body: body, headers: ["Content-Type": "application/json"])
    }

    func testPartsInOrderWithFailuresInTheirPlaces() async throws {
        try club.write("byteclub/A.md", "alpha\n")
        try club.write("byteclub/Deep/B.md", "beta\n")
        try club.write(".byteclub/secret", "never\n")
        let reply = try await post(BatchDownload.requestBody(paths: ["/byteclub/Deep/B.md", "/.byteclub/secret", "not a path", "/byteclub/A.md"]))
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.headers?.value(forHeader: "Content-Type"), BatchDownload.contentType)
        let parts = try BatchDownload.parse(reply.body)
        XCTAssertEqual(parts.count, 4)
        guard case .file(let b, let bData) = parts[0], case .failure(let hidden, _) = parts[1], case .failure(let malformed, let why) = parts[2],
              case .file(let a, let aData) = parts[3] else {
            return XCTFail("\(parts)")
        }
        XCTAssertEqual(b.pathDisplay, "/byteclub/Deep/B.md")
        XCTAssertEqual(bData, Data("beta\n".utf8))
        XCTAssertEqual(hidden, "/.byteclub/secret", "the server's own folder is never read out")
        XCTAssertEqual(malformed, "not a path")
        XCTAssertTrue(why.hasPrefix("path/malformed_path"), why)
        XCTAssertEqual(a.name, "A.md")
        XCTAssertEqual(aData, Data("alpha\n".utf8))

        // The rev is the one a single download gives for the same file.
        let single = try await club.content("2/files/download", ["path": "/byteclub/A.md"])
        XCTAssertEqual(single.result()["rev"] as? String, a.rev)
    }

    func testMoreThanAThousandOrNoEntriesListIsA400ThatSaysWhy() async throws {
        let many = try await post(BatchDownload.requestBody(paths: (0...BatchDownload.maxEntries).map { "/byteclub/n\($0).md" }))
        XCTAssertEqual(many.status, 400)
        XCTAssertTrue(many.text.contains("at most 1000 entries"), many.text)
        let garbled = try await post(Data(#"{"paths": ["/byteclub/a.md"]}"#.utf8))
        XCTAssertEqual(garbled.status, 400)
        XCTAssertTrue(garbled.text.contains("expected {\"entries\""), garbled.text)
        let none = try await post(BatchDownload.requestBody(paths: []))
        XCTAssertEqual(none.status, 200)
        XCTAssertEqual(none.body, Data())
    }
}
