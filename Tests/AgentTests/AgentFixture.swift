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
        guard let executable = BuiltExecutable.byteclub else { throw XCTSkip("the byteclub executable is not built") }
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
