import DropboxWire
import Foundation
import Remote
import Synchronization
import TestSupport
import XCTest

/// Large files over several connections against a real `byteclub serve`, through a relay that
/// counts the connections open at once and cuts one of them part-way.
final class ParallelTransferTests: XCTestCase {
    var base: URL!
    var server: ServeProcess!
    var relay: CuttingRelay!
    let token = "streams-token-\(UUID().uuidString)"

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("parallel-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base.appendingPathComponent("club/byteclub"), withIntermediateDirectories: true)
        server = try ServeProcess(root: base.appendingPathComponent("club"), token: token)
        let port = try XCTUnwrap(server.url.split(separator: ":").last.flatMap { Int($0) })
        relay = try CuttingRelay(upstreamPort: port)
    }

    override func tearDown() async throws {
        relay?.stop()
        server = nil
        if let base { try? FileManager.default.removeItem(at: base) }
    }

    func store() -> DropboxStore {
        var retry = RetryPolicy()
        retry.baseDelay = 0.01
        retry.maxDelay = 0.05
        return DropboxStore(displayName: "streams", endpoints: .club(relay.url), tokens: StaticToken(token),
                            connection: ConnectionOptions(idleTimeout: 20), retry: retry)
    }

    /// `megabytes` of random bytes (read from the kernel, so made in a blink), at `url`.
    func randomFile(_ url: URL, megabytes: Int) throws {
        let source = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? source.close() }
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        let sink = try FileHandle(forWritingTo: url)
        defer { try? sink.close() }
        for _ in 0..<megabytes {
            try sink.write(contentsOf: try XCTUnwrap(source.readData(ofLength: 1 << 20)))
        }
    }

    func testA100MiBUploadOverFourStreamsSurvivesACutConnection() async throws {
        let local = base.appendingPathComponent("big.bin")
        try randomFile(local, megabytes: 100)
        // Mid-way through some stream's second block (blocks are 8 MiB at this size).
        relay.cutOneConnection(after: 10 << 20, .fromClient)
        let reported = Mutex<Int64>(0)
        let entry = try await store().upload(file: local, to: "/byteclub/big.bin", mode: .add, autorename: false, progress: { done, _ in
            reported.withLock { $0 = max($0, done) }
        }, streams: 4)
        XCTAssertEqual(relay.cuts, 1, "one connection was cut mid-request")
        XCTAssertGreaterThanOrEqual(relay.peakConnections, 4, "four streams were open at once")
        let hash = try ContentHasher.hash(fileAt: local.path)
        XCTAssertEqual(entry.contentHash, hash)
        XCTAssertEqual(entry.size, 100 << 20)
        XCTAssertEqual(reported.withLock { $0 }, 100 << 20, "progress summed over the streams reached the whole file")
        let landed = base.appendingPathComponent("club/byteclub/big.bin")
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: landed.path, andPath: local.path), "the file arrived byte-identical")
        let answered = try await store().metadata("/byteclub/big.bin")
        XCTAssertEqual(answered.contentHash, hash, "the server's metadata says the same content hash")
    }

    func testALargeDownloadUsesRangesOverSeveralStreams() async throws {
        let remote = base.appendingPathComponent("club/byteclub/movie.bin")
        try randomFile(remote, megabytes: 40)
        let target = base.appendingPathComponent("movie.bin")
        // A connection cut part-way through an answer: its range is asked for again.
        relay.cutOneConnection(after: 5 << 20, .fromServer)
        let entry = try await store().download("/byteclub/movie.bin", to: target, resumeData: nil, progress: nil, onResumeData: nil, streams: 4)
        XCTAssertEqual(entry.size, 40 << 20)
        XCTAssertEqual(relay.cuts, 1)
        XCTAssertGreaterThanOrEqual(relay.peakConnections, 4, "four ranges were fetched at once")
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: target.path, andPath: remote.path), "the download is byte-identical")
    }

    func testAWebDAVDownloadUsesRangesWhereTheServerSaysSo() async throws {
        let webdav = try RcloneWebDAV()
        defer { webdav.remove() }
        try FileManager.default.createDirectory(at: webdav.file("byteclub"), withIntermediateDirectories: true)
        try randomFile(webdav.file("byteclub/pano.bin"), megabytes: 40)
        let front = try CuttingRelay(upstreamPort: webdav.port)
        defer { front.stop() }
        let store = try await WebDAVStore.connect(url: URL(string: "http://127.0.0.1:\(front.port)/")!, user: webdav.user, password: webdav.password)
        let target = base.appendingPathComponent("pano.bin")
        let entry = try await store.download("/byteclub/pano.bin", to: target, resumeData: nil, progress: nil, onResumeData: nil, streams: 4)
        XCTAssertEqual(entry.size, 40 << 20)
        XCTAssertGreaterThanOrEqual(front.peakConnections, 4, "rclone says Accept-Ranges: four ranges were fetched at once")
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: target.path, andPath: webdav.file("byteclub/pano.bin").path))
    }
}
