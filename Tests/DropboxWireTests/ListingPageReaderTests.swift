@testable import DropboxWire
import Foundation
import XCTest

/// ``ListingPageReader`` reads a club server's pages itself, and answers what `JSONDecoder`
/// answers or nothing (the page then goes to `JSONDecoder`). The seeds are the `listing-page`
/// fuzz target's.
final class ListingPageReaderTests: XCTestCase {
    static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/listing-page")

    private func seed(_ name: String) throws -> Data {
        try Data(contentsOf: Self.seeds.appendingPathComponent(name))
    }

    func testAClubServersPagesAreReadAsJSONDecoderReadsThem() throws {
        for name in ["page", "escaped", "unicode-raw", "empty", "spaced"] {
            let data = try seed(name)
            let quick = try XCTUnwrap(ListingPageReader.read(data), "\(name) was left to JSONDecoder")
            XCTAssertEqual(quick, try JSONDecoder().decode(ListFolderResult.self, from: data), name)
        }
        let page = try XCTUnwrap(ListingPageReader.read(try seed("page")))
        XCTAssertEqual(page.entries.map(\.tag), ["file", "folder", "deleted"])
        XCTAssertEqual(page.cursor, "abc")
        XCTAssertTrue(page.hasMore)
        let escaped = try XCTUnwrap(ListingPageReader.read(try seed("escaped")))
        guard case .file(let file) = escaped.entries.first else { return XCTFail("not a file: \(escaped.entries)") }
        XCTAssertEqual(file.name, "Café \"quoted\" \\ tab\t 😀.md")
        XCTAssertEqual(file.sharingInfo, FileSharingInfo(readOnly: true, parentSharedFolderID: "1", modifiedBy: "dbid:ann"))
        XCTAssertEqual(escaped.cursor, "a/b")
    }

    func testWhatIsNotThePlainShapeIsLeftToJSONDecoder() throws {
        for name in ["extra-field", "negative-size", "null-hash", "duplicate-key", "lone-surrogate"] {
            XCTAssertNil(ListingPageReader.read(try seed(name)), name)
        }
        // A field the reader does not know (real Dropbox sends several) still decodes, the slow way.
        let extra = try JSONDecoder().decode(ListFolderResult.self, from: try seed("extra-field"))
        XCTAssertEqual(extra.entries.count, 1)
        for text in ["", "{}", "[]", "{\"cursor\":\"c\",\"entries\":[],\"has_more\":false} x", "{\"cursor\":\"c\",\"entries\":[],\"has_more\":true,}",
                     "{\"cursor\":\"c\",\"entries\":[{\".tag\":\"file\",\"name\":\"a\"}],\"has_more\":false}",
                     "{\"cursor\":\"c\\x\",\"entries\":[],\"has_more\":false}", "{\"cursor\":\"c\",\"entries\":[],\"has_more\":False}"] {
            XCTAssertNil(ListingPageReader.read(Data(text.utf8)), text)
        }
    }

    /// Every page one byte shorter, or with one byte changed: the reader refuses it, or reads it
    /// as `JSONDecoder` does.
    func testAPageCutOrGarbledAnywhereIsReadAsJSONDecoderReadsItOrNotAtAll() throws {
        var answered = 0
        for name in ["page", "escaped", "unicode-raw"] {
            let page = try seed(name)
            for index in page.indices {
                var cut = page
                cut.remove(at: index)
                var changed = page
                changed[index] = changed[index] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
                for variant in [cut, changed] {
                    guard let quick = ListingPageReader.read(variant) else { continue }
                    answered += 1
                    XCTAssertEqual(quick, try? JSONDecoder().decode(ListFolderResult.self, from: variant),
                                   String(decoding: variant, as: UTF8.self))
                }
            }
        }
        // Changes inside a name, a hash or an id still make a page of the plain shape.
        XCTAssertGreaterThan(answered, 100)
    }
}
