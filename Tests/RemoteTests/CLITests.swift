import ClubServer
import Foundation
import Remote
import Transfer
import TestSupport
import XCTest

/// The built `byteclub` binary, run as a script would run it.
struct CLI {
    /// A CLI whose home, XDG folders and temp folder are all under `base` (state in
    /// `home/state`), run from `base/work`, with no BYTECLUB_TOKEN or BYTECLUB_WEBDAV_PASSWORD from
    /// the outside.
    static func isolated(in base: URL) throws -> CLI {
        let home = base.appendingPathComponent("home")
        let work = base.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        environment["TMPDIR"] = base.appendingPathComponent("tmp").path
        environment["BYTECLUB_TOKEN"] = nil
        environment["BYTECLUB_WEBDAV_PASSWORD"] = nil
        try FileManager.default.createDirectory(at: base.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        return CLI(environment: environment, directory: work)
    }

    static var executable: URL? { BuiltExecutable.byteclub }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let environment: [String: String]
    let directory: URL

    /// Runs to completion (with a deadline) and collects the output; `input`, when given, is
    /// its stdin (then closed).
    func run(_ arguments: [String], input: Data? = nil, timeout: TimeInterval = 60) throws -> Result {
        let stdin = input.map { _ in Pipe() }
        let process = try start(arguments, stdin: stdin)
        if let stdin, let input {
            stdin.fileHandleForWriting.write(input)
            try stdin.fileHandleForWriting.close()
        }
        let out = process.standardOutput as! Pipe
        let err = process.standardError as! Pipe
        let stdoutData = Mutex2<Data>(Data())
        let stderrData = Mutex2<Data>(Data())
        let group = DispatchGroup()
        for (pipe, sink) in [(out, stdoutData), (err, stderrData)] {
            group.enter()
            DispatchQueue.global().async {
                sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        guard group.wait(timeout: .now() + timeout) == .success else {
            process.terminate()
            throw CouldNotCheck("byteclub \(arguments) did not finish in \(timeout) s")
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdoutData.get(), as: UTF8.self),
                      stderr: String(decoding: stderrData.get(), as: UTF8.self))
    }

    /// Starts `arguments` (a throttled `get`), presses Ctrl-C once a `.download` file in `temp`
    /// holds at least `bytes` (polled with a deadline), and waits for the exit: the largest
    /// partial seen, the exit status and what went to stderr.
    func interrupt(_ arguments: [String], after bytes: Int = 4 << 20, partialIn temp: URL) throws -> (partial: Int, status: Int32, stderr: String) {
        let process = try start(arguments)
        let deadline = Date().addingTimeInterval(30)
        var partial = 0
        while partial < bytes && Date() < deadline && process.isRunning {
            partial = ((try? FileManager.default.contentsOfDirectory(atPath: temp.path)) ?? []).filter { $0.hasSuffix(".download") }
                .compactMap { (try? FileManager.default.attributesOfItem(atPath: temp.appendingPathComponent($0).path))?[.size] as? Int }.max() ?? 0
            if partial < bytes { usleep(5_000) }
        }
        process.interrupt()
        process.waitForExit(within: 30)
        let stderr = String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (partial, process.terminationStatus, stderr)
    }

    func start(_ arguments: [String], stdin: Pipe? = nil) throws -> Process {
        let executable = try Requirement.byteclub()
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        if let stdin { process.standardInput = stdin }
        try process.run()
        return process
    }
}

/// A tiny lock-protected box for values handed between threads in these tests.
final class Mutex2<T>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched while holding `lock`.
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func set(_ newValue: T) { lock.withLock { value = newValue } }
    func get() -> T { lock.withLock { value } }
}

final class CLITests: XCTestCase {
    var club: ClubFixture!
    var cli: CLI!

    override func setUp() async throws {
        club = try await ClubFixture()
        cli = try CLI.isolated(in: club.base)
    }

    override func tearDown() async throws {
        await club?.close()
    }

    var server: [String] { ["--server", club.server.baseURL.absoluteString, "--token", club.token] }

    func testScriptingCommandsEndToEnd() throws {
        let local = cli.directory.appendingPathComponent("你好.txt")
        try Data("hello from a script\n".utf8).write(to: local)

        let put = try cli.run(["put", local.path, "/byteclub/"] + server)
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(put.stdout, "/byteclub/你好.txt\n")
        XCTAssertEqual(try String(contentsOf: club.file("byteclub/你好.txt"), encoding: .utf8), "hello from a script\n")

        let listing = try cli.run(["ls", "/byteclub", "--json"] + server)
        XCTAssertEqual(listing.status, 0, listing.stderr)
        let entries = try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(entries?.compactMap { $0["name"] as? String }, ["你好.txt"])
        XCTAssertEqual(entries?.first?["size"] as? Int, 20)
        // With no folder, `ls` lists the club's folder: the notes the app shows.
        let human = try cli.run(["ls"] + server)
        XCTAssertTrue(human.stdout.contains("你好.txt"), human.stdout)

        let moved = try cli.run(["mv", "/byteclub/你好.txt", "/byteclub/Grüße.txt"] + server)
        XCTAssertEqual(moved.status, 0, moved.stderr)
        let got = try cli.run(["get", "/byteclub/Grüße.txt", "copy.txt"] + server)
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(try String(contentsOf: cli.directory.appendingPathComponent("copy.txt"), encoding: .utf8), "hello from a script\n")

        // Exit codes a script can branch on, each with a one-line message.
        let missing = try cli.run(["get", "/byteclub/nope.txt"] + server)
        XCTAssertEqual(missing.status, 3)
        XCTAssertEqual(missing.stderr, "byteclub: Not found: /byteclub/nope.txt (byteclub ls /byteclub lists what is there)\n")
        try Data("different".utf8).write(to: local)
        let conflict = try cli.run(["put", local.path, "/byteclub/Grüße.txt"] + server)
        XCTAssertEqual(conflict.status, 4)
        XCTAssertEqual(conflict.stderr, "byteclub: /byteclub/Grüße.txt already exists; add --mode overwrite to replace it or --autorename to keep both\n",
                       "a taken name, not someone else's change")
        let overwritten = try cli.run(["put", local.path, "/byteclub/Grüße.txt", "--mode", "overwrite"] + server)
        XCTAssertEqual(overwritten.status, 0, overwritten.stderr)
        let badToken = try cli.run(["ls", "--server", club.server.baseURL.absoluteString, "--token", "nope"])
        XCTAssertEqual(badToken.status, 5)
        XCTAssertFalse(badToken.stderr.contains("nope"), "tokens never appear in messages")
        let badRate = try cli.run(["ls", "--bwlimit", "fast"] + server)
        XCTAssertNotEqual(badRate.status, 0)
        XCTAssertTrue(badRate.stderr.contains("bwlimit"), badRate.stderr)
        let dead = try cli.run(["ls", "--server", "http://127.0.0.1:9", "--token", "x"])
        XCTAssertEqual(dead.status, 6)
        XCTAssertTrue(dead.stderr.contains("Network error"), dead.stderr)

        let removed = try cli.run(["rm", "/byteclub/Grüße.txt"] + server)
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: club.file("byteclub/Grüße.txt").path))
    }

    /// Issue 43: against a server that accepts and never answers, `--timeout 5` took 60.7 s
    /// (every request was tried again, each waiting the whole timeout). The idle timeout is
    /// the user's limit: the command fails once it has passed, saying so, exit 6.
    func testATimeoutAgainstASilentServerIsWhatItSays() throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let started = Date()
        let run = try cli.run(["ls", "--server", "http://127.0.0.1:\(silent.port)", "--token", "t", "--timeout", "5"], timeout: 60)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 6, run.stderr)
        XCTAssertLessThan(took, 10, "--timeout 5 failed after \(took) s")
        XCTAssertGreaterThanOrEqual(took, 4.5, "it waited the timeout: \(took) s")
        XCTAssertEqual(run.stderr, "byteclub: Timed out: the server sent nothing for 5 s (--timeout sets how long to wait)\n")
    }

    /// Issue 70: a command that does not finish by the test's deadline fails the test. It used to
    /// throw XCTSkip, and a hang read as a pass.
    func testACommandThatHangsFailsTheTestRatherThanSkippingIt() throws {
        let silent = try SilentListener()
        defer { silent.close() }
        XCTAssertThrowsError(try cli.run(["ls", "--server", "http://127.0.0.1:\(silent.port)", "--token", "t", "--timeout", "60"], timeout: 1)) { error in
            XCTAssertTrue(error is CouldNotCheck, "a hang must be a failure, not \(type(of: error))")
            XCTAssertFalse(error is XCTSkip)
            XCTAssertTrue("\(error)".contains("did not finish in 1.0 s"), "\(error)")
        }
    }

    /// The README's `byteclub --server URL --token T ls`: options before the command work as after it.
    func testOptionsBeforeTheCommandWorkAsAfterIt() throws {
        let local = cli.directory.appendingPathComponent("early.txt")
        try Data("options first\n".utf8).write(to: local)
        let put = try cli.run(server + ["put", local.path, "/byteclub/"])
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(put.stdout, "/byteclub/early.txt\n")
        let listing = try cli.run(server + ["ls", "/byteclub"])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        XCTAssertTrue(listing.stdout.contains("early.txt"), listing.stdout)
        // Split around the command, and with a value that is itself a command's name.
        let split = try cli.run(["--server", club.server.baseURL.absoluteString, "get", "/byteclub/early.txt", "ls", "--token", club.token])
        XCTAssertEqual(split.status, 0, split.stderr)
        XCTAssertEqual(try String(contentsOf: cli.directory.appendingPathComponent("ls"), encoding: .utf8), "options first\n")
        // A line that is wrong either way still gets the command's own usage error, not the app's.
        let wrong = try cli.run(server + ["ls", "--no-such-option"])
        XCTAssertEqual(wrong.status, 64, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("--no-such-option"), wrong.stderr)
    }

    func testEmbeddedClubIsSeededAndServed() throws {
        let dataDir = club.base.appendingPathComponent("embedded")
        let listing = try cli.run(["ls", "/byteclub", "--data-dir", dataDir.path])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        XCTAssertTrue(listing.stdout.contains("Welcome to Byte Club.txt"), listing.stdout)
        let photos = try cli.run(["ls", "/byteclub/photos", "--json", "--data-dir", dataDir.path])
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(photos.stdout.utf8)) as? [Any])?.count, 4)
    }

    func testInterruptedGetResumesInANewProcess() throws {
        let size = 32 << 20
        let source = try club.makeFile("pano.bin", size: size)
        try FileManager.default.copyItem(at: source, to: club.file("byteclub/pano.bin"))
        // Ctrl-C once a good part of it is on disk.
        let first = try cli.interrupt(["get", "/byteclub/pano.bin", "pano.bin", "--bwlimit", "8M"] + server,
                                      partialIn: club.base.appendingPathComponent("tmp"))
        XCTAssertGreaterThanOrEqual(first.partial, 4 << 20)
        let firstError = first.stderr
        XCTAssertEqual(first.status, 130, "Ctrl-C is 130 (docs/cli.md)")
        XCTAssertTrue(firstError.contains("run the same command again to resume"), firstError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("pano.bin").path))

        let second = try cli.run(["get", "/byteclub/pano.bin", "pano.bin"] + server)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("resuming /byteclub/pano.bin at"), second.stderr)
        XCTAssertEqual(try Data(contentsOf: cli.directory.appendingPathComponent("pano.bin")), try Data(contentsOf: source))
    }

    func testLoginDropboxWithPKCEAgainstAFakeEndpoint() async throws {
        let fake = try await FakeDropbox()
        defer { fake.stop() }
        let input = Pipe()
        let process = try cli.start(["login", "dropbox", "--app-key", "app-key", "--token-url", fake.oauth.token.absoluteString], stdin: input)
        // Read the authorize URL the user would open, and "approve" it at the fake.
        let output = (process.standardOutput as! Pipe).fileHandleForReading
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("code_challenge_method") && Date() < deadline {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let urlText = try XCTUnwrap(text.split(separator: " ").first { $0.hasPrefix("https://www.dropbox.com/oauth2/authorize?") })
        let components = try XCTUnwrap(URLComponents(string: String(urlText).trimmingCharacters(in: .whitespacesAndNewlines)))
        fake.state.withLock { $0.challenge = components.queryItems?.first { $0.name == "code_challenge" }?.value }
        input.fileHandleForWriting.write(Data("good-code\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let tokens = URL(fileURLWithPath: cli.environment["XDG_STATE_HOME"]!).appendingPathComponent("byteclub/tokens.json")
        let stored = try TokenFile(url: tokens).load()
        XCTAssertEqual(stored.refreshToken, "rt-1")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: tokens.path)[.posixPermissions] as? Int, 0o600)

        // And `--dropbox` then works against the (fake) API with that login.
        let listing = try cli.run(["ls", "/", "--dropbox", "--dropbox-api", fake.baseURL.absoluteString, "--oauth-token-url", fake.oauth.token.absoluteString, "--json"])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        XCTAssertTrue(listing.stdout.contains("a.txt"))
    }
}
