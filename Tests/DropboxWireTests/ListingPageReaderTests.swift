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
        for name in ["page", "escaped", "unicode-raw", "empty", "spaced", "sparse"] {
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
        // What a page leaves out takes the defaults `Metadata`'s decoding gives it.
        let sparse = try XCTUnwrap(ListingPageReader.read(try seed("sparse")))
        guard case .file(let bare) = sparse.entries.first else { return XCTFail("not a file: \(sparse.entries)") }
        XCTAssertTrue(bare.isDownloadable)
        XCTAssertNil(bare.sharingInfo)
        XCTAssertNil(bare.contentHash)
        XCTAssertEqual(sparse.entries.count, 3)
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

    /// Pages garbled in several places at once with JSON's own bytes (quotes, escapes, digits,
    /// brackets, multi-byte and broken UTF-8), from a fixed seed: the same promise.
    func testPagesGarbledInManyPlacesAreReadAsJSONDecoderReadsThemOrNotAtAll() throws {
        let alphabet: [[UInt8]] = ["\"", "\\", "\\u", "d83d", "\\ude00", "0", "-", "1e3", ".", ",", ":", "{", "}", "[", "]",
                                   "null", "true", " ", "é", "😀"].map { Array($0.utf8) } + [[0xFF], [0xC3], [0x00], [0x1F]]
        var state: UInt64 = 71
        func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((mixed ^ (mixed >> 31)) % UInt64(bound))
        }
        var answered = 0, variants = 0
        for name in ["page", "escaped", "unicode-raw", "spaced"] {
            let page = Array(try seed(name))
            for _ in 0..<2_000 {
                var bytes = page
                for _ in 0...next(3) {
                    let at = next(bytes.count)
                    switch next(3) {
                    case 0: bytes.remove(at: at)
                    case 1: bytes.insert(contentsOf: alphabet[next(alphabet.count)], at: at)
                    default: bytes.replaceSubrange(at..<min(bytes.count, at + 1), with: alphabet[next(alphabet.count)])
                    }
                }
                variants += 1
                let data = Data(bytes)
                guard let quick = ListingPageReader.read(data) else { continue }
                answered += 1
                XCTAssertEqual(quick, try? JSONDecoder().decode(ListFolderResult.self, from: data), String(decoding: data, as: UTF8.self))
            }
        }
        XCTAssertEqual(variants, 8_000)
        XCTAssertGreaterThan(answered, 500, "too few garbled pages were still of the plain shape to tell anything")
    }
}
