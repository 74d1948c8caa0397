import DropboxWire
import Foundation
import XCTest

/// Shared-link wire types: what Dropbox answers decodes (unknown visibilities included), what
/// the club server writes carries every field Dropbox's spec requires, and the
/// `shared_link_already_exists` error gives its link back.
final class SharedLinkWireTests: XCTestCase {
    /// Dropbox's own example answer of `create_shared_link_with_settings` (trimmed of team info).
    static let dropboxAnswer = #"""
    {".tag":"file","url":"https://www.dropbox.com/s/2sn712vy1ovegw8/Prime_Numbers.txt?dl=0","name":"Prime_Numbers.txt",
     "link_permissions":{"can_revoke":false,"resolved_visibility":{".tag":"public"},"revoke_failure_reason":{".tag":"owner_only"},
     "visibility_policies":[],"can_set_expiry":false,"can_remove_expiry":false,"allow_download":true,"can_allow_download":true,
     "can_disallow_download":false,"allow_comments":true,"team_restricts_comments":true},
     "client_modified":"2015-05-12T15:50:38Z","server_modified":"2015-05-12T15:50:38Z","rev":"a1c10ce0dd78","size":7212,
     "id":"id:a4ayc_80_OEAAAAAAAAAXw","path_lower":"/homework/math/prime_numbers.txt"}
    """#

    func testDropboxsAnswerDecodes() throws {
        let link = try JSONDecoder().decode(SharedLinkMetadata.self, from: Data(Self.dropboxAnswer.utf8))
        XCTAssertEqual(link.tag, "file")
        XCTAssertEqual(link.url, "https://www.dropbox.com/s/2sn712vy1ovegw8/Prime_Numbers.txt?dl=0")
        XCTAssertEqual(link.pathLower, "/homework/math/prime_numbers.txt")
        XCTAssertEqual(link.visibility, .public)
        XCTAssertEqual(link.size, 7212)
        XCTAssertNil(link.expires)
        // A visibility this client has never heard of is `other`, not a failure.
        let newer = Self.dropboxAnswer.replacingOccurrences(of: #""resolved_visibility":{".tag":"public"}"#,
                                                            with: #""resolved_visibility":{".tag":"members_of_the_moon"}"#)
        XCTAssertEqual(try JSONDecoder().decode(SharedLinkMetadata.self, from: Data(newer.utf8)).visibility, .other)
        // A timestamp that is not one is an error, never a wrong date.
        let garbled = Self.dropboxAnswer.replacingOccurrences(of: #""size":7212"#, with: #""size":7212,"expires":"soon""#)
        XCTAssertThrowsError(try JSONDecoder().decode(SharedLinkMetadata.self, from: Data(garbled.utf8)))
    }

    func testWhatTheServerWritesHasEveryRequiredFieldAndReadsBack() throws {
        let file = RevisionWireTests.file
        let link = SharedLinkMetadata(file: file, url: "http://127.0.0.1:1/s/token/a.txt", expires: Date(timeIntervalSince1970: 86_400))
        let data = try DropboxJSON.encode(link)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(object["expires"] as? String, "1970-01-02T00:00:00Z")
        let permissions = try XCTUnwrap(object["link_permissions"] as? [String: Any])
        for required in ["can_revoke", "visibility_policies", "can_set_expiry", "can_remove_expiry", "allow_download",
                         "can_allow_download", "can_disallow_download", "allow_comments", "team_restricts_comments"] {
            XCTAssertNotNil(permissions[required], required)
        }
        XCTAssertEqual((permissions["resolved_visibility"] as? [String: String])?[".tag"], "public")
        XCTAssertEqual(try JSONDecoder().decode(SharedLinkMetadata.self, from: data), link)
    }

    func testAlreadyExistsGivesItsLinkBack() throws {
        let body = #"{"error_summary":"shared_link_already_exists/metadata/..","error":{".tag":"shared_link_already_exists","shared_link_already_exists":{".tag":"metadata","metadata":"#
            + Self.dropboxAnswer + "}}}"
        struct Body: Decodable { var error: SharedLinkAlreadyExists }
        XCTAssertEqual(try JSONDecoder().decode(Body.self, from: Data(body.utf8)).error.metadata?.name, "Prime_Numbers.txt")
        // Dropbox may leave the link out (null, or the union's `other`).
        let bare = #"{"error":{".tag":"shared_link_already_exists","shared_link_already_exists":null}}"#
        XCTAssertNil(try JSONDecoder().decode(Body.self, from: Data(bare.utf8)).error.metadata)
        let absent = #"{"error":{".tag":"shared_link_already_exists"}}"#
        XCTAssertNil(try JSONDecoder().decode(Body.self, from: Data(absent.utf8)).error.metadata)
    }
}
