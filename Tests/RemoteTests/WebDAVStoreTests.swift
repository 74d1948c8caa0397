import Foundation
import Imaging
@testable import Remote
import TestSupport
import Transfer
import XCTest

/// WebDAVStore against a real `rclone serve webdav` (which ignores If-Match and If-None-Match,
/// but locks): listing, metadata, transfers byte for byte, MKCOL/MOVE/COPY/DELETE, and every
/// protected write refusing to overwrite a change it did not see.
final class WebDAVStoreTests: XCTestCase {
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

    private func write(_ text: String, _ relative: String) throws {
        let url = server.file(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    private func contents(_ relative: String) -> String? {
        (try? Data(contentsOf: server.file(relative))).map { String(decoding: $0, as: UTF8.self) }
    }

    func testWrongPasswordIsUnauthorizedAndNeverInTheMessage() async {
        let store: WebDAVStore = self.store
        do {
            _ = try await WebDAVStore.connect(url: server.url, user: server.user, password: "wrong-horse-battery")
            XCTFail("a wrong password connected")
        } catch {
            XCTAssertEqual(error, .unauthorized(.webdavPassword))
            XCTAssertFalse(error.message.contains("wrong-horse-battery"))
            XCTAssertTrue(error.message.contains("password_command"), "names where the password comes from: \(error.message)")
        }
    }

    func testServerCapabilitiesSayLocking() async throws {
        let store: WebDAVStore = self.store
        let capabilities = try await store.serverCapabilities()
        XCTAssertTrue(capabilities.locking, "rclone answers DAV: 1, 2")
    }

    func testListAndMetadataWithUnicodeNames() async throws {
        let store: WebDAVStore = self.store
        try write("one", "byteclub/Grüße ✓.txt")
        try write("two two", "byteclub/日本語.md")
        try FileManager.default.createDirectory(at: server.file("byteclub/photos"), withIntermediateDirectories: true)
        let entries = try await store.list("/byteclub").sorted { $0.name < $1.name }
        XCTAssertEqual(entries.map(\.name), ["Grüße ✓.txt", "photos", "日本語.md"])
        XCTAssertEqual(entries.map(\.kind), [.file, .folder, .file])
        XCTAssertEqual(entries[0].path, "/byteclub/Grüße ✓.txt")
        XCTAssertEqual(entries[0].size, 3)
        XCTAssertNotNil(entries[0].rev)
        XCTAssertNotNil(entries[0].modified)
        let metadata = try await store.metadata("/byteclub/日本語.md")
        XCTAssertEqual(metadata.size, 7)
        XCTAssertEqual(metadata.rev, entries[2].rev)
        await assertThrows(.notFound("/byteclub/nope.txt")) { () async throws(RemoteError) in try await store.metadata("/byteclub/nope.txt") }
        await assertThrows(.notFound("/nowhere")) { () async throws(RemoteError) in try await store.list("/nowhere") }
    }

    /// A note is read in memory (issue 56: no temporary file per note in a 100,000-note sync),
    /// with the rev the listing gives it; a missing one is not found, asked through `any RemoteStore`.
    func testReadIsTheNotesBytesWithTheListingsRev() async throws {
        let text = "Day 1: Lyon — café\n"
        _ = try await store.upload(data: Data(text.utf8), to: "/byteclub/Plans.md", mode: .add, autorename: false)
        let any: any RemoteStore = store
        let (data, entry) = try await any.read("/byteclub/Plans.md")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), text)
        let listed = try await store.metadata("/byteclub/Plans.md")
        XCTAssertEqual(entry.rev, listed.rev)
        XCTAssertEqual(entry.size, Int64(data.count))
        XCTAssertEqual(entry.name, "Plans.md")
        do {
            _ = try await any.read("/byteclub/Gone.md")
            XCTFail("a missing note must not read")
        } catch {
            XCTAssertEqual(error, .notFound("/byteclub/Gone.md"))
        }
    }

    func testUploadAndDownloadAreByteExactAndMakeFolders() async throws {
        let store: WebDAVStore = self.store
        let local = server.base.appendingPathComponent("local.bin")
        var bytes = Data(count: 3 << 20)
        for index in stride(from: 0, to: bytes.count, by: 97) { bytes[index] = UInt8(index % 251) }
        try bytes.write(to: local)
        let seen = Mutex2<Int64>(0)
        let entry = try await store.upload(file: local, to: "/byteclub/deep/er/Ünï ✓.bin", mode: .add, autorename: false,
                                           progress: { done, _ in seen.set(done) })
        XCTAssertEqual(entry.path, "/byteclub/deep/er/Ünï ✓.bin")
        XCTAssertEqual(entry.size, Int64(bytes.count))
        XCTAssertEqual(seen.get(), Int64(bytes.count))
        XCTAssertEqual(try Data(contentsOf: server.file("byteclub/deep/er/Ünï ✓.bin")), bytes)
        let back = server.base.appendingPathComponent("back.bin")
        let got = try await store.download("/byteclub/deep/er/Ünï ✓.bin", to: back, resumeData: nil, progress: nil, onResumeData: nil)
        XCTAssertEqual(try Data(contentsOf: back), bytes)
        XCTAssertEqual(got.rev, entry.rev)
        let note = try await store.read("/byteclub/deep/er/Ünï ✓.bin")
        XCTAssertEqual(note.data, bytes)
    }

    func testUpdateFromAStaleETagIsAConflictAndTheOtherTextStays() async throws {
        let store: WebDAVStore = self.store
        try write("original", "byteclub/note.txt")
        let opened = try await store.metadata("/byteclub/note.txt")
        // Someone else saves through WebDAV meanwhile.
        XCTAssertEqual(try server.curl(["-X", "PUT", "--data-binary", "the other member's text", server.url.appendingPathComponent("byteclub/note.txt").absoluteString]), 0)
        await assertThrows(.conflict("/byteclub/note.txt")) { () async throws(RemoteError) in
            try await store.upload(data: Data("mine".utf8), to: "/byteclub/note.txt", mode: .update(rev: opened.rev!), autorename: false)
        }
        XCTAssertEqual(contents("byteclub/note.txt"), "the other member's text")
        // From the current ETag the save goes through, and the lock is gone afterwards.
        let current = try await store.metadata("/byteclub/note.txt")
        let saved = try await store.upload(data: Data("mine".utf8), to: "/byteclub/note.txt", mode: .update(rev: current.rev!), autorename: false)
        XCTAssertNotEqual(saved.rev, current.rev)
        XCTAssertEqual(contents("byteclub/note.txt"), "mine")
        XCTAssertEqual(try server.curl(["-X", "PUT", "--data-binary", "after", server.url.appendingPathComponent("byteclub/note.txt").absoluteString]), 0,
                       "the save's lock was released")
        // A note deleted since it was opened is a conflict too, and is not made again.
        let reopened = try await store.metadata("/byteclub/note.txt")
        try FileManager.default.removeItem(at: server.file("byteclub/note.txt"))
        await assertThrows(.conflict("/byteclub/note.txt")) { () async throws(RemoteError) in
            try await store.upload(data: Data("mine".utf8), to: "/byteclub/note.txt", mode: .update(rev: reopened.rev!), autorename: false)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.file("byteclub/note.txt").path))
    }

    func testAddNeverReplacesAndAutorenameFindsAFreeName() async throws {
        let store: WebDAVStore = self.store
        try write("theirs", "byteclub/a.txt")
        await assertThrows(.conflict("/byteclub/a.txt")) { () async throws(RemoteError) in
            try await store.upload(data: Data("mine".utf8), to: "/byteclub/a.txt", mode: .add, autorename: false)
        }
        XCTAssertEqual(contents("byteclub/a.txt"), "theirs")
        let renamed = try await store.upload(data: Data("mine".utf8), to: "/byteclub/a.txt", mode: .add, autorename: true)
        XCTAssertEqual(renamed.path, "/byteclub/a (1).txt")
        XCTAssertEqual(contents("byteclub/a (1).txt"), "mine")
        let overwritten = try await store.upload(data: Data("over".utf8), to: "/byteclub/a.txt", mode: .overwrite, autorename: false)
        XCTAssertEqual(overwritten.size, 4)
        XCTAssertEqual(contents("byteclub/a.txt"), "over")
    }

    /// An add of the bytes the file holds already is answered with the file, writing nothing,
    /// as a club server and Dropbox answer it (issue 69), with or without autorename; other
    /// bytes of the same size are still refused.
    func testAddOfTheSameBytesAnswersTheFileAndWritesNothing() async throws {
        let store: WebDAVStore = self.store
        try write("theirs", "byteclub/a.txt")
        let before = try await store.metadata("/byteclub/a.txt")
        let same = try await store.upload(data: Data("theirs".utf8), to: "/byteclub/a.txt", mode: .add, autorename: false)
        XCTAssertEqual(same.path, "/byteclub/a.txt")
        XCTAssertEqual(same.rev, before.rev, "nothing was written")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("same-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("theirs".utf8).write(to: file)
        let renamed = try await store.upload(file: file, to: "/byteclub/a.txt", mode: .add, autorename: true, progress: nil)
        XCTAssertEqual(renamed.path, "/byteclub/a.txt", "the same bytes are no conflict to rename away from")
        await assertThrows(.conflict("/byteclub/a.txt")) { () async throws(RemoteError) in
            try await store.upload(data: Data("mine!!".utf8), to: "/byteclub/a.txt", mode: .add, autorename: false)
        }
        XCTAssertEqual(contents("byteclub/a.txt"), "theirs")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: server.file("byteclub").path), ["a.txt"], "no temporary upload left")
    }

    func testCancelledAddLeavesNothingOnTheServer() async throws {
        let store: WebDAVStore = self.store
        let local = server.base.appendingPathComponent("big.bin")
        try Data(count: 16 << 20).write(to: local)
        var connection = ConnectionOptions()
        connection.bandwidthLimit = 2 << 20
        let slow = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password, connection: connection)
        let started = Mutex2<Bool>(false)
        let upload = Task {
            try await slow.upload(file: local, to: "/byteclub/photos/big.bin", mode: .add, autorename: false,
                                  progress: { done, _ in if done > 0 { started.set(true) } })
        }
        let deadline = Date().addingTimeInterval(20)
        while !started.get(), Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertTrue(started.get())
        upload.cancel()
        let result = await upload.result
        XCTAssertEqual(result.error as? RemoteError, .cancelled)
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.file("byteclub/photos/big.bin").path), "the cancelled upload was removed")
        // Nor is the name left locked.
        _ = try await store.upload(data: Data("x".utf8), to: "/byteclub/photos/big.bin", mode: .add, autorename: false)
    }

    func testMoveCopyDeleteAndCreateFolder() async throws {
        let store: WebDAVStore = self.store
        try write("a", "byteclub/a.txt")
        try write("b", "byteclub/b.txt")
        await assertThrows(.conflict("/byteclub/b.txt")) { () async throws(RemoteError) in try await store.move(from: "/byteclub/a.txt", to: "/byteclub/b.txt", autorename: false) }
        XCTAssertEqual(contents("byteclub/b.txt"), "b", "Overwrite: F kept the target")
        let renamed = try await store.move(from: "/byteclub/a.txt", to: "/byteclub/b.txt", autorename: true)
        XCTAssertEqual(renamed.path, "/byteclub/b (1).txt")
        let replaced = try await store.move(from: "/byteclub/b (1).txt", to: "/byteclub/b.txt", overwrite: true)
        XCTAssertEqual(replaced.size, 1)
        XCTAssertEqual(contents("byteclub/b.txt"), "a")
        let copied = try await store.copy(from: "/byteclub/b.txt", to: "/byteclub/sub/c.txt", autorename: false)
            as RemoteEntry
        XCTAssertEqual(copied.path, "/byteclub/sub/c.txt")
        XCTAssertEqual(contents("byteclub/sub/c.txt"), "a")
        let folder = try await store.createFolder("/byteclub/x/y")
        XCTAssertEqual(folder.kind, .folder)
        await assertThrows(.conflict("/byteclub/x/y")) { () async throws(RemoteError) in try await store.createFolder("/byteclub/x/y") }
        let deleted = try await store.delete("/byteclub/x")
        XCTAssertEqual(deleted.kind, .folder)
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.file("byteclub/x").path))
        await assertThrows(.notFound("/byteclub/x")) { () async throws(RemoteError) in try await store.delete("/byteclub/x") }
    }

    func testPhotosBySearchAndNoThumbnailEndpoint() async throws {
        let store: WebDAVStore = self.store
        var pixels = [UInt8](repeating: 0, count: 640 * 320 * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) { pixels[index] = UInt8((index / 3) % 640 * 255 / 640) }
        let jpeg = try JPEG.encode(RGBImage(width: 640, height: 320, pixels: pixels))
        try FileManager.default.createDirectory(at: server.file("byteclub/photos/old"), withIntermediateDirectories: true)
        try jpeg.write(to: server.file("byteclub/photos/desk.jpg"))
        try jpeg.write(to: server.file("byteclub/photos/old/Desk 2.JPEG"))
        try write("not a photo", "byteclub/photos/readme.txt")
        let photos = try await store.search(in: "/byteclub/photos", extensions: ["jpg", "jpeg"]).map(\.path).sorted()
        XCTAssertEqual(photos, ["/byteclub/photos/desk.jpg", "/byteclub/photos/old/Desk 2.JPEG"])
        // No thumbnail endpoint: the store says so without asking, and the app makes them
        // (ByteClubAppTests' ThumbnailSourceTests).
        await assertThrows(.notSupported("thumbnails")) { () async throws(RemoteError) in
            try await store.thumbnail("/byteclub/photos/desk.jpg", size: .w128h128)
        }
    }

    func testDownloadResumesFromResumeData() async throws {
        let store: WebDAVStore = self.store
        let size = 24 << 20
        var bytes = Data(count: size)
        for index in stride(from: 0, to: size, by: 4096) { bytes[index] = UInt8((index / 4096) % 256) }
        try bytes.write(to: server.file("byteclub/pano.bin"))
        var connection = ConnectionOptions()
        connection.bandwidthLimit = 4 << 20
        let slow = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password, connection: connection)
        let target = server.base.appendingPathComponent("pano.bin")
        let resume = Mutex2<Data?>(nil)
        let progress = Mutex2<Int64>(0)
        let first = Task {
            try await slow.download("/byteclub/pano.bin", to: target, resumeData: nil, progress: { done, _ in progress.set(done) },
                                    onResumeData: { resume.set($0) })
        }
        let deadline = Date().addingTimeInterval(20)
        while progress.get() < 2 << 20, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        first.cancel()
        _ = await first.result
        let data = try XCTUnwrap(resume.get())
        let offset = try XCTUnwrap(DownloadResume.offset(of: data))
        XCTAssertGreaterThan(offset, 0)
        _ = try await store.download("/byteclub/pano.bin", to: target, resumeData: data, progress: nil, onResumeData: nil)
        XCTAssertEqual(try Data(contentsOf: target), bytes)
    }
}

extension Result {
    /// The failure, if any.
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
