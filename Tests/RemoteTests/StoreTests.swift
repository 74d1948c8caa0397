import ClubServer
import Foundation
import Imaging
import Remote
import Synchronization
import Transfer
import XCTest

/// DropboxStore against a started club server, over real HTTP.
final class StoreTests: XCTestCase {
    var club: ClubFixture!

    override func setUp() async throws {
        club = try await ClubFixture()
    }

    override func tearDown() async throws {
        await club?.close()
    }

    func testEveryOperation() async throws {
        let store = club.store()
        XCTAssertEqual(store.displayName, club.server.baseURL.absoluteString)
        let folder = try await store.createFolder("/byteclub/photos")
        XCTAssertEqual(folder.kind, .folder)

        let note = try await store.upload(data: Data("first".utf8), to: "/byteclub/Note.txt", mode: .add, autorename: false)
        XCTAssertEqual(note.name, "Note.txt")
        XCTAssertEqual(note.size, 5)
        let rev = try XCTUnwrap(note.rev)
        let updated = try await store.upload(data: Data("second".utf8), to: "/byteclub/note.txt", mode: .update(rev: rev), autorename: false)
        XCTAssertNotEqual(updated.rev, rev)
        XCTAssertEqual(updated.id, note.id)

        let jpeg = try JPEG.encode(RGBImage(width: 400, height: 100, pixels: [UInt8](repeating: 120, count: 400 * 100 * 3)))
        let photoFile = club.base.appendingPathComponent("desk.jpg")
        try jpeg.write(to: photoFile)
        let progress = Mutex<[Int64]>([])
        let photo = try await store.upload(file: photoFile, to: "/byteclub/photos/desk.jpg", mode: .add, autorename: false,
                                           progress: { done, _ in progress.withLock { $0.append(done) } })
        XCTAssertEqual(photo.size, Int64(jpeg.count))
        XCTAssertEqual(progress.withLock { $0.last }, Int64(jpeg.count))

        let listing = try await store.list("/byteclub")
        XCTAssertEqual(listing.map(\.name).sorted(), ["Note.txt", "photos"])
        let metadata = try await store.metadata("/BYTECLUB/NOTE.TXT")
        XCTAssertEqual(metadata.path, "/byteclub/Note.txt")
        XCTAssertEqual(metadata.contentHash, updated.contentHash)

        let found = try await store.search(in: "/byteclub/photos", extensions: ["jpg", "jpeg"])
        XCTAssertEqual(found.map(\.name), ["desk.jpg"])
        let thumbnail = try await store.thumbnail("/byteclub/photos/desk.jpg", size: .w64h64)
        XCTAssertEqual(try JPEG.dimensions(of: thumbnail).width, 64)

        let destination = club.base.appendingPathComponent("out/note.txt")
        let downloaded = try await store.download("/byteclub/note.txt", to: destination, resumeData: nil, progress: nil, onResumeData: nil)
        XCTAssertEqual(downloaded.rev, updated.rev)
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "second")

        let moved = try await store.move(from: "/byteclub/note.txt", to: "/byteclub/Archive/note.txt", autorename: false)
        XCTAssertEqual(moved.path, "/byteclub/Archive/note.txt")
        XCTAssertEqual(moved.id, note.id)
        let deleted = try await store.delete("/byteclub/Archive")
        XCTAssertEqual(deleted.kind, .folder)
        await assertThrows(.notFound("/byteclub/Archive/note.txt")) { () async throws(RemoteError) in try await store.metadata("/byteclub/Archive/note.txt") }
    }

    func testPaginationPastTwoThousandEntries() async throws {
        let folder = club.file("byteclub/many")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<2_500 {
            try Data("\(index)".utf8).write(to: folder.appendingPathComponent("n\(index).txt"))
        }
        let store = club.store()
        let first = try await store.listPage("/byteclub/many", cursor: nil, limit: 2000)
        XCTAssertEqual(first.entries.count, 2000)
        XCTAssertNotNil(first.next)
        let all = try await store.list("/byteclub/many")
        XCTAssertEqual(all.count, 2_500)
        XCTAssertEqual(Set(all.map(\.name)).count, 2_500, "no entry twice")
    }

    func testNonASCIINames() async throws {
        let store = club.store()
        let chinese = try await store.upload(data: Data("你好，字节俱乐部".utf8), to: "/byteclub/你好.txt", mode: .add, autorename: false)
        XCTAssertEqual(chinese.name, "你好.txt")
        let german = try await store.upload(data: Data("Grüße".utf8), to: "/byteclub/Grüße.txt", mode: .add, autorename: false)
        XCTAssertEqual(german.path, "/byteclub/Grüße.txt")
        let names = Set(try await store.list("/byteclub").map(\.name))
        XCTAssertEqual(names, ["你好.txt", "Grüße.txt"])
        XCTAssertEqual(try String(contentsOf: club.file("byteclub/你好.txt"), encoding: .utf8), "你好，字节俱乐部")
        let destination = club.base.appendingPathComponent("grüße-copy.txt")
        _ = try await store.download("/byteclub/GRÜSSE.txt".replacingOccurrences(of: "SS", with: "ß").lowercased(), to: destination, resumeData: nil, progress: nil, onResumeData: nil)
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "Grüße")
        let moved = try await store.move(from: "/byteclub/你好.txt", to: "/byteclub/再见.txt", autorename: false)
        XCTAssertEqual(moved.name, "再见.txt")
    }

    func testTypedErrorsFromRealResponses() async throws {
        let store = club.store()
        await assertThrows(.notFound("/byteclub/missing.txt")) { () async throws(RemoteError) in try await store.metadata("/byteclub/missing.txt") }
        _ = try await store.upload(data: Data("a".utf8), to: "/byteclub/taken.txt", mode: .add, autorename: false)
        await assertThrows(.conflict("/byteclub/taken.txt")) { () async throws(RemoteError) in
            try await store.upload(data: Data("b".utf8), to: "/byteclub/taken.txt", mode: .add, autorename: false)
        }
        await assertThrows(.malformedPath("/byteclub/../x")) { () async throws(RemoteError) in try await store.list("/byteclub/../x") }
        await assertThrows(.unauthorized(.memberToken)) { () async throws(RemoteError) in try await club.store(token: "wrong").list("/byteclub") }
        let renamed = try await store.upload(data: Data("b".utf8), to: "/byteclub/taken.txt", mode: .add, autorename: true)
        XCTAssertEqual(renamed.name, "taken (1).txt")
        let missingFile = club.base.appendingPathComponent("nope.bin")
        await assertThrows(.local("No such file: \(missingFile.path)")) { () async throws(RemoteError) in
            try await store.upload(file: missingFile, to: "/byteclub/x", mode: .add, autorename: false, progress: nil)
        }
        XCTAssertEqual(RemoteError.rateLimited(retryAfter: 1.2).message, "The server is busy; retry in 2 s")
    }

    /// A refused credential says how to get another of its kind: only the club's admin gives a
    /// member a token (logging in again does nothing for it), Dropbox takes a new login, and a
    /// WebDAV password lives where this machine keeps it.
    func testARefusalSaysWhatToDoForItsKindOfRemote() async throws {
        XCTAssertEqual(StaticToken("t").credential, .memberToken)
        let refused: RemoteError
        do {
            _ = try await club.store(token: "wrong").list("/byteclub")
            return XCTFail("a wrong token listed the club")
        } catch {
            refused = error
        }
        XCTAssertEqual(refused.message,
                       "Not authorized: the club refused this member's token; ask the club's admin for a new invite (byteclub members add)")
        XCTAssertFalse(refused.message.contains("log in"), "a club has no login")
        XCTAssertEqual(RemoteError.unauthorized(.dropboxLogin).message, "Not authorized: Dropbox refused the login; log in again (byteclub login dropbox)")
        let webdav = RemoteError.unauthorized(.webdavPassword).message
        XCTAssertTrue(webdav.contains("password") && webdav.contains("password_command") && !webdav.contains("log in"), webdav)
    }

    func testRateLimitsAndServerErrorsSurfaceWhenRetriesRunOut() async throws {
        var noWaiting = RetryPolicy()
        noWaiting.maxRetryAfter = 0
        let limited = try await ClubFixture(chaos: try ChaosSpec(parsing: "429=1"))
        await assertThrows(.rateLimited(retryAfter: 1)) { () async throws(RemoteError) in try await limited.store(retry: noWaiting).list("/byteclub") }
        await limited.close()

        var quick = RetryPolicy()
        quick.maxAttempts = 2
        quick.baseDelay = 0.01
        let failing = try await ClubFixture(chaos: try ChaosSpec(parsing: "5xx=1"))
        do {
            _ = try await failing.store(retry: quick).list("/byteclub")
            XCTFail("expected a server error")
        } catch {
            guard case .server(let status, _) = error, [500, 503].contains(status) else { return XCTFail("\(error)") }
        }
        await failing.close()
    }

    func testCancelInMidSessionLeavesNoFile() async throws {
        var slow = SessionConfiguration.ephemeral
        slow.maxSendBytesPerSecond = 24 << 20
        let store = club.store(configuration: slow, chunkSize: 8 << 20)
        let file = try club.makeFile("big.bin", size: 64 << 20)
        let started = Mutex(false)
        let work = Task { () throws(RemoteError) -> RemoteEntry in
            try await store.upload(file: file, to: "/byteclub/big.bin", mode: .add, autorename: false, progress: { done, _ in
                if done >= 20 << 20 { started.withLock { $0 = true } }
            })
        }
        // Poll (with a deadline) until two chunks are committed to the session, then cancel.
        let deadline = Date().addingTimeInterval(30)
        while !started.withLock({ $0 }) && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertTrue(started.withLock { $0 })
        work.cancel()
        let result = await work.result
        XCTAssertEqual(result.failureValue as? RemoteError, .cancelled)
        XCTAssertFalse(FileManager.default.fileExists(atPath: club.file("byteclub/big.bin").path), "nothing was committed")
        await assertThrows(.notFound("/byteclub/big.bin")) { () async throws(RemoteError) in try await store.metadata("/byteclub/big.bin") }
    }

    func testDownloadResumesInANewSessionFromResumeData() async throws {
        let size = 24 << 20
        let source = try club.makeFile("photo.bin", size: size)
        try FileManager.default.copyItem(at: source, to: club.file("byteclub/photo.bin"))
        var slow = SessionConfiguration.ephemeral
        slow.maxReceiveBytesPerSecond = 12 << 20
        let first = club.store(configuration: slow)
        let destination = club.base.appendingPathComponent("downloads/photo.bin")
        let saved = Mutex<Data?>(nil)
        let halfway = Mutex(false)
        let work = Task { () throws(RemoteError) -> RemoteEntry in
            try await first.download("/byteclub/photo.bin", to: destination, resumeData: nil, progress: { done, _ in
                if done >= 6 << 20 { halfway.withLock { $0 = true } }
            }, onResumeData: { data in saved.withLock { $0 = data } })
        }
        let deadline = Date().addingTimeInterval(30)
        while !halfway.withLock({ $0 }) && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        work.cancel()
        let outcome = await work.result
        XCTAssertEqual(outcome.failureValue as? RemoteError, .cancelled)
        let resumeData = try XCTUnwrap(saved.withLock { $0 })
        let offset = try ResumeData.decode(resumeData).get().offset
        XCTAssertGreaterThanOrEqual(offset, 6 << 20)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path), "nothing is placed until the download completes")

        // A new store (a new Session), as after a restart.
        let second = club.store()
        let firstReport = Mutex<Int64?>(nil)
        let entry = try await second.download("/byteclub/photo.bin", to: destination, resumeData: resumeData, progress: { done, _ in
            firstReport.withLock { if $0 == nil { $0 = done } }
        }, onResumeData: nil)
        XCTAssertEqual(entry.size, Int64(size))
        XCTAssertEqual(try Data(contentsOf: destination), try Data(contentsOf: source))
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(firstReport.withLock { $0 }), offset, "it continued from the offset, not from zero")
    }

    /// The issue's acceptance test: 1 GiB under dropped connections and server errors.
    func testOneGiBUploadUnderChaosResumesAndNeverRestarts() async throws {
        let chaotic = try await ClubFixture(chaos: try ChaosSpec(parsing: "drop=0.25,5xx=0.05,truncate=0.05"), seed: 7)
        defer { Task { await chaotic.close() } }
        let size = 1 << 30
        let file = try chaotic.makeFile("huge.bin", size: size)
        var quick = RetryPolicy()
        quick.baseDelay = 0.02
        quick.maxAttempts = 20
        let store = chaotic.store(retry: quick)
        let entry = try await store.upload(file: file, to: "/byteclub/huge.bin", mode: .add, autorename: false, progress: nil)
        XCTAssertEqual(entry.size, Int64(size))
        XCTAssertEqual(entry.contentHash, try ContentHasher.hash(fileAt: file.path), "byte-identical on the server")
        XCTAssertEqual(try ContentHasher.hash(fileAt: chaotic.file("byteclub/huge.bin").path), try ContentHasher.hash(fileAt: file.path))
        let received = chaotic.server.bodyBytesReceived
        print("chaos upload: the server received \(received) body bytes for \(size) (\(String(format: "%.3f", Double(received) / Double(size)))×) in \(chaotic.server.uploadRequests) requests")
        XCTAssertLessThanOrEqual(Double(received), Double(size) * 1.2, "re-sent too much: \(received) bytes for \(size)")
        XCTAssertGreaterThan(chaotic.server.uploadRequests, 1 << 30 / (32 << 20), "chaos did cut some requests")
        await chaotic.close()
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
