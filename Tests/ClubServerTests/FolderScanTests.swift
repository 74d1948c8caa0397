@testable import ClubServer
import XCTest

/// The parts of a scan before its first read: which paths are notes, and their order.
final class FolderScanTests: XCTestCase {
    func testANoteIsToldByItsLowerCaseExtensionAsTheNameRuleTellsIt() {
        let paths = ["/a.md", "/b.txt", "/c.markdown", "/d.md.jpg", "/e", "/f.md/readme", "/.md", "/g.", "/x/é.txt", "/h.tx", "/i.mdx",
                     "/photos/p.jpg", "/deep/er/Trip.txt".lowercased()]
        for path in paths {
            XCTAssertEqual(FolderScan.isNote(lower: path), ContentSearch.isNote(path), path)
        }
    }

    func testPathsComeInTheOrderOfTheirBytesWhateverTheirLength() {
        var generator = SystemRandomNumberGenerator()
        let letters = Array("ab é_-.9日z/")
        for count in [0, 1, 2, 500, 9_001] {
            var picked: [(lower: String, entry: TreeSnapshot.Entry)] = []
            var seen = Set<String>()
            while picked.count < count {
                // Half share their first 16 bytes and more, so that the whole paths decide.
                let shared = picked.count % 2 == 0 ? "note 000000 of the club " : ""
                let lower = "/" + shared + String((0..<Int.random(in: 1...40, using: &generator)).map { _ in letters.randomElement(using: &generator)! })
                guard seen.insert(lower).inserted else { continue }
                picked.append((lower, TreeSnapshot.Entry(display: lower, isDirectory: false, inode: UInt64(picked.count), size: 1, mtime: 0, ctime: 0)))
            }
            let expected = picked.sorted { $0.lower.utf8.lexicographicallyPrecedes($1.lower.utf8) }.map(\.entry.inode)
            XCTAssertEqual(FolderScan.sortedByPath(picked).map(\.inode), expected, "\(count) paths")
            let under = picked.map { (lower: "/byteclub" + $0.lower, entry: $0.entry) }
            XCTAssertEqual(FolderScan.sortedByPath(under, skipping: 10).map(\.inode), expected, "\(count) paths under a folder")
        }
    }
}
