import Foundation
@testable import Remote
import TestSupport
import XCTest

/// A download continued at a partial file another process left (the background agent, killed):
/// against a real `rclone serve webdav`, the rest comes with `Range` and `If-Range`, and a file
/// changed meanwhile comes whole rather than spliced onto the old bytes.
final class PartialDownloadTests: XCTestCase {
    var server: RcloneWebDAV!
    var store: WebDAVStore!

    override func setUp() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
    }

    override func tearDown() async throws {
        store = nil
        server?.remove()
    }

    func testAPartialFileContinuesWhereItEndsAndAChangedFileComesWhole() async throws {
        let store: WebDAVStore = self.store
        let bytes = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try bytes.write(to: server.file("byteclub/big.bin"))
        let partial = server.base.appendingPathComponent("partials/one.part")
        let target = server.base.appendingPathComponent("out/big.bin")

        // Journaled before the first byte: an empty partial file, offset 0.
        let startedData = try await store.partialDownload(of: "/byteclub/big.bin", at: partial)
        let started = try XCTUnwrap(startedData)
        XCTAssertEqual(DownloadResume.offset(of: started), 0)
        XCTAssertEqual(DownloadResume.partialPath(of: started), partial.path)
        XCTAssertEqual(try Data(contentsOf: partial).count, 0)

        // 400,000 bytes on disk when the process died. They are marked (0xEE) so the result
        // shows they were kept: only the rest was asked for.
        try Data(repeating: 0xEE, count: 400_000).write(to: partial)
        let continued = try XCTUnwrap(DownloadResume.continuing(started))
        XCTAssertEqual(DownloadResume.offset(of: continued), 400_000)
        _ = try await store.download("/byteclub/big.bin", to: target, resumeData: continued, progress: nil, onResumeData: nil)
        XCTAssertEqual(try Data(contentsOf: target), Data(repeating: 0xEE, count: 400_000) + bytes.suffix(from: 400_000))
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path), "the partial file became the download")

        // The file changes between the crash and the resume: If-Range no longer matches, and
        // the new version arrives whole.
        let againData = try await store.partialDownload(of: "/byteclub/big.bin", at: partial)
        let again = try XCTUnwrap(againData)
        try Data(repeating: 0xEE, count: 400_000).write(to: partial)
        let changed = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try changed.write(to: server.file("byteclub/big.bin"))
        let resumed = try XCTUnwrap(DownloadResume.continuing(again))
        _ = try await store.download("/byteclub/big.bin", to: target, resumeData: resumed, progress: nil, onResumeData: nil)
        XCTAssertEqual(try Data(contentsOf: target), changed)

        // Gone, or with nothing to validate a range: no resume data, start over.
        unlink(partial.path)
        XCTAssertNil(DownloadResume.continuing(again))
        let unvalidated = try DownloadResume.starting(at: partial, method: "GET", validator: "W/\"weak\"")
        XCTAssertNil(DownloadResume.continuing(unvalidated))
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path), "a partial that cannot be continued is removed")
    }
}
