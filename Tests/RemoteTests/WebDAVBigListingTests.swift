import Foundation
import Hummingbird
@testable import Remote
import Synchronization
import TestSupport
import Transfer
import XCTest

/// A WebDAV server on loopback whose folder `/club/` answers `PROPFIND Depth: 1` with a
/// generated multistatus: as many entries as a test asks for, a body that is not XML, or hrefs
/// on another host. `Depth: 0` (the CLI's password check) answers the folder alone.
final class GeneratedMultistatusServer: Sendable {
    enum Answer: Sendable {
        /// The folder and `count` empty files, `note-000001.txt` …, as rclone writes them.
        case files(Int)
        /// A 207 whose body breaks off inside a response: not XML.
        case broken
        /// The folder and one file named by a whole URL on another host.
        case foreignHost
        /// `.files(total)`, its first `first` files sent at once and the rest held until the
        /// test opens ``Shared/gate`` (or a minute has passed), as a slow server sends them.
        case held(first: Int, total: Int)
        /// `200 OK` with a web page, as a server that is no WebDAV server answers.
        case webPage
    }

    final class Shared: Sendable {
        let answer: Mutex<Answer>
        let listings = Mutex(0)
        /// Opened by the test: a held answer sends the rest. Whether the deadline opened it.
        let gate = Mutex<(open: Bool, byDeadline: Bool)>((false, false))
        init(_ answer: Answer) { self.answer = Mutex(answer) }
    }

    private let shared: Shared
    let url: URL
    private let task: GracefulServer

    /// How many `Depth: 1` listings were asked for.
    var listings: Int { shared.listings.withLock { $0 } }

    init(_ answer: Answer) async throws {
        let shared = Shared(answer)
        self.shared = shared
        let router = Router()
        router.on("/club", method: HTTPRequest.Method("OPTIONS")!) { _, _ -> Response in
            Response(status: .ok)
        }
        router.on("/club", method: HTTPRequest.Method("PROPFIND")!) { request, _ -> Response in
            let depth = request.headers.first { $0.name.canonicalName == "depth" }?.value ?? "infinity"
            var body = Self.head
            if case .webPage = shared.answer.withLock({ $0 }) {
                shared.listings.withLock { $0 += 1 }
                return Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<html>hello</html>")))
            }
            if depth == "1", case .held(let first, let total) = shared.answer.withLock({ $0 }) {
                shared.listings.withLock { $0 += 1 }
                return Response(status: .init(code: 207), headers: [.contentType: "application/xml; charset=utf-8"],
                                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: Self.head + Self.files(1...first)))
                    let deadline = Date().addingTimeInterval(60)
                    while !shared.gate.withLock({ $0.open }) {
                        if Date() > deadline { shared.gate.withLock { $0 = (true, true) } }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    var next = first + 1
                    while next <= total {
                        try await writer.write(ByteBuffer(string: Self.files(next...min(total, next + 999))))
                        next += 1000
                    }
                    try await writer.write(ByteBuffer(string: "</D:multistatus>\n"))
                    try await writer.finish(nil)
                })
            }
            if depth == "1" {
                shared.listings.withLock { $0 += 1 }
                body += Self.children(shared.answer.withLock { $0 })
            }
            body += "</D:multistatus>\n"
            return Response(status: .init(code: 207), headers: [.contentType: "application/xml; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        let (base, task) = await runOnLoopback(router, label: "generated-multistatus")
        self.task = task
        url = URL(string: base.absoluteString + "/club/")!
    }

    func stop() { task.stop() }

    /// Lets a held answer send the rest.
    func openGate() { shared.gate.withLock { $0.open = true } }
    /// Whether the gate was opened by its deadline rather than the test.
    var gateOpenedByDeadline: Bool { shared.gate.withLock { $0.byDeadline } }

    static let head = """
        <?xml version="1.0" encoding="UTF-8"?>
        <D:multistatus xmlns:D="DAV:"><D:response><D:href>/club/</D:href><D:propstat><D:prop>\
        <D:resourcetype><D:collection/></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>

        """

    static func file(_ href: String, _ index: Int) -> String {
        "<D:response><D:href>\(href)</D:href><D:propstat><D:prop><D:resourcetype></D:resourcetype>"
            + "<D:getcontentlength>0</D:getcontentlength><D:getlastmodified>Mon, 23 Nov 2026 10:00:00 GMT</D:getlastmodified>"
            + "<D:getetag>\"1879f0c2d4a0\(index)\"</D:getetag></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>\n"
    }

    /// Files `note-000001.txt` … of `range`, as `.files` lists them.
    static func files(_ range: ClosedRange<Int>) -> String {
        var text = ""
        text.reserveCapacity(range.count * 360)
        for index in range {
            let name = "note-" + String(repeating: "0", count: max(0, 6 - String(index).count)) + String(index) + ".txt"
            text += file("/club/" + name, index)
        }
        return text
    }

    static func children(_ answer: Answer) -> String {
        switch answer {
        case .held(_, let count):
            return files(1...max(1, count))
        case .webPage:
            return ""
        case .files(let count):
            var text = ""
            text.reserveCapacity(count * 360)
            for index in 1...max(1, count) {
                let name = "note-" + String(repeating: "0", count: max(0, 6 - String(index).count)) + String(index) + ".txt"
                text += file("/club/" + name, index)
            }
            return text
        case .broken:
            return "<D:response><D:href>/club/a.txt</D:href><D:propstat><D:prop><D:getetag>&bogus;</D:prop>"
        case .foreignHost:
            return file("http://elsewhere.example/club/stolen.txt", 1)
        }
    }
}

/// Listings of any length (issue 31): a 20 MB multistatus used to fail with NSXMLParserErrorDomain
/// error 1 after 8 tries and 35 s, and a 200 MB one took 973 MB. Now the answer is spooled to
/// disk and parsed as a stream: 100,000 entries list through the built `byteclub ls` within
/// 150 MiB of peak RSS; an answer that is not XML fails at once, asked once, as a bad answer
/// (exit 6); an href on another host is refused as a path outside the folder is; the entry
/// limit still stops a listing.
final class WebDAVBigListingTests: XCTestCase {
    var cli: CLI!
    var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-biglisting-\(UUID().uuidString)")
        let isolated = try CLI.isolated(in: base)
        var environment = isolated.environment
        environment["BYTECLUB_WEBDAV_PASSWORD"] = "pw"
        cli = CLI(environment: environment, directory: isolated.directory)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: base)
    }

    func testAHundredThousandEntryListingPrintsEveryEntryWithin150MiB() async throws {
        let server = try await GeneratedMultistatusServer(.files(100_000))
        defer { server.stop() }
        let run = try cli.runMeasuringPeak(["ls", "/", "--webdav", server.url.absoluteString, "--user", "ray"], timeout: 300)
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 100_000, run.stderr)
        XCTAssertTrue(lines.first?.hasSuffix("note-000001.txt") ?? false, String(lines.first ?? ""))
        XCTAssertTrue(lines.last?.hasSuffix("note-100000.txt") ?? false, String(lines.last ?? ""))
        XCTAssertEqual(server.listings, 1, "one PROPFIND")
        let mib = Double(run.peakBytes) / 1_048_576
        print("webdav ls of 100,000 entries: peak RSS \(String(format: "%.1f", mib)) MiB in \(String(format: "%.1f", run.seconds)) s")
        XCTAssertGreaterThan(run.peakBytes, 0, "the peak was read")
        XCTAssertLessThanOrEqual(mib, 150, "peak RSS of byteclub ls on 100,000 entries")
    }

    func testAnAnswerThatIsNotXMLFailsAtOnceAsABadAnswerAskedOnce() async throws {
        let server = try await GeneratedMultistatusServer(.broken)
        defer { server.stop() }
        let started = Date()
        let ls = try cli.run(["ls", "/", "--webdav", server.url.absoluteString, "--user", "ray"])
        XCTAssertEqual(ls.status, 6, "a bad server answer: \(ls.stderr)")
        XCTAssertTrue(ls.stderr.contains("not a WebDAV multistatus"), ls.stderr)
        XCTAssertTrue(ls.stderr.contains("XML error"), "says what the parser found: \(ls.stderr)")
        XCTAssertEqual(server.listings, 1, "a parse error is not a network failure: not asked again")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "no back-off between tries")
    }

    func testAnHrefOnAnotherHostIsRefusedLikeAPathOutsideTheFolder() async throws {
        let server = try await GeneratedMultistatusServer(.foreignHost)
        defer { server.stop() }
        let ls = try cli.run(["ls", "/", "--webdav", server.url.absoluteString, "--user", "ray"])
        XCTAssertEqual(ls.status, 6, ls.stderr)
        XCTAssertTrue(ls.stderr.contains("http://elsewhere.example/club/stolen.txt, which is not inside it; refused"), ls.stderr)
        XCTAssertEqual(ls.stdout, "", "nothing of a refused answer is printed")
    }

    func testTheEntryLimitStillStopsALongListing() async throws {
        let server = try await GeneratedMultistatusServer(.files(5_000))
        defer { server.stop() }
        let store = WebDAVStore(root: server.url, configuration: .ephemeral, listingLimits: ListingLimits(maxEntries: 1_000))
        do {
            _ = try await store.list("")
            XCTFail("a listing past the limit must stop")
        } catch {
            XCTAssertEqual(error, .server(status: 0, detail: "the listing of / has more than 1000 entries; stopped"))
        }
        let whole = try await WebDAVStore(root: server.url, configuration: .ephemeral).list("")
        XCTAssertEqual(whole.count, 5_000)
        XCTAssertEqual(Set(whole.map(\.path)).count, 5_000)
    }

    /// The listing is parsed while it arrives (issue 56): a server sends the first 5,000 of
    /// 50,000 entries and holds the rest until the client has told its first page; a client
    /// that waited for the whole answer would wait for the server's minute and fail here.
    func testAListingArrivingSlowlyTellsItsFirstEntriesBeforeTheLastArrive() async throws {
        let server = try await GeneratedMultistatusServer(.held(first: 5_000, total: 50_000))
        defer { server.stop() }
        let store = WebDAVStore(root: server.url, configuration: .ephemeral)
        let told = Mutex<[ListingProgress]>([])
        let started = Date()
        let entries = try await store.listAll("", recursive: true) { progress in
            told.withLock { $0.append(progress) }
            if progress.firstPage != nil { server.openGate() }
        }
        let progress = told.withLock { $0 }
        XCTAssertFalse(server.gateOpenedByDeadline, "the first page was told before the server sent the rest")
        let first = try XCTUnwrap(progress.first?.firstPage, "the first report carries the first page")
        XCTAssertEqual(first.count, ListingReport.firstPage)
        XCTAssertEqual(first.first?.name, "note-000001.txt", "in the server's order")
        XCTAssertEqual(progress.filter { $0.firstPage != nil }.count, 1, "one first page")
        XCTAssertEqual(entries.count, 50_000, "then the whole listing")
        XCTAssertEqual(entries.last?.name, "note-050000.txt")
        XCTAssertLessThan(Date().timeIntervalSince(started), 50)
        XCTAssertEqual(server.listings, 1, "one PROPFIND")
    }

    /// On WebDAV a change cursor is a look at the whole folder (issue 56: on a 100,000-note
    /// folder the app's first frame waited for two whole PROPFINDs): the listing right after a
    /// cursor is the cursor's look, and the cursor right after a listing is the listing's (the
    /// app lists first there), each once. Another folder's look, or a third call, asks the server;
    /// so does a listing after a listing's cursor, whose entries were handed over and not kept.
    func testACursorAndTheListingAtItAreOneLook() async throws {
        let server = try await GeneratedMultistatusServer(.files(3_000))
        defer { server.stop() }
        let store = WebDAVStore(root: server.url, configuration: .ephemeral)
        XCTAssertTrue(store.cursorIsAWholeListing)
        _ = try await store.latestCursor("", recursive: true)
        XCTAssertEqual(server.listings, 1)
        let listed = try await store.listAll("", recursive: true)
        XCTAssertEqual(server.listings, 1, "the cursor's look stands for the listing that follows it")
        XCTAssertEqual(listed.count, 3_000)
        XCTAssertEqual(listed.first?.name, "note-000001.txt", "in path order, as a listing is")
        let again = try await store.listAll("", recursive: true)
        XCTAssertEqual(server.listings, 2, "served once: the next listing asks the server")
        XCTAssertEqual(again, listed)
        let cursor = try await store.latestCursor("", recursive: true)
        XCTAssertEqual(server.listings, 2, "the listing's look stands for the cursor that follows it")
        let changes = try await store.listChanges(since: cursor)
        XCTAssertTrue(changes.changes.isEmpty, "the cursor is at the listing")
        XCTAssertEqual(server.listings, 3, "a change list looks again")
        _ = try await store.listAll("", recursive: true)
        XCTAssertEqual(server.listings, 4, "a listing's entries are not kept once handed over")
        _ = try await store.listAll("", recursive: false)
        XCTAssertEqual(server.listings, 5, "a look at the folder alone is another look")
    }

    /// A server that answers a listing with a web page (200, not 207) is told as that, once:
    /// not as the cancelled request the client turned down.
    func testAWebPageForAListingIsSaidAsThatAndAskedOnce() async throws {
        let server = try await GeneratedMultistatusServer(.webPage)
        defer { server.stop() }
        let store = WebDAVStore(root: server.url, configuration: .ephemeral)
        do {
            _ = try await store.list("")
            XCTFail("a web page is no listing")
        } catch {
            XCTAssertEqual(error, .server(status: 200, detail: "PROPFIND answered 200, not a multistatus"))
        }
        XCTAssertEqual(server.listings, 1)
    }

    /// A client that stops reading (an href outside the folder) stops the request and the
    /// parser's thread: the next listing of the same store works.
    func testARefusedEntryStopsTheArrivingAnswer() async throws {
        let server = try await GeneratedMultistatusServer(.held(first: 10, total: 20_000))
        defer { server.stop() }
        let store = WebDAVStore(root: server.url, configuration: .ephemeral, listingLimits: ListingLimits(maxEntries: 5))
        do {
            _ = try await store.list("")
            XCTFail("a listing past the limit must stop")
        } catch {
            XCTAssertEqual(error, .server(status: 0, detail: "the listing of / has more than 5 entries; stopped"))
        }
        XCTAssertFalse(server.gateOpenedByDeadline)
        server.openGate()
        let whole = try await WebDAVStore(root: server.url, configuration: .ephemeral).list("")
        XCTAssertEqual(whole.count, 20_000)
    }

    /// The parser alone, on answers in memory past libxml2's 10,000,000-byte lookup limit,
    /// which `XMLParser(data:)` hit (error 1) and a stream does not.
    func testTheParserReadsAnAnswerPastTenMillionBytes() throws {
        let body = GeneratedMultistatusServer.head + GeneratedMultistatusServer.children(.files(40_000)) + "</D:multistatus>\n"
        XCTAssertGreaterThan(body.utf8.count, 10_000_000)
        let resources = try WebDAVMultistatus.parse(Data(body.utf8))
        XCTAssertEqual(resources.count, 40_001)
        XCTAssertEqual(resources.last?.href, "/club/note-040000.txt")
        XCTAssertEqual(resources.last?.etag, "\"1879f0c2d4a040000\"")
    }
}

extension CLI {
    struct MeasuredRun {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The child's peak RSS (VmHWM), read from /proc every 2 ms while it ran.
        var peakBytes: Int64
        var seconds: Double
    }

    /// Runs `arguments` to the end like ``run(_:timeout:)``, reading the process's own high-water
    /// mark of resident memory (`VmHWM`, which only grows) until it exits.
    func runMeasuringPeak(_ arguments: [String], timeout: TimeInterval) throws -> MeasuredRun {
        let started = Date()
        let process = try start(arguments)
        let pid = process.processIdentifier
        let stdoutData = Mutex2<Data>(Data())
        let stderrData = Mutex2<Data>(Data())
        let group = DispatchGroup()
        for (pipe, sink) in [(process.standardOutput as! Pipe, stdoutData), (process.standardError as! Pipe, stderrData)] {
            group.enter()
            DispatchQueue.global().async {
                sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        var peak: Int64 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while group.wait(timeout: .now() + .milliseconds(2)) == .timedOut {
            if let value = Self.highWater(pid) { peak = max(peak, value) }
            if Date() > deadline {
                process.terminate()
                throw CouldNotCheck("byteclub \(arguments) did not finish in \(timeout) s")
            }
        }
        process.waitUntilExit()
        return MeasuredRun(status: process.terminationStatus, stdout: String(decoding: stdoutData.get(), as: UTF8.self),
                           stderr: String(decoding: stderrData.get(), as: UTF8.self), peakBytes: peak,
                           seconds: Date().timeIntervalSince(started))
    }

    /// `VmHWM` of `pid` in bytes; nil once it is gone.
    static func highWater(_ pid: Int32) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int64(line.dropFirst(6).filter(\.isNumber)).map { $0 * 1024 }
        }
        return nil
    }
}
