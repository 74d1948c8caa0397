@testable import Agent
import Foundation
import Remote
import Synchronization
import TestSupport
import XCTest

/// What another process began, the agent continues: an upload session at the server's offset,
/// a partial download at its size (the app quitting to the background hands both over). A real
/// `byteclub serve` behind a relay that counts the request bytes it passes on.
final class AgentHandOverTests: XCTestCase {
    var fixture: AgentFixture!
    var club: RelayedClub!
    let token = "hand-over-token"

    override func setUpWithError() throws {
        fixture = try AgentFixture(idleSeconds: 30)
        club = try RelayedClub(in: fixture, token: token)
    }

    override func tearDown() {
        if let club {
            fixture.close(keys: [club.key])
            club.stop()
        }
        club = nil
    }

    /// The store another process (the app) moves bytes with: 4 MiB chunks, 4 MiB a second.
    func store() -> DropboxStore {
        DropboxStore(displayName: "app", endpoints: .club(club.relay.url), tokens: StaticToken(token),
                     connection: ConnectionOptions(idleTimeout: 20, bandwidthLimit: 4 << 20), singleUploadLimit: 4 << 20, chunkSize: 4 << 20)
    }

    /// Submits `transfer` to the club's agent, started first by the CLI in the fixture's
    /// environment (a client started here would start it in the test's own).
    func submit(_ transfer: AgentTransfer) throws {
        let started = try fixture.run(["transfers"] + club.flags)
        XCTAssertEqual(started.status, 0, started.output)
        let remote = AgentRemote(kind: .club, key: club.key, url: club.url, secret: token)
        let client = try AgentClient.connect(place: try fixture.place(key: club.key), remote: remote, executable: fixture.executable.path)
        try client.request(AgentRequest(op: .submit, transfer: transfer))
        client.connection.close()
    }

    /// An upload session part-way, its last chunk cut short (the server keeps what arrived of
    /// it), handed to the agent with its last acknowledged mark: the agent asks the server's
    /// offset and sends only the rest. One `upload_session/start` in all, and the bytes that
    /// reached the server over both processes are the file's, once, plus request headers.
    func testAHandedOverUploadSessionGoesOnAtTheServersOffset() async throws {
        let (file, bytes) = try fixture.randomFile("big.bin", megabytes: 12)
        let marks = Mutex<[UploadSessionMark]>([])
        let store = store()
        let upload = Task {
            try await store.upload(file: file, to: "/byteclub/big.bin", mode: .add, autorename: true, resuming: nil, streams: nil,
                                   onSession: { mark in marks.withLock { $0.append(mark) } }, progress: nil)
        }
        // Past the first acknowledged chunk, and 2 MiB into the next one.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !(marks.withLock { $0.last?.offset ?? 0 } >= 4 << 20 && club.relay.bytesFromClient >= 6 << 20) {
            try await Task.sleep(for: .milliseconds(20))
        }
        upload.cancel()
        _ = await upload.result
        let mark = try XCTUnwrap(marks.withLock { $0.last })
        XCTAssertEqual(mark.offset, 4 << 20, "the chunk in flight was not acknowledged")
        XCTAssertGreaterThanOrEqual(club.relay.bytesFromClient, 6 << 20)

        try submit(AgentTransfer(id: "", kind: .upload, local: file.path, remote: "/byteclub/big.bin", autorename: true, session: mark))
        let waited = try fixture.run(["transfers", "--wait"] + club.flags)
        XCTAssertEqual(waited.status, 0, waited.output)
        XCTAssertEqual(try Data(contentsOf: club.root.appendingPathComponent("byteclub/big.bin")), bytes)

        let log = try club.logText()
        XCTAssertEqual(try club.sessionStarts(), 1, log)
        XCTAssertFalse(log.contains("/2/files/upload 200"), log)
        // Headers are a few hundred bytes a request; a chunk sent again would be megabytes.
        XCTAssertLessThan(club.relay.bytesFromClient, bytes.count + (256 << 10),
                          "\(club.relay.bytesFromClient - bytes.count) bytes more than the file went to the server")
    }

    /// A download part-way, its resume data handed to the agent: the agent's one request asks
    /// for the rest only, from the partial file's size, and the file lands whole.
    func testAHandedOverDownloadGoesOnAtItsPartialFile() async throws {
        let (source, bytes) = try fixture.randomFile("source.bin", megabytes: 12)
        let put = try fixture.run(["put", source.path, "/byteclub/big.bin"] + club.flags)
        XCTAssertEqual(put.status, 0, put.output)

        let resume = Mutex<Data?>(nil)
        let done = Mutex<Int64>(0)
        let store = store()
        let part = fixture.home.appendingPathComponent("down/.big.bin.part")
        try FileManager.default.createDirectory(at: part.deletingLastPathComponent(), withIntermediateDirectories: true)
        let download = Task {
            try await store.download("/byteclub/big.bin", to: part, resumeData: nil, progress: { got, _ in done.withLock { $0 = got } },
                                     onResumeData: { data in resume.withLock { $0 = data } })
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, done.withLock({ $0 }) < 3 << 20 { try await Task.sleep(for: .milliseconds(20)) }
        download.cancel()
        _ = await download.result
        let data = try XCTUnwrap(resume.withLock { $0 }, "the cancelled download left resume data")
        let partial = try XCTUnwrap(DownloadResume.partialPath(of: data))
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: partial)[.size] as? NSNumber).intValue
        XCTAssertGreaterThanOrEqual(size, 3 << 20)

        let target = fixture.home.appendingPathComponent("down/big.bin")
        try submit(AgentTransfer(id: "", kind: .download, local: target.path, remote: "/byteclub/big.bin", resumeData: data))
        let waited = try fixture.run(["transfers", "--wait"] + club.flags)
        XCTAssertEqual(waited.status, 0, waited.output)
        XCTAssertEqual(try Data(contentsOf: target), bytes)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial), "the partial file was moved into place")

        let log = try club.logText()
        let downloads = log.split(separator: "\n").filter { $0.contains("/2/files/download") }
        XCTAssertEqual(downloads.count, 2, log)
        let resumedAt = downloads.last.flatMap { line in
            line.range(of: "range=bytes=").map { Int(line[$0.upperBound...].prefix { $0.isNumber }) ?? 0 }
        }
        XCTAssertEqual(resumedAt, size, log)
    }
}
