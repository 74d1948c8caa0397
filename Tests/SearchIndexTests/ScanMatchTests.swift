import Foundation
import XCTest
@testable import SearchIndex

/// A note matched without the index (``SearchIndex/scanMatch(_:path:name:rev:modified:query:)``,
/// what the club server answers with before its index is built) finds what the index finds:
/// the same notes, match kinds and lines, over generated notes and queries.
final class ScanMatchTests: XCTestCase {
    static let words = ["boat", "hire", "Lake", "déjà", "vu", "Été", "東京都", "京都", "に", "行きます", "trip", "trips", "ferry", "x1", "ÉTÉ", "club's"]

    func testTheScanFindsWhatTheIndexFinds() throws {
        let folder = try IndexFolder()
        let index = try SearchIndex(directory: folder.url)
        var seed = UInt64(20261128)
        func next(_ bound: Int) -> Int {
            // A fixed sequence (splitmix64): a failure names notes that can be made again.
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        var notes: [IndexedNote] = []
        for i in 0..<300 {
            let title = (0..<(1 + next(2))).map { _ in Self.words[next(Self.words.count)] }.joined(separator: " ") + " \(i)"
            let lines = (0..<(1 + next(4))).map { _ in
                (0..<next(7)).map { _ in Self.words[next(Self.words.count)] }.joined(separator: next(3) == 0 ? ", " : " ")
            }
            notes.append(IndexedNote(path: "/byteclub/\(title).md", rev: "r\(i)", modified: Date(timeIntervalSince1970: Double(i)),
                                     modifiedBy: nil, text: lines.joined(separator: next(2) == 0 ? "\n" : "\r\n")))
        }
        try index.upsert(notes)
        let queries = ["boat", "Boat hire", "\"boat hire\"", "trip*", "deja", "ete -lake", "京都", "東京", "行き", "x1", "club", "club's",
                       "vu -boat", "\"lake déjà\"", "ferry trip*", "hire -ferry -trip", "に"]
        for text in queries {
            let query = try SearchQuery(text)
            let indexed = try index.search(query, limit: 1000)
            var scanned: [SearchHit] = []
            for note in notes {
                var bytes = Array(note.text.utf8)
                if let hit = bytes.withUnsafeMutableBufferPointer({ buffer in
                    SearchIndex.scanMatch(UnsafeBufferPointer(buffer), path: note.path, name: note.name, rev: note.rev, modified: note.modified, query: query)
                }) { scanned.append(hit) }
            }
            XCTAssertFalse(indexed.isEmpty && !["hire -ferry -trip"].contains(text), "\(text): the index finds something to compare with")
            let byPath = Dictionary(uniqueKeysWithValues: scanned.map { ($0.path, $0) })
            XCTAssertEqual(Set(scanned.map(\.path)), Set(indexed.map(\.path)), "\(text): the same notes")
            for hit in indexed {
                guard let other = byPath[hit.path] else { continue }
                XCTAssertEqual(other.match, hit.match, "\(text) in \(hit.path)")
                XCTAssertEqual(other.line, hit.line, "\(text) in \(hit.path)")
                XCTAssertEqual(other.titleRanges, hit.titleRanges, "\(text) in \(hit.path)")
            }
        }
    }
}
