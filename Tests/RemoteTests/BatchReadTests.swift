import DropboxWire
import Foundation
import Remote
import XCTest

/// `/2/byteclub/files/download_batch` over real HTTP: DropboxStore.readBatch against a started
/// club server, and the answer's format on its own (``BatchDownload``).
final class BatchReadTests: XCTestCase {
    var club: ClubFixture!

    override func setUp() async throws {
        club = try await ClubFixture()
    }

    override func tearDown() async throws {
        await club?.close()
    }

    func testABatchGivesEachFileWithItsRevAndAFailureInItsPlace() async throws {
        let store = club.store()
        XCTAssertTrue(store.readsInBatches, "a club server reads in batches")
        let first = try await store.upload(data: Data("first note\n".utf8), to: "/byteclub/First.md", mode: .add, autorename: false)
        _ = try await store.createFolder("/byteclub/Trips/2026")
        let deep = try await store.upload(data: Data("ünïcode, deep down\n".utf8), to: "/byteclub/Trips/2026/Lyon.md", mode: .add, autorename: false)
        let empty = try await store.upload(data: Data(), to: "/byteclub/Empty.md", mode: .add, autorename: false)

        let reads = try await store.readBatch(["/byteclub/First.md", "/byteclub/Gone.md", "/byteclub/trips/2026/lyon.md", "/byteclub/Empty.md", "/byteclub/Trips"])
        XCTAssertEqual(reads.count, 5)
        guard case .file(let one, let oneData) = reads[0], case .failed(let gonePath, let gone) = reads[1],
              case .file(let two, let twoData) = reads[2], case .file(let three, let threeData) = reads[3],
              case .failed(_, let folder) = reads[4] else {
            return XCTFail("\(reads)")
        }
        XCTAssertEqual(String(decoding: oneData, as: UTF8.self), "first note\n")
        XCTAssertEqual(one.rev, first.rev)
        XCTAssertEqual(gonePath, "/byteclub/Gone.md")
        XCTAssertEqual(gone, .notFound("/byteclub/Gone.md"))
        XCTAssertEqual(String(decoding: twoData, as: UTF8.self), "ünïcode, deep down\n")
        XCTAssertEqual(two.path, "/byteclub/Trips/2026/Lyon.md")
        XCTAssertEqual(two.rev, deep.rev)
        XCTAssertEqual(threeData, Data())
        XCTAssertEqual(three.rev, empty.rev)
        XCTAssertNotEqual(folder, .notFound("/byteclub/Trips"), "a folder is not a file, and is not missing either")
    }

    func testMoreThanAThousandIsRefusedBeforeAnythingIsSent() async throws {
        let store = club.store()
        do {
            _ = try await store.readBatch((0...BatchDownload.maxEntries).map { "/byteclub/n\($0).md" })
            XCTFail("1,001 paths were sent")
        } catch {
            XCTAssertTrue("\(error)".contains("at most 1000"), "\(error)")
        }
    }

    func testAnAnswerCutShortOrGarbledIsAnErrorThatSaysSo() throws {
        let line = #"{".tag":"file","client_modified":"2026-11-25T19:50:14Z","id":"id:a","is_downloadable":true,"name":"a.md","path_display":"/byteclub/a.md","path_lower":"/byteclub/a.md","rev":"0123456789","server_modified":"2026-11-25T19:50:14Z","size":6}"#
        let whole = Data((line + "\nhello\n" + BatchDownload.failureLine(path: "/byteclub/b.md", errorSummary: "path/not_found/")).utf8)
        let parts = try BatchDownload.parse(whole)
        XCTAssertEqual(parts.count, 2)
        if case .file(let file, let data) = parts[0] {
            XCTAssertEqual(file.name, "a.md")
            XCTAssertEqual(data, Data("hello\n".utf8))
        } else {
            XCTFail("\(parts)")
        }
        XCTAssertEqual(parts[1], .failure(path: "/byteclub/b.md", errorSummary: "path/not_found/"))

        XCTAssertThrowsError(try BatchDownload.parse(whole.prefix(line.utf8.count + 3))) { error in
            XCTAssertTrue("\(error)".contains("cut short"), "\(error)")
        }
        XCTAssertThrowsError(try BatchDownload.parse(Data("not json\n".utf8))) { error in
            XCTAssertTrue("\(error)".contains("not a part"), "\(error)")
        }
        XCTAssertThrowsError(try BatchDownload.parse(Data(#"{".tag":"failure","path":"/x"}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("no end"), "\(error)")
        }
        // A line tagged as a file whose metadata is not a file's (no rev, a size of text), and
        // a failure without its path: each said for what it is.
        XCTAssertThrowsError(try BatchDownload.parse(Data(#"{".tag":"file","name":"a.md","size":"x"}"#.utf8 + [10]))) { error in
            XCTAssertTrue("\(error)".contains("a file's metadata that does not decode"), "\(error)")
        }
        XCTAssertThrowsError(try BatchDownload.parse(Data(#"{".tag":"failure","error_summary":"path/not_found/"}"#.utf8 + [10]))) { error in
            XCTAssertTrue("\(error)".contains("a failure without its path"), "\(error)")
        }
        XCTAssertEqual(try BatchDownload.parse(Data()), [])
    }
}
