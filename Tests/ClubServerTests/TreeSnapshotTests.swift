@testable import ClubServer
import Foundation
import XCTest

/// The journal's feed as values, without a disk (``TreeSnapshot``): what a look at the tree
/// records, and the `.byteclub/tree` format.
final class TreeSnapshotTests: XCTestCase {
    private func entry(_ display: String, folder: Bool = false, inode: UInt64 = 1, size: Int64 = 1, mtime: Int64 = 1) -> TreeSnapshot.Entry {
        TreeSnapshot.Entry(display: display, isDirectory: folder, inode: inode, size: size, mtime: mtime, ctime: mtime)
    }

    func testADeletedFolderIsOneRemovalAndAChangedFileOneWrite() {
        let old = ["/d": entry("/d", folder: true), "/d/x.txt": entry("/d/x.txt"), "/a.txt": entry("/a.txt"), "/b.txt": entry("/b.txt")]
        let new = ["/a.txt": entry("/a.txt", size: 2), "/b.txt": entry("/b.txt"), "/c.txt": entry("/c.txt")]
        let changes = TreeSnapshot.diff(old: old, new: new)
        XCTAssertEqual(changes.map(\.0), [.removed, .written, .written])
        XCTAssertEqual(changes.map(\.1), ["/d", "/a.txt", "/c.txt"], "the folder's contents go with it; an unchanged file is not told")
    }

    func testAFolderIsTheSameVersionWhateverItsTimesSay() {
        XCTAssertTrue(entry("/d", folder: true, mtime: 1).sameVersion(as: entry("/d", folder: true, mtime: 9)))
        XCTAssertFalse(entry("/f", mtime: 1).sameVersion(as: entry("/f", mtime: 9)))
        XCTAssertFalse(entry("/d", folder: true, inode: 1).sameVersion(as: entry("/d", folder: true, inode: 2)), "a folder made anew")
        XCTAssertFalse(entry("/A").sameVersion(as: entry("/a")), "a case-only rename is a change")
    }

    func testACommitRecordsOnlyWhatChangedAtItsPath() {
        var tree = TreeSnapshot(entries: ["/a.txt": entry("/a.txt"), "/d": entry("/d", folder: true), "/d/x.txt": entry("/d/x.txt")])
        XCTAssertTrue(tree.record(at: "/a.txt", fresh: ["/a.txt": entry("/a.txt")]).isEmpty, "identical content records nothing")
        let replaced = tree.record(at: "/d", fresh: ["/d": entry("/d", folder: true), "/d/y.txt": entry("/d/y.txt")])
        XCTAssertEqual(replaced.map(\.1), ["/d/x.txt", "/d/y.txt"])
        XCTAssertEqual(replaced.map(\.0), [.removed, .written])
        XCTAssertEqual(Set(tree.entries.keys), ["/a.txt", "/d", "/d/y.txt"])
        let gone = tree.record(at: "/d", fresh: [:])
        XCTAssertEqual(gone.map(\.1), ["/d"], "a folder's delete is one record")
        XCTAssertEqual(Set(tree.entries.keys), ["/a.txt"])
        XCTAssertFalse(tree.dirty, "the actor marks it dirty; a commit's records alone do not")
    }

    func testARescanReplacesTheSnapshotAndMarksItDirtyOnlyWhenSomethingChanged() {
        var tree = TreeSnapshot(entries: ["/a.txt": entry("/a.txt")])
        XCTAssertTrue(tree.replace(with: ["/a.txt": entry("/a.txt")]).isEmpty)
        XCTAssertFalse(tree.dirty)
        XCTAssertEqual(tree.replace(with: ["/b.txt": entry("/b.txt")]).map(\.1), ["/a.txt", "/b.txt"])
        XCTAssertTrue(tree.dirty)
        XCTAssertEqual(Array(tree.entries.keys), ["/b.txt"])
    }

    func testTheTreeFileReadsBackWhatWasWrittenAndSkipsDamagedLines() {
        let tree = TreeSnapshot(entries: ["/my notes": entry("/My Notes", folder: true, inode: 7), "/my notes/a b.txt": entry("/My Notes/a b.txt", size: 42, mtime: -5)])
        XCTAssertEqual(TreeSnapshot.entries(text: tree.text), tree.entries, "names with spaces and negative times survive")
        let damaged = tree.text + "f 1 2 3\nx 1 1 1 1 /bad\nf 1 1 1 1 relative\n"
        XCTAssertEqual(TreeSnapshot.entries(text: damaged), tree.entries)
    }
}
