import DropboxWire
import Foundation
@testable import Remote
import Transfer
import XCTest

/// Answers decoded through DropboxWire's one metadata type and mapped to `RemoteEntry`.
///
/// The timestamp parser itself is tested with the wire (DropboxWireTests.TimestampTests).
final class EntryDecodingTests: XCTestCase {
    private func json(_ text: String) -> Data { Data(text.utf8) }

    func testAFileMapsEveryField() throws {
        let metadata = try DropboxStore.decode(Metadata.self, from: json(#"""
            {".tag":"file","name":"Note.txt","id":"id:n1","path_lower":"/byteclub/note.txt","path_display":"/byteclub/Note.txt",
             "client_modified":"2026-11-21T20:56:10Z","server_modified":"2026-11-21T20:57:00Z","rev":"0123456789a","size":5,
             "content_hash":"abc","is_downloadable":true}
            """#))
        let entry = try RemoteEntry(metadata)
        XCTAssertEqual(entry, RemoteEntry(kind: .file, name: "Note.txt", path: "/byteclub/Note.txt", pathLower: "/byteclub/note.txt", id: "id:n1",
                                          rev: "0123456789a", size: 5, modified: DropboxTimestamp.parse("2026-11-21T20:57:00Z"), contentHash: "abc"))
        XCTAssertEqual(entry.modified, Date(timeIntervalSince1970: 1_795_294_620), "server_modified, not client_modified")
    }

    func testFoldersAndDeletedEntries() throws {
        let folder = try RemoteEntry(DropboxStore.decode(Metadata.self, from: json(#"{".tag":"folder","name":"Photos","id":"id:f","path_display":"/byteclub/Photos"}"#)))
        XCTAssertEqual(folder, RemoteEntry(kind: .folder, name: "Photos", path: "/byteclub/Photos", pathLower: "/byteclub/photos", id: "id:f"))
        let deleted = try RemoteEntry(DropboxStore.decode(Metadata.self, from: json(#"{".tag":"deleted","name":"old.txt","path_lower":"/old.txt"}"#)))
        XCTAssertEqual(deleted, RemoteEntry(kind: .file, name: "old.txt", path: "/old.txt"))
    }

    func testAnEntryWithoutAPathIsAServerError() throws {
        let metadata = try DropboxStore.decode(Metadata.self, from: json(#"{".tag":"folder","name":"x","id":"id:x"}"#))
        XCTAssertThrowsError(try RemoteEntry(metadata)) { error in
            XCTAssertEqual(error as? RemoteError, .server(status: 0, detail: "the server sent metadata without a name or path"))
        }
    }

    func testUploadAnswersWithoutATagDecode() throws {
        // Dropbox answers `upload` and `upload_session/finish` with a file's metadata alone.
        let file = try DropboxStore.decode(FileMetadata.self, from: json(#"""
            {"name":"a.bin","id":"id:a","path_lower":"/a.bin","path_display":"/a.bin","client_modified":"2026-11-21T20:56:10Z",
             "server_modified":"2026-11-21T20:56:10Z","rev":"0123456789a","size":1}
            """#))
        XCTAssertEqual(try RemoteEntry(file).size, 1)
    }

    func testGarbledAnswersAreRetriableServerErrors() {
        XCTAssertThrowsError(try DropboxStore.decode(ListFolderResult.self, from: json(#"{"entries":[{".tag":"file""#))) { error in
            let remote = error as? RemoteError
            XCTAssertEqual(remote, .server(status: 0, detail: "the server's answer was not valid JSON"))
            XCTAssertEqual(remote?.isTransient, true)
        }
    }

    func testHeaderArgumentsKeepTheirWireForm() throws {
        XCTAssertEqual(try DropboxStore.asciiJSON(ThumbnailArgument(path: "/byteclub/photos/é.jpg", format: .jpeg, size: .w128h128, mode: .strict)),
                       #"{"format":"jpeg","mode":"strict","resource":{".tag":"path","path":"/byteclub/photos/\u00e9.jpg"},"size":"w128h128"}"#)
        let update: [String: Any] = ["path": "/a", "mode": WriteMode.update(rev: "0123456789a").jsonValue]
        XCTAssertEqual(try DropboxStore.asciiJSON(update), #"{"mode":{".tag":"update","update":"0123456789a"},"path":"/a"}"#)
        XCTAssertEqual(try DropboxStore.asciiJSON(["mode": WriteMode.add.jsonValue]), #"{"mode":"add"}"#)
    }

    func testErrorBodiesAreReadThroughTheWire() {
        let limited = Data(#"{"error_summary":"too_many_requests/..","error":{"reason":{".tag":"too_many_requests"},"retry_after":3}}"#.utf8)
        XCTAssertEqual(DropboxStore.retryAfter(response: nil, body: limited), 3)
        XCTAssertEqual(DropboxStore.retryAfter(response: nil, body: Data("slow down".utf8)), 1, "a plain-text 429 waits one second")
        XCTAssertEqual(DropboxStore.errorSummary(Data(#"{"error_summary":"path/not_found/..","error":{".tag":"path"}}"#.utf8)), "path/not_found/..")
        XCTAssertEqual(DropboxStore.errorSummary(Data("not json".utf8)), "")
    }
}

/// How a 503 reads: with `Retry-After` the server is busy and says when to come back (the club
/// server's "too many connections"), a rate limit to wait out; without it, a gateway whose server
/// is gone, which the app takes as offline.
final class BusyOrGoneTests: XCTestCase {
    private func error(_ status: Int, _ fields: [(String, String)]) -> RemoteError {
        let response = HTTPResponse(url: URL(string: "http://127.0.0.1:1/2/files/list_folder")!, statusCode: status, headerFields: fields)
        return DropboxStore.remoteError(.httpStatus(status, body: Data("{}".utf8)), response: response, path: "/byteclub", credential: .memberToken)
    }

    func testA503WithRetryAfterIsBusyNotGone() {
        let busy = error(503, [("Retry-After", "2")])
        XCTAssertEqual(busy, .rateLimited(retryAfter: 2))
        XCTAssertFalse(busy.isUnreachable, "a busy server is there")
        for status in [502, 503, 504] {
            XCTAssertTrue(error(status, []).isUnreachable, "\(status) without Retry-After: the server behind the gateway is gone")
        }
    }
}
