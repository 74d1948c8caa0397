@testable import ClubServer
import DropboxWire
import Foundation
import XCTest

/// What a commit does at its target, by Dropbox's write modes, without a disk
/// (``CommitRule``); the rev of a file version (``FileKey``); and errors told under another
/// field (``APIError/relabeled(as:)``).
final class CommitRuleTests: XCTestCase {
    private let held = CommitRule.Target.file(rev: "aaaaaaaaa1", contentHash: "old")

    func testAddNeverReplacesButIdenticalContentIsNoConflict() {
        XCTAssertEqual(CommitRule.decide(.nothing, mode: .add, autorename: false, contentHash: "new"), .place)
        XCTAssertEqual(CommitRule.decide(held, mode: .add, autorename: false, contentHash: "new"), .conflict(.file))
        XCTAssertEqual(CommitRule.decide(held, mode: .add, autorename: true, contentHash: "new"), .placeBeside(suffix: nil))
        XCTAssertEqual(CommitRule.decide(held, mode: .add, autorename: false, contentHash: "old"), .unchanged)
    }

    func testUpdateReplacesOnlyTheRevItNames() {
        XCTAssertEqual(CommitRule.decide(held, mode: .update(rev: "aaaaaaaaa1"), autorename: false, contentHash: "new"), .place)
        XCTAssertEqual(CommitRule.decide(held, mode: .update(rev: "bbbbbbbbb2"), autorename: false, contentHash: "new"), .conflict(.file))
        XCTAssertEqual(CommitRule.decide(held, mode: .update(rev: "bbbbbbbbb2"), autorename: true, contentHash: "new"),
                       .placeBeside(suffix: "conflicted copy"))
        XCTAssertEqual(CommitRule.decide(held, mode: .update(rev: "bbbbbbbbb2"), autorename: false, contentHash: "old"), .unchanged,
                       "someone saved the same text meanwhile")
        XCTAssertEqual(CommitRule.decide(.nothing, mode: .update(rev: "aaaaaaaaa1"), autorename: false, contentHash: "new"), .conflict(.file),
                       "the file it updates is gone")
        XCTAssertEqual(CommitRule.decide(.nothing, mode: .update(rev: "aaaaaaaaa1"), autorename: true, contentHash: "new"), .place)
    }

    func testAFolderOrAnOddFileIsNeverReplaced() {
        XCTAssertEqual(CommitRule.decide(.folder, mode: .overwrite, autorename: false, contentHash: "x"), .conflict(.folder))
        XCTAssertEqual(CommitRule.decide(.folder, mode: .overwrite, autorename: true, contentHash: "x"), .placeBeside(suffix: nil))
        XCTAssertEqual(CommitRule.decide(.other, mode: .overwrite, autorename: true, contentHash: "x"), .conflict(.file))
        XCTAssertEqual(CommitRule.decide(held, mode: .overwrite, autorename: false, contentHash: "x"), .place)
    }

    func testFreeNamesKeepTheExtension() {
        XCTAssertEqual(CommitRule.freeNames(near: "a.txt", suffix: nil, count: 2), ["a (1).txt", "a (2).txt"])
        XCTAssertEqual(CommitRule.freeNames(near: "README", suffix: "conflicted copy", count: 1),
                       ["README (conflicted copy)", "README (conflicted copy 1)"])
        XCTAssertEqual(CommitRule.freeNames(near: "a.tar.gz", suffix: nil, count: 1), ["a.tar (1).gz"])
        XCTAssertEqual(CommitRule.freeNames(near: "x", suffix: nil).count, 10_000)
    }

    func testARevChangesWithAnyPartOfTheVersionAndTimesPast2262DoNotTrap() {
        let key = FileKey(inode: 1, size: 2, ctimeNanoseconds: 3, mtimeNanoseconds: 4)
        XCTAssertEqual(key.rev.count, 16)
        XCTAssertTrue(key.rev.allSatisfy(\.isHexDigit))
        XCTAssertEqual(key.rev, FileKey(inode: 1, size: 2, ctimeNanoseconds: 3, mtimeNanoseconds: 4).rev)
        for other in [FileKey(inode: 9, size: 2, ctimeNanoseconds: 3, mtimeNanoseconds: 4), FileKey(inode: 1, size: 9, ctimeNanoseconds: 3, mtimeNanoseconds: 4),
                      FileKey(inode: 1, size: 2, ctimeNanoseconds: 9, mtimeNanoseconds: 4), FileKey(inode: 1, size: 2, ctimeNanoseconds: 3, mtimeNanoseconds: 9)] {
            XCTAssertNotEqual(other.rev, key.rev)
        }
        var info = stat()
        info.st_mtim.tv_sec = 10_413_792_000 // 2300-01-01
        info.st_ctim.tv_sec = 10_413_792_000
        info.st_size = 5
        let far = FileKey(info)
        XCTAssertEqual(far.size, 5)
        XCTAssertNotEqual(far.mtimeNanoseconds, 0, "wrapped, not trapped")
    }

    func testALookupErrorIsToldUnderTheEndpointsField() {
        XCTAssertTrue(APIError.endpoint([.path, .notFound]).relabeled(as: .fromLookup).isEndpoint([.fromLookup, .notFound]))
        XCTAssertTrue(APIError.endpoint([.path, .conflict, .file]).relabeled(as: .to).isEndpoint([.path, .conflict, .file]),
                      "only lookup errors move")
        XCTAssertTrue(APIError.uploadPath([.conflict, .file]).relabeledWrite(as: .to).isEndpoint([.to, .conflict, .file]))
        XCTAssertThrowsError(try APIError.relabeling(.pathLookup) { () throws(APIError) in throw APIError.endpoint([.path, .malformedPath]) }) {
            XCTAssertTrue(($0 as? APIError)?.isEndpoint([.pathLookup, .malformedPath]) == true)
        }
    }
}
