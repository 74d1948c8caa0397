@testable import ClubServer
import DropboxWire
import Foundation
import Logging
import XCTest

/// The content index's build reads every note; it hands the store each note's content hash as
/// it goes, for the version the server's snapshot names, so that a first listing after it need
/// not read and hash the notes again.
final class IndexBuildHashTests: XCTestCase {
    func testTheIndexBuildHashesTheNotesItReadsAsTheSnapshotNamesThem() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("index-hashes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let notes = root.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: notes.appendingPathComponent("deep"), withIntermediateDirectories: true)
        for i in 0..<30 { try Data("# Note \(i)\n\nword\(i)\n".utf8).write(to: notes.appendingPathComponent(i % 2 == 0 ? "deep/n\(i).md" : "n\(i).txt")) }
        try Data(repeating: 0xFF, count: 64).write(to: notes.appendingPathComponent("photo.jpg"))
        let store = try FolderStore(root: root.path, logger: Logger(label: "index-build-hashes"))
        // Changed after the start's walk: the version read is not the one the snapshot names.
        try Data("# Note 1, grown since the walk\n".utf8).write(to: notes.appendingPathComponent("n1.txt"))

        let meta = root.appendingPathComponent(".byteclub").path
        try await ContentSearch(metaDirectory: meta).bringCurrent(store: store)

        let written = HashBook.parse(try Data(contentsOf: URL(fileURLWithPath: meta + "/content-hashes")))
        XCTAssertEqual(written.count, 29, "every note the build read, as the snapshot names it, and no photo")
        var byInode: [UInt64: String] = [:]
        for (key, digest) in written { byInode[key.inode] = digest.hex }
        for i in 0..<30 {
            let path = notes.appendingPathComponent(i % 2 == 0 ? "deep/n\(i).md" : "n\(i).txt").path
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0)
            if i == 1 { continue }
            XCTAssertEqual(byInode[UInt64(info.st_ino)], try ContentHasher.hash(fileAt: path), "n\(i)")
        }
        let listed = try await store.list(try DropboxPath.checked("/byteclub"), recursive: true)
        let changed = listed.compactMap { entry -> String? in
            if case .file(let file) = entry, file.name == "n1.txt" { file.contentHash } else { nil }
        }
        XCTAssertEqual(changed, [try ContentHasher.hash(fileAt: notes.appendingPathComponent("n1.txt").path)],
                       "the note changed since the walk is hashed as it is now")
    }
}
