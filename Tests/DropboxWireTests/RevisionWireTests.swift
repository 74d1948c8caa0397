import DropboxWire
import Foundation
import XCTest

/// The wire types of revisions, copies and accounts, and `sharing_info` in file metadata.
final class RevisionWireTests: XCTestCase {
    static let file = FileMetadata(name: "a.txt", id: "id:1", pathLower: "/a.txt", pathDisplay: "/A.txt",
                                   clientModified: Date(timeIntervalSince1970: 0), serverModified: Date(timeIntervalSince1970: 86_399),
                                   rev: "00000000a", size: 5, contentHash: "h")

    func testSharingInfoIsWrittenAsTheEncoderWritesIt() throws {
        for modifiedBy in ["dbid:AAH4f99", nil] {
            var file = Self.file
            file.sharingInfo = FileSharingInfo(parentSharedFolderID: "84528192421", modifiedBy: modifiedBy)
            let entry = Metadata.file(file)
            XCTAssertEqual(entry.jsonText, String(decoding: try DropboxJSON.encode(entry), as: UTF8.self))
            XCTAssertEqual(try JSONDecoder().decode(Metadata.self, from: Data(entry.jsonText.utf8)), entry)
        }
        // Absent, the JSON is exactly what it was before sharing_info existed.
        XCTAssertFalse(Metadata.file(Self.file).jsonText.contains("sharing_info"))
        XCTAssertEqual(Metadata.file(Self.file).jsonText,
                       #"{".tag":"file","client_modified":"1970-01-01T00:00:00Z","content_hash":"h","id":"id:1","is_downloadable":true,"name":"a.txt","path_display":"/A.txt","path_lower":"/a.txt","rev":"00000000a","server_modified":"1970-01-01T23:59:59Z","size":5}"#)
    }

    func testAStrangeSharingInfoNeverCostsTheEntry() throws {
        let text = #"{".tag":"file","name":"x","id":"id:1","rev":"123456789","size":1,"client_modified":"2015-05-12T15:50:38Z","server_modified":"2015-05-12T15:50:38Z","sharing_info":"#
        guard case .file(let odd) = try JSONDecoder().decode(Metadata.self, from: Data((text + "7}").utf8)) else { return XCTFail() }
        XCTAssertNil(odd.sharingInfo)
        guard case .file(let real) = try JSONDecoder().decode(Metadata.self, from: Data((text + #"{"read_only":true,"modified_by":"dbid:x"}}"#).utf8)) else { return XCTFail() }
        XCTAssertEqual(real.sharingInfo?.readOnly, true)
        XCTAssertEqual(real.sharingInfo?.modifiedBy, "dbid:x")
    }

    func testListRevisionsResultAndArguments() throws {
        let result = ListRevisionsResult(isDeleted: true, serverDeleted: Date(timeIntervalSince1970: 86_400), entries: [Self.file], hasMore: false)
        let data = try DropboxJSON.encode(result)
        XCTAssertEqual(try JSONDecoder().decode(ListRevisionsResult.self, from: data), result)
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains(#""server_deleted":"1970-01-02T00:00:00Z""#))

        let short = try JSONDecoder().decode(ListRevisionsArg.self, from: Data(#"{"path":"/a.txt"}"#.utf8))
        XCTAssertEqual(short, ListRevisionsArg(path: "/a.txt", mode: .path, limit: 10))
        let tagged = try JSONDecoder().decode(ListRevisionsArg.self, from: Data(#"{"path":"id:1","mode":{".tag":"id"},"limit":3,"before_rev":"abcdef012"}"#.utf8))
        XCTAssertEqual(tagged, ListRevisionsArg(path: "id:1", mode: .id, limit: 3, beforeRev: "abcdef012"))
        XCTAssertEqual(try JSONDecoder().decode(RelocationArg.self, from: Data(#"{"from_path":"/a","to_path":"/b"}"#.utf8)),
                       RelocationArg(fromPath: "/a", toPath: "/b"))
        XCTAssertEqual(String(decoding: try DropboxJSON.encode(RestoreArg(path: "/a", rev: "abcdef012")), as: UTF8.self), #"{"path":"/a","rev":"abcdef012"}"#)
    }

    func testAccountDecodesDropboxsShape() throws {
        let account = try JSONDecoder().decode(Account.self, from: Data("""
            {"account_id":"dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc","name":{"given_name":"Franz","surname":"Ferdinand",
             "familiar_name":"Franz","display_name":"Franz Ferdinand (Personal)","abbreviated_name":"FF"},"email":"franz@example.com",
             "email_verified":true,"disabled":false,"locale":"en","referral_link":"https://db.tt/ZITNuhtI","is_paired":true,
             "account_type":{".tag":"basic"},"root_info":{".tag":"user","root_namespace_id":"3235641","home_namespace_id":"3235641"}}
            """.utf8))
        XCTAssertEqual(account.name.displayName, "Franz Ferdinand (Personal)")
        XCTAssertEqual(account.name.abbreviatedName, "FF")
        XCTAssertEqual(account.email, "franz@example.com")
        XCTAssertEqual(AccountName(displayName: "ada lovelace king").abbreviatedName, "AL")
        XCTAssertEqual(AccountName(displayName: "ada").surname, "")
    }
}
