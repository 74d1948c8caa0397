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
        let damaged = tree.text + Data("f 1 2 3\nx 1 1 1 1 /bad\nf 1 1 1 1 relative\n".utf8) + Data([0x66, 0x20, 0xFF, 0x0A])
        XCTAssertEqual(TreeSnapshot.entries(text: damaged), tree.entries, "short, unknown, relative and non-UTF-8 lines are skipped")
    }

    /// A rescan compared with the snapshot as it walks (``TreeSnapshot/takeIn(_:)``), then walked
    /// whole when it missed something, records what a whole walk's diff records, over generated
    /// trees: files and folders added, changed, kept, removed (a folder with its contents).
    func testARescanComparedAsItWalksRecordsWhatTheWholeWalkWould() {
        var random = SystemRandomNumberGenerator()
        var additionsOnly = 0
        for round in 0..<300 {
            var old: [String: TreeSnapshot.Entry] = [:]
            for n in 0..<Int.random(in: 0...30, using: &random) {
                let folder = "/f\(n % 4)"
                old[folder] = entry(folder, folder: true)
                old[folder + "/n\(n).md"] = entry(folder + "/N\(n).md", size: Int64(n))
            }
            var new = old
            for (key, value) in old {
                switch Int.random(in: 0..<10, using: &random) {
                case 0 where round % 2 == 0: new[key] = nil
                case 1: new[key]?.size += 1
                case 2: new[key]?.inode += 1
                default: _ = value
                }
            }
            for n in 0..<Int.random(in: 0...3, using: &random) { new["/new\(round)-\(n).md"] = entry("/New\(round)-\(n).md") }
            var whole = TreeSnapshot(entries: old)
            let expected = whole.replace(with: new)
            var compared = TreeSnapshot(entries: old)
            var scan = TreeScan(baseline: old)
            for (key, value) in new.shuffled(using: &random) { scan.add(key, value) }
            let taken = compared.takeIn(&scan)
            if taken != nil { additionsOnly += 1 }
            XCTAssertEqual(taken == nil, old.keys.contains { new[$0] == nil }, "nil exactly when the walk missed an entry")
            let changes = taken ?? compared.replace(with: new)
            XCTAssertEqual(changes.map(\.0), expected.map(\.0))
            XCTAssertEqual(changes.map(\.1), expected.map(\.1))
            // A folder's times are not its version: a walk that found one the same keeps the old.
            XCTAssertEqual(Set(compared.entries.keys), Set(new.keys))
            XCTAssertTrue(new.allSatisfy { compared.entries[$0.key]?.sameVersion(as: $0.value) == true })
            XCTAssertEqual(compared.dirty, whole.dirty)
            if taken != nil { XCTAssertLessThanOrEqual(scan.entries.count, new.count - old.count + expected.count) }
        }
        XCTAssertGreaterThan(additionsOnly, 100, "most rounds remove nothing")
    }

    func testAnUnreadFolderSendsTheRescanToAWholeWalk() {
        let old = ["/d": entry("/d", folder: true), "/d/x.md": entry("/d/x.md")]
        var tree = TreeSnapshot(entries: old)
        var scan = TreeScan(baseline: old)
        for (key, value) in old { scan.add(key, value) }
        scan.unread = ["/d"]
        XCTAssertNil(tree.takeIn(&scan), "what an unread folder holds is not known")
        XCTAssertEqual(tree.entries, old)
    }
}
