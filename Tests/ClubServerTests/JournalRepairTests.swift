@testable import ClubServer
import Foundation
import TestSupport
import XCTest

/// The journal file after a crash cut its last line short, and the tree walk's loop guard.
final class JournalRepairTests: XCTestCase {
    func testATornLastLineIsCutBeforeTheNextAppend() async throws {
        var club = try await ServerFixture()
        let journalPath = club.root.appendingPathComponent(".byteclub/journal").path
        do {
            try await club.upload("/a.txt", Data("a".utf8))
            let listed = try await club.listAll("")
            // A crash in the middle of appending the next record: "<seq> +" and no newline.
            await club.server.stop()
            let head = try Self.records(journalPath).last?.seq ?? 0
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journalPath))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("\(head + 1) +".utf8))
            try handle.close()

            club = try await club.restart()
            try await club.upload("/b.txt", Data("b".utf8))
            club = try await club.restart()
            try await club.upload("/c.txt", Data("c".utf8))

            let delta = try await club.changes(listed.cursor)
            XCTAssertEqual(delta.paths, ["/b.txt", "/c.txt"], "no change is lost across the restarts")
            let records = try Self.records(journalPath)
            XCTAssertEqual(records.map(\.path), ["/a.txt", "/b.txt", "/c.txt"])
            XCTAssertEqual(records.map(\.seq), [head, head + 1, head + 2])
        } catch {
            await club.tearDown()
            throw error
        }
        await club.tearDown()
    }

    /// The torture's find (seed 15946110112844606474): the server killed after a rename's journal
    /// records and before its snapshot was saved again. Started again, it compared the disk with
    /// the stale snapshot, which never had the old name: the journal kept calling it written,
    /// and every listing built from the journal showed a file that was not there.
    func testAJournalAheadOfTheSnapshotIsSquaredWithTheDiskAtStart() async throws {
        var club = try await ServerFixture()
        let meta = club.root.appendingPathComponent(".byteclub")
        do {
            await club.server.stop()
            let stale = try Data(contentsOf: meta.appendingPathComponent("tree"))
            club = try await club.restart()
            try await club.upload("/old.txt", Data("kept".utf8))
            await club.server.stop()
            // The rename done and journalled as "+ /old.txt" only; the snapshot from before it.
            try stale.write(to: meta.appendingPathComponent("tree"))
            try FileManager.default.moveItem(at: club.root.appendingPathComponent("old.txt"), to: club.root.appendingPathComponent("new.txt"))
            club = try await club.restart()
            let text = try String(contentsOf: meta.appendingPathComponent("journal"), encoding: .utf8)
            let last = text.split(separator: "\n").reversed()
            XCTAssertEqual(last.first { $0.hasSuffix(" /old.txt") }.map { $0.split(separator: " ")[1] }, "-", text)
            XCTAssertEqual(last.first { $0.hasSuffix(" /new.txt") }.map { $0.split(separator: " ")[1] }, "+", text)
        } catch {
            await club.tearDown()
            throw error
        }
        await club.tearDown()
    }

    func testAnAppendThatCannotBeKeptMakesEveryCursorReset() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let path = base.appendingPathComponent("journal").path
        let journal = ChangeJournal(path: path, limit: 100)
        journal.append([(.written, "/a.txt")])
        let before = journal.sign("cursor")

        // The file cannot be appended to (nor replaced): a folder with something in it.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path + "/blocker", withIntermediateDirectories: true)
        journal.append([(.written, "/b.txt")])
        let after = journal.sign("cursor")
        XCTAssertNotEqual(after, before, "a cursor made before the lost append is no longer ours")
        XCTAssertEqual(journal.position.head, 2)

        // Once the file can be written again, it is rewritten whole, with the new secret.
        try FileManager.default.removeItem(atPath: path)
        journal.append([(.removed, "/a.txt")])
        XCTAssertEqual(journal.sign("cursor"), after)
        XCTAssertEqual(try Self.records(path).map(\.path), ["/a.txt", "/b.txt", "/a.txt"])
        let reloaded = ChangeJournal(path: path, limit: 100)
        XCTAssertEqual(reloaded.sign("cursor"), after)
        XCTAssertEqual(reloaded.position.head, 3)
    }

    func testAFolderReachedTwiceIsWalkedOnce() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        let root = base.appendingPathComponent("club").path
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(atPath: root + "/a/b", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/.byteclub", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/a/b/f.txt", contents: Data("f".utf8))
        FileManager.default.createFile(atPath: root + "/top.txt", contents: Data("t".utf8))
        XCTAssertEqual(Set(TreeWalker.scan(root: root, metaDirectory: root + "/.byteclub").entries.keys),
                       ["/a", "/a/b", "/a/b/f.txt", "/top.txt"])

        // A folder already entered (as through a bind mount of it elsewhere) is not entered again.
        var info = stat()
        XCTAssertEqual(stat(root + "/a/b", &info), 0)
        var scan = TreeScan()
        scan.visited.insert(TreeScan.FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
        TreeWalker.walk(host: root, display: "", depth: 0, root: root, metaDirectory: root + "/.byteclub", into: &scan)
        XCTAssertEqual(Set(scan.entries.keys), ["/a", "/a/b", "/top.txt"])
        XCTAssertEqual(scan.unread, [])
    }

    /// A real loop: the root bind-mounted below itself. Needs the right to mount (root in a
    /// container that allows it); skipped elsewhere.
    func testABindMountOfTheRootBelowItselfIsWalkedOnce() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        let root = base.appendingPathComponent("club").path
        try FileManager.default.createDirectory(atPath: root + "/a/loop", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/.byteclub", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/a/f.txt", contents: Data("f".utf8))
        guard Self.run("/bin/mount", "--bind", root, root + "/a/loop") == 0 else {
            try? FileManager.default.removeItem(at: base)
            try Requirement.machine(false, "cannot bind-mount here")
            return
        }
        defer {
            _ = Self.run("/bin/umount", "-l", root + "/a/loop")
            try? FileManager.default.removeItem(at: base)
        }
        let scan = TreeWalker.scan(root: root, metaDirectory: root + "/.byteclub")
        XCTAssertEqual(Set(scan.entries.keys), ["/a", "/a/f.txt", "/a/loop"])
    }

    func testAFolderThatCouldNotBeReadKeepsWhatTheSnapshotHadBelowIt() {
        func entry(_ display: String, folder: Bool = false) -> TreeSnapshot.Entry {
            TreeSnapshot.Entry(display: display, isDirectory: folder, inode: 1, size: 1, mtime: 1, ctime: 1)
        }
        let previous = ["/d": entry("/d", folder: true), "/d/x.txt": entry("/d/x.txt"), "/e.txt": entry("/e.txt"),
                        "/dd.txt": entry("/dd.txt")]
        var scan = TreeScan()
        scan.entries = ["/d": entry("/d", folder: true)]
        scan.unread = ["/d"]
        let kept = scan.entries(keepingUnreadFrom: previous)
        XCTAssertEqual(Set(kept.keys), ["/d", "/d/x.txt"])
        XCTAssertEqual(TreeSnapshot.diff(old: previous, new: kept).map(\.1), ["/dd.txt", "/e.txt"],
                       "only what was really read as gone is removed")
    }

    // MARK: - Helpers

    /// The journal's records, failing on any line that is not one.
    static func records(_ path: String) throws -> [(seq: UInt64, path: String)] {
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        XCTAssertTrue(text.hasSuffix("\n"), "the journal ends with a whole line")
        var records: [(seq: UInt64, path: String)] = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let seq = UInt64(fields[0]), fields[1] == "+" || fields[1] == "-", fields[2].hasPrefix("/") else {
                XCTFail("not a record: \(line)")
                continue
            }
            records.append((seq, String(fields[2])))
        }
        return records
    }

    private static func run(_ tool: String, _ arguments: String...) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
