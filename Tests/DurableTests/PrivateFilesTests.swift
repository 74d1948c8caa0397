import Durable
import Foundation
import XCTest

/// byteclub's own files are 0600 and its folders 0700 whatever the umask (``PrivateFiles``):
/// made so, and set so when an older byteclub made them under the umask.
final class PrivateFilesTests: XCTestCase {
    private var folder: String!
    private var savedMask: mode_t = 0

    override func setUpWithError() throws {
        // The umask most systems run with: what made the index -rw-r--r-- (issue 70).
        savedMask = umask(0o022)
        folder = NSTemporaryDirectory() + "private-\(UUID().uuidString)"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
    }

    override func tearDownWithError() throws {
        umask(savedMask)
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path)
        return info.st_mode & 0o7777
    }

    func testEveryFolderMadeOnTheWayIs0700AndTheOneAboveIsLeftAlone() throws {
        try PrivateFiles.folder(folder + "/state/byteclub/drafts/")
        for made in ["/state", "/state/byteclub", "/state/byteclub/drafts"] {
            XCTAssertEqual(mode(folder + made), 0o700, made)
        }
        XCTAssertEqual(mode(folder), 0o755, "a folder that was there and is not the one asked for is the user's")
        // Asked again: nothing to make, nothing changes.
        try PrivateFiles.folder(folder + "/state/byteclub/drafts")
        XCTAssertEqual(mode(folder + "/state/byteclub/drafts"), 0o700)
    }

    func testAnOlderFolderAskedForIsSetTo0700() throws {
        XCTAssertEqual(mkdir(folder + "/cache", 0o755), 0)
        try PrivateFiles.folder(folder + "/cache")
        XCTAssertEqual(mode(folder + "/cache"), 0o700)
    }

    func testAFolderUnderAFileIsRefusedWithItsPath() throws {
        FileManager.default.createFile(atPath: folder + "/file", contents: Data())
        XCTAssertThrowsError(try PrivateFiles.folder(folder + "/file/below")) { error in
            XCTAssertEqual((error as? DurableFileError)?.path, folder + "/file/below")
            XCTAssertEqual((error as? DurableFileError)?.code, ENOTDIR)
        }
        XCTAssertThrowsError(try PrivateFiles.folder(folder + "/file")) { error in
            XCTAssertEqual((error as? DurableFileError)?.code, ENOTDIR)
        }
    }

    func testALinkIsFollowedToItsFolderButNotChanged() throws {
        XCTAssertEqual(mkdir(folder + "/elsewhere", 0o755), 0)
        XCTAssertEqual(symlink(folder + "/elsewhere", folder + "/link"), 0)
        try PrivateFiles.folder(folder + "/link")
        XCTAssertEqual(mode(folder + "/elsewhere"), 0o755, "the user's folder a link points to is theirs")
        try PrivateFiles.folder(folder + "/link/inside")
        XCTAssertEqual(mode(folder + "/elsewhere/inside"), 0o700)
    }

    func testAFileOpenedToWriteIs0600MadeOrFoundWiderAndAReadLeavesItAlone() throws {
        let made = folder + "/byteclub.log"
        let fd = PrivateFiles.open(made, O_WRONLY | O_CREAT | O_APPEND)
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        XCTAssertEqual(mode(made), 0o600)

        let older = folder + "/older.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: older, contents: Data("kept\n".utf8)))
        XCTAssertEqual(chmod(older, 0o644), 0)
        let reading = PrivateFiles.open(older, O_RDONLY)
        close(reading)
        XCTAssertEqual(mode(older), 0o644, "opened to read, nothing is changed")
        let writing = PrivateFiles.open(older, O_WRONLY | O_APPEND)
        close(writing)
        XCTAssertEqual(mode(older), 0o600)
        XCTAssertEqual(try String(contentsOfFile: older, encoding: .utf8), "kept\n")

        let failed = PrivateFiles.open(folder + "/missing/x", O_WRONLY | O_CREAT)
        let code = errno
        XCTAssertEqual(failed, -1)
        XCTAssertEqual(code, ENOENT, "no folder is made for a file")
    }

    func testAFileIsMadeEmptyOrSetAndProtectMakesNothing() throws {
        let database = folder + "/search.sqlite"
        try PrivateFiles.file(database)
        XCTAssertEqual(mode(database), 0o600)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int, 0)

        let wal = folder + "/search.sqlite-wal"
        XCTAssertTrue(FileManager.default.createFile(atPath: wal, contents: Data("wal".utf8)))
        XCTAssertEqual(chmod(wal, 0o644), 0)
        PrivateFiles.protect(wal)
        XCTAssertEqual(mode(wal), 0o600)
        XCTAssertEqual(try String(contentsOfFile: wal, encoding: .utf8), "wal")

        PrivateFiles.protect(folder + "/search.sqlite-shm")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/search.sqlite-shm"), "protect makes nothing")
    }

    func testADurableWriteMakesItsFoldersPrivateOnTheWay() throws {
        try DurableFile.write(Data("{}".utf8), to: folder + "/cache/byteclub/club/listing.json", flush: false)
        for made in ["/cache", "/cache/byteclub", "/cache/byteclub/club"] {
            XCTAssertEqual(mode(folder + made), 0o700, made)
        }
        XCTAssertEqual(mode(folder + "/cache/byteclub/club/listing.json"), 0o600)
    }
}
