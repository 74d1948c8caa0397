@testable import Agent
import Foundation
import Remote
import TestSupport
import XCTest

/// The real agent, started on demand by the real CLI, against a real `byteclub serve`.
final class AgentProcessTests: XCTestCase {
    var fixture: AgentFixture!
    var server: ServeProcess!
    var serverLog: URL!
    let token = "agent-test-token"
    var key: String { "club:" + server.url }

    override func setUpWithError() throws {
        // Long enough to outlive a test's pauses; close() kills the agent.
        fixture = try AgentFixture(idleSeconds: 30)
        let club = fixture.home.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: club.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        serverLog = fixture.home.appendingPathComponent("server.log")
        server = try ServeProcess(root: club, token: token, log: serverLog)
    }

    override func tearDown() {
        if server != nil { fixture.close(keys: [key]) }
        server = nil
    }

    var club: [String] { ["--server", server.url, "--token", token] }

    /// `kill -9` of the agent (and of the `put` that started it) with an upload half-way:
    /// `transfers --wait` starts a new agent, which continues the upload session at the
    /// server's offset. The server saw one `upload_session/start` only: nothing went up twice
    /// from offset 0, and the file arrived whole.
    func testAKilledAgentsUploadContinuesAtTheServersOffset() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<(10 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let file = fixture.home.appendingPathComponent("big.bin")
        try bytes.write(to: file)
        let put = try fixture.launch(["put", "--agent", "--bwlimit", "2M", file.path, "/byteclub/big.bin"] + club)
        // The journal marks the first 4 MiB chunk as acknowledged.
        XCTAssertTrue(try fixture.eventually("the first chunk in the journal", timeout: 30) {
            try fixture.journal(key: key).transfers.first?.session.map { $0.offset >= 4 << 20 } ?? false
        })
        let first = try XCTUnwrap(fixture.agentPID(key: key))
        kill(put.processIdentifier, SIGKILL)
        kill(first, SIGKILL)
        put.waitUntilExit()
        XCTAssertTrue(fixture.eventually("the agent gone") { kill(first, 0) != 0 })
        XCTAssertEqual(try fixture.journal(key: key).transfers.first?.state, .running, "the journal still holds the unfinished upload")

        let waited = try fixture.run(["transfers", "--wait"] + club)
        XCTAssertEqual(waited.status, 0, waited.output)
        XCTAssertTrue(waited.output.contains("done"), waited.output)
        XCTAssertNotEqual(try fixture.agentPID(key: key), first, "a new agent took over")
        let landed = fixture.home.appendingPathComponent("club/byteclub/big.bin")
        XCTAssertEqual(try Data(contentsOf: landed), bytes)

        let log = try String(contentsOf: serverLog, encoding: .utf8)
        let starts = log.components(separatedBy: "upload_session/start 200").count - 1
        XCTAssertEqual(starts, 1, log)
        XCTAssertFalse(log.contains("/2/files/upload 200"), log)
        XCTAssertTrue(log.contains("upload_session/finish 200"), log)

        // --json: the stable array, the finished upload in it.
        let listed = try fixture.run(["transfers", "--json"] + club)
        XCTAssertEqual(listed.status, 0, listed.output)
        let transfers = try AgentLines.decode([AgentTransfer].self, from: Data(listed.output.utf8))
        XCTAssertEqual(transfers.map(\.state), [.done])
        XCTAssertEqual(transfers.first?.result, "/byteclub/big.bin")
        XCTAssertEqual(transfers.first?.done, Int64(bytes.count))
    }

    /// `kill -9` of the agent (and of the `get` that started it) with a download part-way: its
    /// bytes are in a partial file the journal names, and the new agent that `transfers --wait`
    /// starts asks the server for the rest only (`Range` from the partial file's size, with
    /// `If-Range`), and the file lands byte-identical.
    func testAKilledAgentsDownloadContinuesAtItsPartialFile() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<(10 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let source = fixture.home.appendingPathComponent("source.bin")
        try bytes.write(to: source)
        let put = try fixture.run(["put", source.path, "/byteclub/big.bin"] + club)
        XCTAssertEqual(put.status, 0, put.output)

        let target = fixture.home.appendingPathComponent("down/big.bin")
        let get = try fixture.launch(["get", "--agent", "--bwlimit", "2M", "/byteclub/big.bin", target.path] + club)
        var partial: String?
        XCTAssertTrue(try fixture.eventually("2 MiB in the journaled partial file", timeout: 30) {
            guard let data = try fixture.journal(key: key).transfers.first?.resumeData,
                  let path = Remote.DownloadResume.partialPath(of: data) else { return false }
            partial = path
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
            return size >= 2 << 20
        })
        let first = try XCTUnwrap(fixture.agentPID(key: key))
        kill(get.processIdentifier, SIGKILL)
        kill(first, SIGKILL)
        get.waitUntilExit()
        XCTAssertTrue(fixture.eventually("the agent gone") { kill(first, 0) != 0 })
        XCTAssertEqual(try fixture.journal(key: key).transfers.first?.state, .running, "the journal still holds the unfinished download")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "nothing at the destination before the download is whole")

        let waited = try fixture.run(["transfers", "--wait"] + club)
        XCTAssertEqual(waited.status, 0, waited.output)
        XCTAssertTrue(waited.output.contains("done"), waited.output)
        XCTAssertNotEqual(try fixture.agentPID(key: key), first, "a new agent took over")
        XCTAssertEqual(try Data(contentsOf: target), bytes)
        if let partial { XCTAssertFalse(FileManager.default.fileExists(atPath: partial), "the partial file was moved into place") }

        // The second request asked for the rest only, from well past the first byte.
        let log = try String(contentsOf: serverLog, encoding: .utf8)
        let downloads = log.split(separator: "\n").filter { $0.contains("/2/files/download") }
        XCTAssertEqual(downloads.count, 2, log)
        let resumedAt = downloads.last.flatMap { line in
            line.range(of: "range=bytes=").map { Int64(line[$0.upperBound...].prefix { $0.isNumber }) ?? 0 }
        }
        XCTAssertGreaterThanOrEqual(resumedAt ?? 0, 2 << 20, log)
    }

    /// A journal with an unfinished upload and no agent (as `kill -9` leaves it): a plain `put`
    /// (no `--agent`) does its own upload as ever, and also starts an agent, saying so once on
    /// stderr; that agent finishes the journaled upload. With the agent alive, `put` says nothing.
    func testAPutWithoutTheAgentStartsOneForAnUnfinishedJournal() throws {
        let journaled = fixture.home.appendingPathComponent("journaled.bin")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: journaled)
        let remote = AgentRemote(kind: .club, key: key, url: server.url)
        let transfer = AgentTransfer(id: "left-by-a-killed-agent", kind: .upload, local: journaled.path, remote: "/byteclub/journaled.bin",
                                     state: .running, total: Int64(bytes.count))
        try AgentJournal(url: try fixture.place(key: key).journal).save(AgentJournal.Contents(remote: remote, transfers: [transfer]))
        XCTAssertNil(try fixture.agentPID(key: key))

        let note = fixture.home.appendingPathComponent("note.txt")
        try Data("a note\n".utf8).write(to: note)
        let put = try fixture.run(["put", note.path, "/byteclub/note.txt"] + club)
        XCTAssertEqual(put.status, 0, put.output)
        XCTAssertEqual(put.output.components(separatedBy: "started the background agent for 1 unfinished transfer").count - 1, 1, put.output)
        XCTAssertTrue(put.output.contains("/byteclub/note.txt"), put.output)
        XCTAssertNotNil(try fixture.agentPID(key: key), "an agent runs")

        let landed = fixture.home.appendingPathComponent("club/byteclub/journaled.bin")
        XCTAssertTrue(try fixture.eventually("the journaled upload done") {
            try fixture.journal(key: key).transfers.first?.state == .done
        })
        XCTAssertEqual(try Data(contentsOf: landed), bytes)

        let again = try fixture.run(["put", note.path, "/byteclub/note 2.txt"] + club)
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertFalse(again.output.contains("background agent"), again.output)
    }

    /// Another user cannot talk to the agent: the socket's folder keeps them out, and with the
    /// folder and socket opened up on purpose the agent itself refuses them (SO_PEERCRED).
    func testAnotherUserIsRefused() throws {
        try Requirement.machine(getuid() == 0, "needs root to run a client as another uid")
        let setpriv = "/usr/bin/setpriv", python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: setpriv), FileManager.default.isExecutableFile(atPath: python) else {
            try Requirement.tool(false, "needs setpriv and python3")
            return
        }
        let listed = try fixture.run(["transfers"] + club)
        XCTAssertEqual(listed.status, 0, listed.output)
        let place = try fixture.place(key: key)
        XCTAssertNotNil(try fixture.agentPID(key: key))
        let mode = (try FileManager.default.attributesOfItem(atPath: place.socket.path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600)

        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(sys.argv[1])
            except OSError as e:
                print("connect failed:", e.strerror); sys.exit(0)
            try:
                s.sendall(b'{"v":1,"op":"list"}\\n')
            except OSError:
                pass  # refused and hung up before the request went
            print(s.makefile().read(), end="")
            """
        func asNobody() throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", script, place.socket.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: output, as: UTF8.self)
        }
        // As set up: the 0700 folder stops them at connect.
        let closed = try asNobody()
        XCTAssertTrue(closed.contains("connect failed: Permission denied"), closed)
        // Opened up by mistake: the agent refuses them by uid, and says nothing of its transfers.
        XCTAssertEqual(chmod(fixture.home.path, 0o755), 0)
        XCTAssertEqual(chmod(place.folder.deletingLastPathComponent().path, 0o755), 0)
        XCTAssertEqual(chmod(place.folder.path, 0o755), 0)
        XCTAssertEqual(chmod(place.socket.path, 0o777), 0)
        let open = try asNobody()
        XCTAssertTrue(open.contains("uid 65534 is refused"), open)
        XCTAssertFalse(open.contains("transfers"), open)
    }
}
