@testable import Durable
import Foundation
import XCTest

/// The one durable write: whole content or none, the mode from the first byte, no litter, and
/// a failure that names the path.
final class DurableFileTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "durable-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func names(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    func testWriteCreatesTheFolderAndReplacesWholeWithNoTemporaryLeft() throws {
        let path = folder + "/deep/state.json"
        try DurableFile.write(Data("first".utf8), to: path)
        try DurableFile.write(Data("second, longer".utf8), to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "second, longer")
        XCTAssertEqual(try names(folder + "/deep"), ["state.json"])
        let folderMode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: folder + "/deep")[.posixPermissions] as? Int)
        XCTAssertEqual(folderMode & 0o777, 0o700)
    }

    func testPermissionsHoldFromTheFirstByte() throws {
        let secret = folder + "/tokens.json"
        try DurableFile.write(Data("{}".utf8), to: secret)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: secret)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        let shared = folder + "/shared.txt"
        try DurableFile.write(Data("x".utf8), to: shared, permissions: 0o644)
        let sharedMode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: shared)[.posixPermissions] as? Int)
        XCTAssertEqual(sharedMode & 0o777, 0o644 & ~Int(umask(0o022)), "the mode asked for, less the umask")
    }

    func testATemporaryFolderElsewhereKeepsHalfWrittenFilesOutOfTheTarget() throws {
        let state = folder + "/state"
        let club = folder + "/club"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: club, withIntermediateDirectories: true)
        try DurableFile.write(Array(repeating: UInt8(ascii: "a"), count: 1 << 20), to: club + "/big.bin", temporaryDirectory: state)
        XCTAssertEqual(try names(club), ["big.bin"])
        XCTAssertEqual(try names(state), [])
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: club + "/big.bin")[.size] as? Int, 1 << 20)
    }

    func testAFailureNamesThePathAndLeavesTheOldContent() throws {
        let path = folder + "/note.md"
        try DurableFile.write(Data("kept".utf8), to: path)
        // A temporary folder that does not exist: nothing can be written, the old file stays.
        XCTAssertThrowsError(try DurableFile.write(Data("lost".utf8), to: path, temporaryDirectory: folder + "/missing")) { error in
            let failure = error as? DurableFileError
            XCTAssertEqual(failure?.path, path)
            XCTAssertEqual(failure?.code, ENOENT)
            XCTAssertTrue(failure?.description.hasPrefix("Cannot write \(path): ") ?? false, "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "kept")
        // A folder as the target: the rename is refused, and no temporary file is left behind.
        try FileManager.default.createDirectory(atPath: folder + "/taken", withIntermediateDirectories: true)
        try DurableFile.write(Data("x".utf8), to: folder + "/taken/inner")
        XCTAssertThrowsError(try DurableFile.write(Data("y".utf8), to: folder + "/taken"))
        XCTAssertEqual(try names(folder), ["note.md", "taken"])
    }

    func testRemoveIsQuietForAMissingFileAndLoudForAFolder() throws {
        let path = folder + "/gone.txt"
        try DurableFile.write(Data("x".utf8), to: path)
        try DurableFile.remove(path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        try DurableFile.remove(URL(fileURLWithPath: path))
        XCTAssertThrowsError(try DurableFile.remove(folder)) { error in
            XCTAssertEqual((error as? DurableFileError)?.step, "remove")
        }
    }

    /// Bytes made on the temporary file's descriptor (a kernel copy): placed whole, or, when the
    /// filling fails, the old file stays and the failure names the path and the system's reason.
    func testAFilledWriteIsWholeOrLeavesTheOldFile() throws {
        let path = folder + "/blob"
        try DurableFile.write(Data("old".utf8), to: path)
        try DurableFile.write(to: path) { fd in DurableFile.writeAll(fd, Array("made in place".utf8)) }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "made in place")
        XCTAssertThrowsError(try DurableFile.write(to: path) { fd in
            _ = DurableFile.writeAll(fd, Array("half".utf8))
            errno = ENOSPC
            return false
        }) { error in
            XCTAssertEqual(error as? DurableFileError, DurableFileError(path: path, step: "write", code: ENOSPC))
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "made in place")
        XCTAssertEqual(try names(folder), ["blob"], "no temporary file left")
    }

    /// A cache is replaced whole without a flush; a body streamed in and flushed in place is
    /// placed by `place`, and a place that cannot happen says so.
    func testACacheIsReplacedWholeAndAStreamedFileIsPlaced() throws {
        let cache = folder + "/ids.json"
        try DurableFile.write(Data("{}".utf8), to: cache, flush: false)
        try DurableFile.write(Data(#"{"a":"id:1"}"#.utf8), to: cache, permissions: 0o644, flush: false)
        XCTAssertEqual(try String(contentsOfFile: cache, encoding: .utf8), #"{"a":"id:1"}"#)

        let temporary = folder + "/upload.part"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertTrue(DurableFile.writeAll(fd, Array("streamed".utf8)))
        XCTAssertTrue(DurableFile.flush(fd))
        XCTAssertTrue(DurableFile.flush(fd, dataOnly: true))
        close(fd)
        try DurableFile.place(temporary, at: folder + "/photo.jpg")
        XCTAssertEqual(try String(contentsOfFile: folder + "/photo.jpg", encoding: .utf8), "streamed")
        XCTAssertEqual(try names(folder), ["ids.json", "photo.jpg"])
        XCTAssertThrowsError(try DurableFile.place(temporary, at: folder + "/again.jpg")) { error in
            XCTAssertEqual((error as? DurableFileError)?.step, "replace")
        }
    }

    /// A batch's files flushed side by side: every one is flushed, each on its own thread of at
    /// most eight, and one that cannot be opened makes the whole answer false (nothing answered
    /// as on disk that is not); a folder that refuses is the best effort.
    func testFilesFlushedSideBySideSayWhenOneCouldNotBe() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let paths = (0..<40).map { folder + "/batch-\($0).md" }
        for path in paths { XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(path.utf8))) }
        XCTAssertTrue(DurableFile.flushSideBySide(files: paths, folders: [folder, folder + "/no such folder"]))
        XCTAssertTrue(DurableFile.flushSideBySide(files: [paths[0]]))
        XCTAssertTrue(DurableFile.flushSideBySide(files: []))
        XCTAssertFalse(DurableFile.flushSideBySide(files: paths + [folder + "/gone.md"]))
        XCTAssertFalse(DurableFile.flushSideBySide(files: [folder + "/gone.md"]))
        for path in paths { XCTAssertEqual(FileManager.default.contents(atPath: path), Data(path.utf8)) }
    }

    /// Together: the file system whole while little waits to be written, else the files side by
    /// side; either way every file is flushed, and a missing one is said.
    func testFilesFlushedTogetherEitherWay() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let paths = (0..<10).map { folder + "/together-\($0).md" }
        for path in paths { XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(path.utf8))) }
        XCTAssertNotNil(DurableFile.waitingToBeWritten(), "/proc/meminfo's Dirty and Writeback")
        XCTAssertTrue(DurableFile.flushTogether(files: paths, folders: [folder], holding: folder))
        XCTAssertFalse(DurableFile.flushTogether(files: [folder + "/gone.md"], holding: folder + "/gone.md"))
    }
}
