@testable import Agent
import Foundation
import TestSupport
import XCTest

/// A user's machine in a temp folder (every XDG folder, the runtime folder 0700) and the built
/// `byteclub` run in it; the agents it starts are killed at the end.
final class AgentFixture {
    let home: URL
    let environment: [String: String]
    let executable: URL

    /// `idleSeconds`: how long its agents wait, idle, before they leave.
    init(idleSeconds: Int = 2) throws {
        let executable = try Requirement.byteclub()
        self.executable = executable
        home = FileManager.default.temporaryDirectory.appendingPathComponent("agent-\(UUID().uuidString.prefix(8))")
        let runtime = home.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_RUNTIME_DIR"] = runtime.path
        for (name, folder) in [("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data")] {
            environment[name] = home.appendingPathComponent(folder).path
        }
        // Agents of a finished test leave soon by themselves (and are killed in close()).
        environment["BYTECLUB_AGENT_IDLE_SECONDS"] = String(idleSeconds)
        self.environment = environment
    }

    /// The same machine and home as `other`, seen from another shell (`environment`); the
    /// home is `other`'s to remove.
    init(sharing other: AgentFixture, environment: [String: String]) {
        executable = other.executable
        home = other.home
        self.environment = environment
    }

    func place(key: String) throws -> AgentPlace {
        try AgentPlace(key: key, stateFolder: home.appendingPathComponent("state/byteclub"), environment: environment)
    }

    /// The live agent's pid, from its lock file.
    func agentPID(key: String) throws -> pid_t? {
        let text = (try? String(contentsOf: place(key: key).lock, encoding: .utf8)) ?? ""
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func journal(key: String) throws -> AgentJournal.Contents {
        AgentJournal(url: try place(key: key).journal).load()
    }

    func launch(_ arguments: [String], stdout: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        if let stdout {
            FileManager.default.createFile(atPath: stdout.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: stdout)
            process.standardError = process.standardOutput
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }

    /// Runs to the end (or kills it at the deadline); its status and output.
    func run(_ arguments: [String], timeout: TimeInterval = 30) throws -> (status: Int32, output: String) {
        let output = home.appendingPathComponent("out-\(UUID().uuidString.prefix(6))")
        let process = try launch(arguments, stdout: output)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTFail("byteclub \(arguments.joined(separator: " ")) still running after \(timeout) s")
        }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    /// Polls `condition` until true or the deadline passes.
    func eventually(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        XCTFail("timed out waiting for \(what)")
        return false
    }

    func close(keys: [String]) {
        for key in keys {
            if let pid = try? agentPID(key: key), pid > 0 { kill(pid, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: home)
    }
}

/// A real `byteclub serve` over a folder in the fixture's home, logging every request, behind a
/// relay that counts the connections open at once and the request bytes it passes on.
final class RelayedClub {
    let server: ServeProcess
    let relay: CuttingRelay
    let log: URL
    let root: URL
    let token: String

    init(in fixture: AgentFixture, token: String) throws {
        self.token = token
        root = fixture.home.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        log = fixture.home.appendingPathComponent("server.log")
        server = try ServeProcess(root: root, token: token, log: log)
        let port = try XCTUnwrap(server.url.split(separator: ":").last.flatMap { Int($0) })
        relay = try CuttingRelay(upstreamPort: port)
    }

    var url: String { relay.url.absoluteString }
    /// The agent's key for this club, as the CLI names it.
    var key: String { "club:" + url }
    /// The CLI's flags for this club.
    var flags: [String] { ["--server", url, "--token", token] }

    func logText() throws -> String { try String(contentsOf: log, encoding: .utf8) }

    /// How many upload sessions the server started.
    func sessionStarts() throws -> Int { try logText().components(separatedBy: "upload_session/start 200").count - 1 }

    func stop() { relay.stop() }
}

extension AgentFixture {
    /// `megabytes` of random bytes at `name` in the home folder (read from the kernel: a byte
    /// at a time in Swift takes seconds a MiB in a debug build).
    func randomFile(_ name: String, megabytes: Int) throws -> (URL, Data) {
        let source = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? source.close() }
        let bytes = try XCTUnwrap(source.readData(ofLength: megabytes << 20))
        XCTAssertEqual(bytes.count, megabytes << 20)
        let url = home.appendingPathComponent(name)
        try bytes.write(to: url)
        return (url, bytes)
    }
}
