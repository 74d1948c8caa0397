import ClubServer
import Crypto
import Foundation
import XCTest

/// A folder bigger than what a listing keeps the metadata of (``ListingCache/metadataKept``),
/// paged through on a server's first start over it: each page's files hashed side by side, the
/// next page made while the client reads this one, the walk kept while it is paged.
final class BigListingTests: XCTestCase {
    var club: ServerFixture!

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func testEveryEntryOfABigFolderIsListedOnceInOrderWithItsHashAndAChangeBetweenPagesShows() async throws {
        let count = 20_500
        club = try await ServerFixture(seed: { root in
            let folder = root.appendingPathComponent("byteclub")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for n in 0..<count {
                let fd = open(folder.appendingPathComponent(String(format: "Note %05d.md", n)).path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
                _ = "note \(n)\n".utf8.withContiguousStorageIfAvailable { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
        })
        var reply = try await club.rpc("2/files/list_folder", ["path": "/byteclub", "limit": 2000])
        XCTAssertEqual(reply.status, 200, reply.text)
        var entries = reply.json["entries"] as? [[String: Any]] ?? []
        var pages = 1
        var changed = false
        while reply.json["has_more"] as? Bool == true {
            // Halfway, a note in a later page is written through the server: its page, made
            // ahead or not, must carry what it holds now.
            if pages == 5, !changed {
                let upload = try await club.upload("/byteclub/Note 15000.md", Data("changed between pages\n".utf8), mode: "overwrite")
                XCTAssertEqual(upload.status, 200, upload.text)
                changed = true
            }
            reply = try await club.rpc("2/files/list_folder/continue", ["cursor": reply.json["cursor"] as? String ?? ""])
            XCTAssertEqual(reply.status, 200, reply.text)
            entries += reply.json["entries"] as? [[String: Any]] ?? []
            pages += 1
        }
        let names = entries.compactMap { $0["name"] as? String }
        XCTAssertEqual(names.count, count, "each entry once")
        XCTAssertEqual(names, (0..<count).map { String(format: "Note %05d.md", $0) }, "in order, none twice, none missing")
        XCTAssertGreaterThanOrEqual(pages, 11)
        func hash(_ text: String) -> String {
            let block = Data(SHA256.hash(data: Data(text.utf8)))
            return SHA256.hash(data: block).map { String(format: "%02x", $0) }.joined()
        }
        for n in [0, 1999, 2000, 2001, 9999, 20_499] {
            XCTAssertEqual(entries[n]["content_hash"] as? String, hash("note \(n)\n"), "Note \(n)'s hash")
        }
        XCTAssertEqual(entries[15_000]["content_hash"] as? String, hash("changed between pages\n"), "the note written between pages")
        XCTAssertEqual(Set(entries.compactMap { $0["id"] as? String }).count, count, "an id each")
    }
}
