import DropboxWire
import Foundation
import XCTest

/// Every union reads in both forms: `"jpeg"` and `{".tag":"jpeg"}`.
final class UnionTests: XCTestCase {
    /// Decodes `T` from a JSON fragment.
    func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try DropboxJSON.encode(value), as: UTF8.self)
    }

    func assertBothForms<U: WireUnion>(_ type: U.Type, file: StaticString = #filePath, line: UInt = #line) throws {
        for member in U.allCases {
            XCTAssertEqual(try decode(U.self, "\"\(member.rawValue)\""), member, file: file, line: line)
            XCTAssertEqual(try decode(U.self, #"{".tag":"\#(member.rawValue)"}"#), member, file: file, line: line)
            XCTAssertEqual(try decode(U.self, try text(member)), member, "round trip", file: file, line: line)
            XCTAssertEqual(try decode(U.self, try text(member.taggedObject)), member, "the object form we offer", file: file, line: line)
        }
        XCTAssertThrowsError(try decode(U.self, #""no_such_member""#), file: file, line: line)
        XCTAssertThrowsError(try decode(U.self, #"{".tag":"no_such_member"}"#), file: file, line: line)
        XCTAssertThrowsError(try decode(U.self, #"{"tag":"x"}"#), "an object needs '.tag'", file: file, line: line)
        XCTAssertThrowsError(try decode(U.self, "5"), file: file, line: line)
        XCTAssertThrowsError(try decode(U.self, "[]"), file: file, line: line)
    }

    func testThumbnailUnions() throws {
        try assertBothForms(ThumbnailSize.self)
        try assertBothForms(ThumbnailFormat.self)
        try assertBothForms(ThumbnailMode.self)
        XCTAssertEqual(try decode(ThumbnailMode.self, #"{".tag":"fitone_bestfit"}"#), .fitoneBestfit)
        XCTAssertTrue(ThumbnailSize.w480h320.box == (480, 320))
        XCTAssertEqual(ThumbnailSize.w2048h1536.width, 2048)
    }

    func testSearchUnions() throws {
        try assertBothForms(SearchFileStatus.self)
        try assertBothForms(SearchOrderBy.self)
        try assertBothForms(FileCategory.self)
        try assertBothForms(SearchMatchType.self)
        // As the official SDK sends them.
        let options = try decode(SearchArgument.self, """
            {"query":"pano","options":{"path":"/byteclub","max_results":20,"file_status":{".tag":"active"},"filename_only":true,
             "order_by":{".tag":"last_modified_time"},"file_extensions":["jpg"],"file_categories":[{".tag":"image"},"folder"]}}
            """)
        XCTAssertEqual(options, SearchArgument(query: "pano", options: SearchOptions(
            path: "/byteclub", maxResults: 20, orderBy: .lastModifiedTime, fileStatus: .active, filenameOnly: true,
            fileExtensions: ["jpg"], fileCategories: [.image, .folder])))
        XCTAssertEqual(try decode(SearchArgument.self, try text(options)), options)
        XCTAssertEqual(try decode(SearchArgument.self, #"{"query":"x","options":{"file_status":"deleted"}}"#).options?.fileStatus, .deleted)
    }

    func testWriteModeInBothForms() throws {
        XCTAssertEqual(try decode(WriteMode.self, #""add""#), .add)
        XCTAssertEqual(try decode(WriteMode.self, #"{".tag":"add"}"#), .add)
        XCTAssertEqual(try decode(WriteMode.self, #""overwrite""#), .overwrite)
        XCTAssertEqual(try decode(WriteMode.self, #"{".tag":"overwrite"}"#), .overwrite)
        XCTAssertEqual(try decode(WriteMode.self, #"{".tag":"update","update":"0123456789abcdef"}"#), .update(rev: "0123456789abcdef"))
        for mode in [WriteMode.add, .overwrite, .update(rev: "a1c10ce0dd78")] {
            XCTAssertEqual(try decode(WriteMode.self, try text(mode)), mode)
        }
        XCTAssertEqual(try text(WriteMode.add), #""add""#)
        XCTAssertEqual(try text(WriteMode.update(rev: "a1c10ce0dd78")), #"{".tag":"update","update":"a1c10ce0dd78"}"#)
        XCTAssertEqual(WriteMode.update(rev: "a1c10ce0dd78").jsonValue as? [String: String], [".tag": "update", "update": "a1c10ce0dd78"])
        XCTAssertEqual(WriteMode.overwrite.jsonValue as? String, "overwrite")
        for bad in [#""update""#, #"{".tag":"update"}"#, #"{".tag":"update","update":"short"}"#, #"{".tag":"update","update":"not-hex-at-all"}"#,
                    #""sideways""#, #"{".tag":"sideways"}"#, "true", "{}"] {
            XCTAssertThrowsError(try decode(WriteMode.self, bad), bad)
        }
    }

    func testCommitInfoAndThumbnailArgumentsAsTheSDKSendsThem() throws {
        let commit = try decode(CommitInfo.self, #"{"path":"/a.txt","mode":{".tag":"update","update":"123456789"},"autorename":true,"mute":false,"strict_conflict":false}"#)
        XCTAssertEqual(commit, CommitInfo(path: "/a.txt", mode: .update(rev: "123456789"), autorename: true))
        XCTAssertEqual(try decode(CommitInfo.self, #"{"path":"/a.txt"}"#), CommitInfo(path: "/a.txt"), "Dropbox's defaults")
        XCTAssertEqual(try decode(CommitInfo.self, try text(commit)), commit)

        let thumbnail = try decode(ThumbnailArgument.self, """
            {"resource":{".tag":"path","path":"/p/x.jpg"},"format":{".tag":"jpeg"},"size":{".tag":"w256h256"},"mode":{".tag":"bestfit"}}
            """)
        XCTAssertEqual(thumbnail, ThumbnailArgument(path: "/p/x.jpg", format: .jpeg, size: .w256h256, mode: .bestfit))
        XCTAssertEqual(try decode(ThumbnailArgument.self, #"{"resource":{".tag":"path","path":"/x.jpg"}}"#), ThumbnailArgument(path: "/x.jpg"))
        XCTAssertEqual(try decode(ThumbnailArgument.self, try text(thumbnail)), thumbnail)
        XCTAssertEqual(try decode(ThumbnailArgument.self, #"{"resource":{".tag":"link","url":"https://x"}}"#).resource, .other(tag: "link"))
        XCTAssertThrowsError(try decode(ThumbnailArgument.self, #"{"resource":{".tag":"path"}}"#))
        XCTAssertThrowsError(try decode(ThumbnailArgument.self, #"{"resource":{".tag":"path","path":"/x.jpg"},"size":"w1h1"}"#))

        let cursor = UploadSessionCursor(sessionID: "abc", offset: 1 << 33)
        XCTAssertEqual(try text(cursor), #"{"offset":8589934592,"session_id":"abc"}"#)
        XCTAssertEqual(try decode(UploadSessionCursor.self, try text(cursor)), cursor)
    }
}
