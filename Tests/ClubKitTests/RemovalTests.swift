import ClubKit
import Foundation
import XCTest

/// Issue 53 §8: the rule `rm` keeps, in ClubKit: a folder that holds files goes only with `-r`,
/// an empty one without; where the server keeps no history, the refusal and the deletion say
/// that what goes is gone for good. The built binary against a club server and WebDAV is
/// `RmFolderCLITests`.
final class RemovalTests: XCTestCase {
    func testAFolderThatHoldsFilesNeedsDashR() {
        let folder = Removal(path: "/byteclub/Trips", isFolder: true, files: 2000, keepsHistory: true)
        XCTAssertEqual(folder.refusal(recursive: false), "/byteclub/Trips is a folder with 2000 files; use rm -r to delete it and everything in it")
        XCTAssertNil(folder.refusal(recursive: true))
        XCTAssertNil(folder.warning, "a club server and Dropbox keep the history")

        XCTAssertEqual(Removal(path: "/byteclub/One", isFolder: true, files: 1, keepsHistory: true).refusal(recursive: false),
                       "/byteclub/One is a folder with 1 file; use rm -r to delete it and everything in it")
        XCTAssertNil(Removal(path: "/byteclub/Empty", isFolder: true, files: 0, keepsHistory: false).refusal(recursive: false), "an empty folder needs no -r")
        XCTAssertNil(Removal(path: "/byteclub/Empty", isFolder: true, files: 0, keepsHistory: false).warning)
        XCTAssertNil(Removal(path: "/byteclub/a.md", isFolder: false, files: 0, keepsHistory: false).refusal(recursive: false))
    }

    func testWithoutHistoryTheRefusalAndTheDeletionSaySo() {
        let folder = Removal(path: "/byteclub/Trips", isFolder: true, files: 3, keepsHistory: false)
        XCTAssertEqual(folder.refusal(recursive: false),
                       "/byteclub/Trips is a folder with 3 files; use rm -r to delete it and everything in it (this server keeps no history: they could not be restored)")
        XCTAssertEqual(folder.warning, "deleting /byteclub/Trips and the 3 files in it: this server keeps no history, so this cannot be undone")
    }
}
