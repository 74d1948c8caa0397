import DropboxWire
import Foundation
import XCTest

/// Every metadata kind survives the trip through the Codable coders and the hand-written writer.
final class MetadataTests: XCTestCase {
    static let file = FileMetadata(
        name: "Ünïcode \"quoted\" \\ tab\t.txt", id: "id:abc_123", pathLower: "/byteclub/ünïcode \"quoted\" \\ tab\t.txt",
        pathDisplay: "/byteclub/Ünïcode \"quoted\" \\ tab\t.txt", clientModified: Date(timeIntervalSince1970: 1_700_000_000),
        serverModified: Date(timeIntervalSince1970: 1_795_467_370), rev: "0123456789abcdef", size: 1 << 40,
        contentHash: String(repeating: "ab", count: 32))
    static let folder = FolderMetadata(name: "photos 📷", id: "id:folder", pathLower: "/byteclub/photos 📷", pathDisplay: "/byteclub/photos 📷")
    static let deleted = DeletedMetadata(name: "gone\u{1}.txt", pathLower: "/gone\u{1}.txt", pathDisplay: "/Gone\u{1}.txt")
    static let all: [Metadata] = [.file(file), .folder(folder), .deleted(deleted)]

    func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    func testEveryKindRoundTripsThroughCodable() throws {
        for entry in Self.all {
            let data = try DropboxJSON.encode(entry)
            XCTAssertEqual(try JSONDecoder().decode(Metadata.self, from: data), entry, String(decoding: data, as: UTF8.self))
        }
    }

    func testTheHandWrittenWriterAgreesWithTheDecoder() throws {
        for entry in Self.all {
            XCTAssertEqual(try decode(Metadata.self, entry.jsonText), entry, entry.jsonText)
            var header = ""
            entry.appendJSON(to: &header, asciiOnly: true)
            XCTAssertTrue(header.utf8.allSatisfy { $0 < 0x80 }, header)
            XCTAssertEqual(try decode(Metadata.self, header), entry, header)
        }
        // Without optional fields too.
        var bare = Self.file
        bare.pathLower = nil
        bare.pathDisplay = nil
        bare.contentHash = nil
        XCTAssertEqual(try decode(Metadata.self, Metadata.file(bare).jsonText), .file(bare))
    }

    func testTheHandWrittenWriterMatchesTheEncoderByteForByte() throws {
        // Plain names, where both escape alike: the same keys, order and values.
        let file = FileMetadata(name: "a.txt", id: "id:1", pathLower: "/a.txt", pathDisplay: "/A.txt",
                                clientModified: Date(timeIntervalSince1970: 0), serverModified: Date(timeIntervalSince1970: 86_399),
                                rev: "00000000a", size: 5, contentHash: "h")
        for entry in [Metadata.file(file), .folder(.init(name: "f", id: "id:2", pathLower: "/f", pathDisplay: "/F")),
                      .deleted(.init(name: "d", pathLower: "/d", pathDisplay: "/D"))] {
            XCTAssertEqual(entry.jsonText, String(decoding: try DropboxJSON.encode(entry), as: UTF8.self))
        }
    }

    func testDropboxShapesDecode() throws {
        let file = try decode(Metadata.self, """
            {".tag":"file","name":"Prime_Numbers.txt","id":"id:a4ayc_80_OEAAAAAAAAAXw","client_modified":"2015-05-12T15:50:38Z",
             "server_modified":"2015-05-12T15:50:38Z","rev":"a1c10ce0dd78","size":7212,"path_lower":"/homework/math/prime_numbers.txt",
             "path_display":"/Homework/math/Prime_Numbers.txt","sharing_info":{"read_only":true},"is_downloadable":true,
             "content_hash":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","has_explicit_shared_members":false}
            """)
        guard case .file(let metadata) = file else { return XCTFail("\(file)") }
        XCTAssertEqual(metadata.size, 7212)
        XCTAssertEqual(metadata.serverModified, DropboxTimestamp.parse("2015-05-12T15:50:38Z"))
        XCTAssertEqual(file.pathLower, "/homework/math/prime_numbers.txt")

        XCTAssertEqual(try decode(Metadata.self, #"{".tag":"folder","name":"math","id":"id:x","path_lower":"/homework/math","path_display":"/Homework/math"}"#),
                       .folder(.init(name: "math", id: "id:x", pathLower: "/homework/math", pathDisplay: "/Homework/math")))
        XCTAssertEqual(try decode(Metadata.self, #"{".tag":"deleted","name":"old.txt","path_lower":"/old.txt","path_display":"/Old.txt"}"#),
                       .deleted(.init(name: "old.txt", pathLower: "/old.txt", pathDisplay: "/Old.txt")))
        XCTAssertThrowsError(try decode(Metadata.self, #"{".tag":"symlink","name":"x"}"#))
        XCTAssertThrowsError(try decode(Metadata.self, #"{"name":"x"}"#), "no tag")
        XCTAssertThrowsError(try decode(Metadata.self, #"{".tag":"file","name":"x","id":"id:1"}"#), "a file without its fields")
        XCTAssertThrowsError(try decode(Metadata.self, #"{".tag":"file","name":"x","id":"id:1","rev":"123456789","size":1,"client_modified":"yesterday","server_modified":"2015-05-12T15:50:38Z"}"#))
    }

    func testListingsAndSearchResultsRoundTrip() throws {
        let listing = ListFolderResult(entries: Self.all, cursor: "abc", hasMore: true)
        XCTAssertEqual(try JSONDecoder().decode(ListFolderResult.self, from: DropboxJSON.encode(listing)), listing)

        let search = SearchResult(matches: Self.all.map { SearchMatch(metadata: $0) }, hasMore: false, cursor: nil)
        let text = String(decoding: try DropboxJSON.encode(search), as: UTF8.self)
        XCTAssertTrue(text.contains(#"{"match_type":{".tag":"filename"},"metadata":{".tag":"metadata","metadata":{".tag":"file""#), text)
        XCTAssertEqual(try decode(SearchResult.self, text), search)

        let reply = try decode(MetadataResult.self, #"{"metadata":{".tag":"folder","name":"f","id":"id:f","path_lower":"/f","path_display":"/f"}}"#)
        XCTAssertEqual(reply.metadata.name, "f")
    }

    func testANegativeOrOverflowingSizeIsRefused() throws {
        let good = Metadata.file(Self.file).jsonText
        XCTAssertNoThrow(try decode(Metadata.self, good))
        for size in ["-1", "9223372036854775808", "1e300"] {
            let bad = good.replacingOccurrences(of: "\"size\":\(1 << 40)", with: "\"size\":\(size)")
            XCTAssertNotEqual(bad, good)
            XCTAssertThrowsError(try decode(Metadata.self, bad), size)
        }
    }
}
