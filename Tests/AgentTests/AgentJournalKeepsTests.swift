@testable import Agent
import Foundation
import Remote
import TestSupport
import XCTest

/// What each transfer asked for stays with it in the journal (`--bwlimit`, `--streams`), and
/// one journal has one agent, whichever shell (runtime folder) a client runs in.
final class AgentJournalKeepsTests: XCTestCase {
    var fixture: AgentFixture!
    var club: RelayedClub!

    override func setUpWithError() throws {
        fixture = try AgentFixture(idleSeconds: 30)
        club = try RelayedClub(in: fixture, token: "keeps-token")
    }

    override func tearDown() {
        if let club {
            fixture.close(keys: [club.key])
            club.stop()
        }
        club = nil
    }

    /// `kill -9` of the agent mid-upload: the journal holds the transfer's limit, and the new
    /// agent that a plain `transfers --wait` (no `--bwlimit`) starts keeps to it. The 6 MiB
    /// left at 2 MiB/s take about 3 s; unlimited on loopback, a tenth of a second.
    func testARestartedAgentKeepsTheTransfersBandwidthLimit() throws {
        let (file, bytes) = try fixture.randomFile("big.bin", megabytes: 10)
        let put = try fixture.launch(["put", "--agent", "--bwlimit", "2M", file.path, "/byteclub/big.bin"] + club.flags)
        XCTAssertTrue(try fixture.eventually("the first chunk in the journal", timeout: 30) {
            try fixture.journal(key: club.key).transfers.first?.session.map { $0.offset >= 4 << 20 } ?? false
        })
        XCTAssertEqual(try fixture.journal(key: club.key).transfers.first?.bandwidthLimit, 2 << 20)
        let first = try XCTUnwrap(fixture.agentPID(key: club.key))
        kill(put.processIdentifier, SIGKILL)
        kill(first, SIGKILL)
        put.waitUntilExit()
        XCTAssertTrue(fixture.eventually("the agent gone") { kill(first, 0) != 0 })
        let sent = club.relay.bytesFromClient

        let started = Date()
        let waited = try fixture.run(["transfers", "--wait"] + club.flags)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(waited.status, 0, waited.output)
        XCTAssertEqual(try Data(contentsOf: club.root.appendingPathComponent("byteclub/big.bin")), bytes)
        let rest = Double(club.relay.bytesFromClient - sent)
        XCTAssertGreaterThan(rest, 2 * 1_048_576, "most of the file was left for the new agent")
        XCTAssertGreaterThan(elapsed, rest / Double(2 << 20) * 0.7, "\(Int(rest)) bytes in \(elapsed) s: faster than 2 MiB/s")
        let log = try club.logText()
        XCTAssertEqual(try club.sessionStarts(), 1, log)
    }

    /// Issue 43: a `put --agent` whose agent stopped after taking the file said "the agent hung
    /// up" and exited 1, though a restarted agent then finished the upload. A stop mid-transfer
    /// (`kill -9` here) is followed to the agent started again, and the command says what truly
    /// happened: done, exit 0, the file whole on the server. (A stop before the agent answered the
    /// submit is said as unknown, exit 75, pointing at `byteclub transfers`.)
    func testPutAgentFollowsItsTransferAcrossAnAgentRestart() throws {
        let (file, bytes) = try fixture.randomFile("nine.bin", megabytes: 9)
        let output = fixture.home.appendingPathComponent("put-out")
        let put = try fixture.launch(["put", "--agent", "--bwlimit", "3M", file.path, "/byteclub/nine.bin"] + club.flags, stdout: output)
        XCTAssertTrue(try fixture.eventually("the transfer in the agent's journal", timeout: 30) {
            try fixture.journal(key: club.key).transfers.first?.session.map { $0.offset >= 4 << 20 } ?? false
        })
        let first = try XCTUnwrap(fixture.agentPID(key: club.key))
        kill(first, SIGKILL)
        let deadline = Date().addingTimeInterval(60)
        while put.isRunning && Date() < deadline { usleep(20_000) }
        XCTAssertFalse(put.isRunning, "put --agent ended")
        if put.isRunning { put.terminate() }
        put.waitUntilExit()
        let said = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        XCTAssertEqual(put.terminationStatus, 0, said)
        XCTAssertFalse(said.contains("hung up"), said)
        XCTAssertEqual(try Data(contentsOf: club.root.appendingPathComponent("byteclub/nine.bin")), bytes)
    }

    /// Issue 43: a background transfer could be cancelled from the app's Transfers panel only.
    /// `transfers` now starts each line with the id, and `transfers --cancel ID` (or the start
    /// of it) cancels that one from the shell; the command that handed it over says so.
    func testTransfersCancelStopsOneFromTheShell() throws {
        let (file, _) = try fixture.randomFile("slow.bin", megabytes: 9)
        let put = try fixture.launch(["put", "--agent", "--bwlimit", "1M", file.path, "/byteclub/slow.bin"] + club.flags)
        defer { if put.isRunning { put.terminate() } }
        XCTAssertTrue(try fixture.eventually("the transfer in the agent's journal", timeout: 30) {
            try !fixture.journal(key: club.key).transfers.isEmpty
        })
        let id = try XCTUnwrap(try fixture.journal(key: club.key).transfers.first?.id)
        let listed = try fixture.run(["transfers"] + club.flags)
        XCTAssertEqual(listed.status, 0, listed.output)
        XCTAssertTrue(listed.output.hasPrefix(String(id.prefix(8)) + "  upload"), listed.output)

        let cancelled = try fixture.run(["transfers", "--cancel", String(id.prefix(6))] + club.flags)
        XCTAssertEqual(cancelled.status, 0, cancelled.output)
        XCTAssertTrue(cancelled.output.contains("cancelled"), cancelled.output)
        XCTAssertEqual(try fixture.journal(key: club.key).transfers.first { $0.id == id }?.state, .cancelled)
        XCTAssertTrue(fixture.eventually("put --agent ended") { !put.isRunning })
        XCTAssertNotEqual(put.terminationStatus, 0, "the upload did not finish")
        XCTAssertFalse(FileManager.default.fileExists(atPath: club.root.appendingPathComponent("byteclub/slow.bin").path))

        let unknown = try fixture.run(["transfers", "--cancel", "zzzz"] + club.flags)
        XCTAssertEqual(unknown.status, 3, unknown.output)
        let again = try fixture.run(["transfers", "--cancel", id] + club.flags)
        XCTAssertEqual(again.status, 1, "it had finished already: " + again.output)
    }

    /// An agent already running (started without a limit) still limits `put --agent --bwlimit`
    /// to its own rate, and `get --agent --bwlimit` too.
    func testPutAndGetAgentKeepTheirBandwidthLimitWithAnAgentRunning() throws {
        let listed = try fixture.run(["transfers"] + club.flags)
        XCTAssertEqual(listed.status, 0, listed.output)
        XCTAssertNotNil(try fixture.agentPID(key: club.key), "an agent runs, with no limit of its own")
        let (file, bytes) = try fixture.randomFile("six.bin", megabytes: 6)

        var started = Date()
        let put = try fixture.run(["put", "--agent", "--bwlimit", "3M", file.path, "/byteclub/six.bin"] + club.flags)
        XCTAssertEqual(put.status, 0, put.output)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 1.4, "6 MiB at 3 MiB/s take 2 s")

        let target = fixture.home.appendingPathComponent("down/six.bin")
        started = Date()
        let get = try fixture.run(["get", "--agent", "--bwlimit", "3M", "/byteclub/six.bin", target.path] + club.flags)
        XCTAssertEqual(get.status, 0, get.output)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 1.4, "6 MiB at 3 MiB/s take 2 s")
        XCTAssertEqual(try Data(contentsOf: target), bytes)
        XCTAssertEqual(try fixture.journal(key: club.key).transfers.map(\.bandwidthLimit), [3 << 20, 3 << 20])
    }

    /// `put --agent --streams 4` of a 40 MiB file: the agent sends it over four connections at
    /// once (a concurrent upload session), as `put --streams 4` does, and journals the streams.
    func testAgentUploadsUseTheirStreams() throws {
        let (file, bytes) = try fixture.randomFile("forty.bin", megabytes: 40)
        let put = try fixture.run(["put", "--agent", "--streams", "4", file.path, "/byteclub/forty.bin"] + club.flags, timeout: 60)
        XCTAssertEqual(put.status, 0, put.output)
        XCTAssertEqual(try Data(contentsOf: club.root.appendingPathComponent("byteclub/forty.bin")), bytes)
        XCTAssertGreaterThanOrEqual(club.relay.peakConnections, 3, "the blocks went over several connections at once")
        XCTAssertEqual(try fixture.journal(key: club.key).transfers.first?.streams, 4)
        XCTAssertEqual(try club.sessionStarts(), 1)
    }

    /// Two shells with different `XDG_RUNTIME_DIR`s share one journal, so they share one agent:
    /// the second shell's client finds the first's agent (its lock and socket record sit beside
    /// the journal) rather than starting another over the same journal, sees its paused upload,
    /// and `clear` there leaves it alone.
    func testTwoRuntimeFoldersShareOneAgent() throws {
        let otherRuntime = fixture.home.appendingPathComponent("run-2")
        try FileManager.default.createDirectory(at: otherRuntime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var other = fixture.environment
        other["XDG_RUNTIME_DIR"] = otherRuntime.path
        let otherFixture = AgentFixture(sharing: fixture, environment: other)
        let remote = AgentRemote(kind: .club, key: club.key, url: club.url, secret: club.token)

        // Shell 2 first: an agent with nothing to do.
        let listed = try otherFixture.run(["transfers"] + club.flags)
        XCTAssertEqual(listed.status, 0, listed.output)
        let agent = try XCTUnwrap(fixture.agentPID(key: club.key))

        // Shell 1: an upload, paused.
        let (file, _) = try fixture.randomFile("paused.bin", megabytes: 1)
        let client = try AgentClient.connect(place: try fixture.place(key: club.key), remote: remote, executable: fixture.executable.path)
        XCTAssertEqual(client.agentPID, agent, "shell 1 reached the agent shell 2 started")
        let submitted = try XCTUnwrap(client.request(AgentRequest(op: .submit, transfer: AgentTransfer(
            id: "", kind: .upload, local: file.path, remote: "/byteclub/paused.bin", bandwidthLimit: 1024))).transfer)
        try client.request(AgentRequest(op: .pause, id: submitted.id))
        client.connection.close()

        // Shell 2 sees it, and its `clear` keeps it.
        let seen = try otherFixture.run(["transfers", "--json"] + club.flags)
        XCTAssertEqual(seen.status, 0, seen.output)
        XCTAssertEqual(try AgentLines.decode([AgentTransfer].self, from: Data(seen.output.utf8)).map(\.state), [.paused], seen.output)
        let clearing = try AgentClient.connect(place: try otherFixture.place(key: club.key), remote: remote, executable: fixture.executable.path)
        try clearing.request(AgentRequest(op: .clear))
        clearing.connection.close()
        XCTAssertEqual(try fixture.journal(key: club.key).transfers.map(\.state), [.paused])
        XCTAssertEqual(try fixture.agentPID(key: club.key), agent, "still the one agent")
        XCTAssertFalse(FileManager.default.fileExists(atPath: try fixture.place(key: club.key).socket.path),
                       "no agent listens in shell 1's runtime folder")
    }
}
