import Foundation
import TestSupport
import XCTest

/// `byteclub serve` as a new user starts it (issue 54, "The server"): a mistyped `--root` is
/// refused rather than made into a new club with a new key (`--create` makes one); a folder of
/// notes with no `byteclub/` folder is served with one line saying where members look and how
/// to move the notes there; a taken port is one sentence, not NIO's `bind(…) (errno: 98)`.
final class ServeStartCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("serve-start-\(UUID().uuidString)")
        let isolated = try CLI.isolated(in: base)
        // The token through the environment, so serve warns of nothing on the command line.
        var environment = isolated.environment
        environment["BYTECLUB_TOKEN"] = "serve-start-token"
        cli = CLI(environment: environment, directory: isolated.directory)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    /// What a `serve` did: its exit status, or nil when it was still serving (it said
    /// "listening on") and was then stopped; and what it printed.
    struct Outcome {
        var status: Int32?
        var stdout: String
        var stderr: String
    }

    /// Runs `byteclub serve --insecure-http --log-level warning` with `arguments` (and
    /// `--port 0` unless they give one) until it exits or says it listens, with a deadline.
    /// `stderrHolding`: once it listens, waits (with a deadline) for that text on stderr too.
    func serve(_ arguments: [String], stderrHolding needle: String? = nil) throws -> Outcome {
        let port = arguments.contains("--port") ? [] : ["--port", "0"]
        let process = try cli.start(["serve", "--insecure-http", "--log-level", "warning"] + port + arguments)
        let out = PipeTail(process.standardOutput as! Pipe)
        let err = PipeTail(process.standardError as! Pipe)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, !out.current.contains("listening on"), Date() < deadline { usleep(5_000) }
        guard process.isRunning else {
            process.waitUntilExit()
            // Its last words, the failure's one line `byteclub: …`, are in the pipe before the
            // exit; the reader may not have them yet.
            _ = err.wait(timeout: 5) { $0.contains("byteclub: ") && $0.hasSuffix("\n") }
            return Outcome(status: process.terminationStatus, stdout: out.current, stderr: err.current)
        }
        if let needle { _ = err.wait(for: needle, timeout: 10) }
        stop(process)
        return Outcome(status: nil, stdout: out.current, stderr: err.current)
    }

    /// SIGTERM (a graceful stop), then SIGKILL if it has not ended within 10 s.
    func stop(_ process: Process) {
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    func testARootThatDoesNotExistIsRefusedUnlessCreateIsGiven() throws {
        // `~/clbu` for `~/club`: nothing there.
        let typo = base.appendingPathComponent("clbu")
        let refused = try serve(["--root", typo.path])
        XCTAssertEqual(refused.status, 3, "not found, per docs/cli.md's table: \(refused.stdout)\(refused.stderr)")
        XCTAssertTrue(refused.stderr.hasPrefix("byteclub: "), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("clbu does not exist; check --root, or add --create to start a new club there"), refused.stderr)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, "one line: \(refused.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: typo.path), "no folder, no club, no new key made")

        // --create makes the new club there.
        let created = try serve(["--root", typo.path, "--create"])
        XCTAssertNil(created.status, "serving: \(created.stderr)")
        XCTAssertTrue(created.stdout.contains("listening on http://127.0.0.1:"), created.stdout + created.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: typo.appendingPathComponent(".byteclub").path), "a new club there")

        // An empty folder that exists is a club to start, as it always was: no flag needed.
        let empty = base.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let fresh = try serve(["--root", empty.path])
        XCTAssertNil(fresh.status, "serving: \(fresh.stderr)")
        XCTAssertTrue(fresh.stdout.contains("listening on http://127.0.0.1:"), fresh.stdout + fresh.stderr)

        // A file where the folder should be: exit 4 (a file where a folder is expected).
        let file = base.appendingPathComponent("club.txt")
        try Data("not a folder\n".utf8).write(to: file)
        let notAFolder = try serve(["--root", file.path])
        XCTAssertEqual(notAFolder.status, 4, notAFolder.stderr)
        XCTAssertTrue(notAFolder.stderr.contains("club.txt is a file, not a folder"), notAFolder.stderr)
    }

    func testNotesAtTheTopOfTheRootAreSaidWithWhereMembersLook() throws {
        // A folder of notes, as a new user would point serve at it: members see ROOT/byteclub/.
        let notes = base.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        try Data("# Plan\n".utf8).write(to: notes.appendingPathComponent("Plan.md"))
        try Data("ideas\n".utf8).write(to: notes.appendingPathComponent("Ideas.txt"))
        let served = try serve(["--root", notes.path], stderrHolding: "members see only")
        XCTAssertNil(served.status, "served as it is: \(served.stderr)")
        let line = try XCTUnwrap(served.stderr.split(separator: "\n").first { $0.contains("members see only") }.map(String.init), served.stderr)
        XCTAssertTrue(line.hasPrefix("byteclub serve: "), line)
        XCTAssertTrue(line.contains("holds 2 notes (Ideas.txt, …) at its top but no byteclub/ folder"), line)
        XCTAssertTrue(line.contains("members see only \(notes.path)/byteclub/"), line)
        XCTAssertTrue(line.contains("mkdir \(notes.path)/byteclub/ && mv \(notes.path)/*.md \(notes.path)/*.txt \(notes.path)/byteclub/"), line)

        // Moved as it says, the club's notes are where members look, and nothing more is said.
        let club = notes.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: club, withIntermediateDirectories: true)
        for name in ["Plan.md", "Ideas.txt"] {
            try FileManager.default.moveItem(at: notes.appendingPathComponent(name), to: club.appendingPathComponent(name))
        }
        let moved = try serve(["--root", notes.path])
        XCTAssertNil(moved.status, moved.stderr)
        XCTAssertFalse(moved.stderr.contains("members see only"), moved.stderr)
    }

    func testATakenPortIsSaidInOneSentence() throws {
        // Another program listens on the port.
        let taken = try SilentListener()
        defer { taken.close() }
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let result = try serve(["--root", root.path, "--port", "\(taken.port)"])
        XCTAssertEqual(result.status, 6, "the network: trying again later may work, per docs/cli.md's table: \(result.stdout)\(result.stderr)")
        // --insecure-http's own warning aside, one line.
        let lines = result.stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("byteclub serve: warning: --insecure-http") }
        XCTAssertEqual(lines.count, 1, "one line: \(result.stderr)")
        XCTAssertTrue(lines.first?.hasPrefix("byteclub: port \(taken.port) is already in use on 127.0.0.1") == true, result.stderr)
        XCTAssertFalse(result.stderr.contains("errno") || result.stderr.contains("bind("), result.stderr)
    }
}
