import Foundation
import XCTest
@testable import SearchIndex

/// The index holds every note's text (an encrypted club's decrypted), so its folder is 0700 and
/// its files 0600 under a umask of 022, SQLite's `-wal` and `-shm` included (SQLite makes them
/// with the database's mode), and an older byteclub's 0644 files are set to 0600 when opened
/// (issue 70).
final class PrivateIndexTests: XCTestCase {
    private var savedMask: mode_t = 0
    private var base: URL!

    override func setUpWithError() throws {
        savedMask = umask(0o022)
        base = FileManager.default.temporaryDirectory.appendingPathComponent("private-index-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        umask(savedMask)
        try? FileManager.default.removeItem(at: base)
    }

    private func mode(_ url: URL) -> mode_t? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    private func indexFiles(_ folder: URL) -> [URL] {
        ["", "-wal", "-shm", ".lock"].map { folder.appendingPathComponent(SearchIndex.fileName + $0) }
    }

    func testANewIndexAndItsWALAndSharedMemoryAre0600InA0700Folder() throws {
        let folder = base.appendingPathComponent("cache/byteclub/club")
        let index = try SearchIndex(directory: folder)
        try index.upsert([note("/byteclub/Secret.md", "the plans, decrypted")])
        XCTAssertEqual(try index.search("plans").map(\.path), ["/byteclub/Secret.md"])
        for file in indexFiles(folder) {
            XCTAssertEqual(mode(file), 0o600, "\(file.lastPathComponent) (missing, or open to others)")
        }
        for made in [base.appendingPathComponent("cache"), base.appendingPathComponent("cache/byteclub"), folder] {
            XCTAssertEqual(mode(made), 0o700, made.path)
        }
    }

    func testAnOlderIndexLeftOpenToOthersIsMadePrivateWhenOpened() throws {
        let folder = base.appendingPathComponent("club")
        // Held open, as the app holds it while `byteclub search` opens it: its WAL stays.
        let first = try SearchIndex(directory: folder)
        try first.upsert([note("/byteclub/A.md", "alpha")])
        // As a byteclub before issue 70 left them: under the umask.
        XCTAssertEqual(chmod(folder.path, 0o755), 0)
        for file in indexFiles(folder) where mode(file) != nil { XCTAssertEqual(chmod(file.path, 0o644), 0) }
        XCTAssertNotNil(mode(folder.appendingPathComponent(SearchIndex.fileName + "-wal")), "a WAL to find open to others")

        let index = try SearchIndex(directory: folder)
        XCTAssertEqual(index.openOutcome, .opened)
        XCTAssertEqual(try index.search("alpha").map(\.path), ["/byteclub/A.md"])
        for file in indexFiles(folder) where mode(file) != nil {
            XCTAssertEqual(mode(file), 0o600, file.lastPathComponent)
        }
        XCTAssertEqual(mode(folder), 0o700)
        withExtendedLifetime(first) {}
    }

    func testAnIndexRebuiltFromADamagedFileIsPrivate() throws {
        let folder = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(SearchIndex.fileName)
        try Data("not a database at all, but long enough to be read as a header".utf8).write(to: file)
        XCTAssertEqual(mode(file), 0o644)
        let index = try SearchIndex(directory: folder)
        guard case .rebuilt = index.openOutcome else { return XCTFail("opened as \(index.openOutcome)") }
        try index.upsert([note("/byteclub/B.md", "beta")])
        for file in indexFiles(folder) {
            XCTAssertEqual(mode(file), 0o600, file.lastPathComponent)
        }
    }
}
