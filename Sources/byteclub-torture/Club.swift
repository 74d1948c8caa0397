import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The club under torture: a `byteclub serve` in a process of its own over `root`, and the
/// folders of one user (HOME and every XDG_* under `base`), shared by the app, the agent and
/// the command line.
final class Club {
    let base: URL
    let binary: String
    let token = "torture-\(UInt32.random(in: 0...UInt32.max))"
    private(set) var port = 0
    private(set) var server: Spawned?
    private var serverStarts = 0

    init(base: URL, binary: String) throws {
        self.base = base
        self.binary = binary
        for folder in ["club/byteclub/photos", "home", "state", "config", "cache", "data", "tmp", "local", "logs"] {
            try FileManager.default.createDirectory(at: base.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        // The agent's socket folder must be ours alone.
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        leftovers.agent(agentState.path)
    }

    var root: URL { base.appendingPathComponent("club") }
    var notes: URL { root.appendingPathComponent("byteclub") }
    var photos: URL { notes.appendingPathComponent("photos") }
    var meta: URL { root.appendingPathComponent(".byteclub") }

    /// The server's ids by lowercased path, as it keeps them on disk (docs/server.md): `ids.json`,
    /// then each line of `ids.log` (`["path","id"]` or `["path",null]`), the later standing; a
    /// line cut short by a kill is left out, as the server leaves it out.
    func serverIDs() -> [String: String] {
        var ids = (try? Data(contentsOf: meta.appendingPathComponent("ids.json")))
            .flatMap { try? JSONDecoder().decode([String: String].self, from: $0) } ?? [:]
        let log = (try? Data(contentsOf: meta.appendingPathComponent("ids.log"))) ?? Data()
        for line in log.split(separator: UInt8(ascii: "\n")) {
            guard let pair = try? JSONDecoder().decode([String?].self, from: Data(line)), pair.count == 2, let path = pair[0] else { continue }
            ids[path] = pair[1]
        }
        return ids
    }
    var state: URL { base.appendingPathComponent("state/byteclub") }
    var drafts: URL { state.appendingPathComponent("drafts") }
    var outbox: URL { state.appendingPathComponent("outbox") }
    var agentState: URL { state.appendingPathComponent("agent") }
    var local: URL { base.appendingPathComponent("local") }
    var logs: URL { base.appendingPathComponent("logs") }
    var runtime: String { base.appendingPathComponent("run").path }
    var url: String { "http://127.0.0.1:\(port)" }

    /// The one user's environment: nothing of the caller's but PATH.
    var environment: [String: String] {
        [
            "HOME": base.appendingPathComponent("home").path,
            "XDG_STATE_HOME": base.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": base.appendingPathComponent("data").path,
            "XDG_RUNTIME_DIR": runtime,
            "TMPDIR": base.appendingPathComponent("tmp").path,
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "USER": "ray",
            "BYTECLUB_TOKEN": token,
            // An agent idle this long stays, so there is one to kill between its transfers.
            "BYTECLUB_AGENT_IDLE_SECONDS": "3600",
            "SWIFT_BACKTRACE": "enable=no",
        ]
    }

    // MARK: The server

    /// Starts `byteclub serve` (on a free port the first time, then on the same one) and waits
    /// until it listens.
    func startServer() throws {
        serverStarts += 1
        for attempt in 1...50 {
            let log = logs.appendingPathComponent("serve-\(serverStarts).log").path
            let started = try Spawned([binary, "serve", "--insecure-http", "--root", root.path, "--create", "--port", "\(port)", "--log-level", "error"],
                                      environment: environment.merging(["BYTECLUB_TOKEN": token]) { $1 }, output: log)
            var listening: Int?
            poll(30) {
                let text = started.text
                if let range = text.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) {
                    listening = Int(text[range].split(separator: ":").last ?? "")
                    return true
                }
                return !started.isRunning
            }
            if let listening {
                port = listening
                server = started
                leftovers.server(started.pid)
                return
            }
            started.kill()
            // The old server's port may still be held for a moment after SIGKILL.
            if attempt == 50 { throw TortureError("byteclub serve did not start: \(started.text)") }
            usleep(20_000)
        }
    }

    var serverRunning: Bool { server?.isRunning ?? false }

    func killServer() {
        server?.kill()
        server = nil
    }

    // MARK: The command line

    /// Starts `byteclub ARGUMENTS --server URL`.
    func cli(_ arguments: [String], name: String) throws -> Spawned {
        try Spawned([binary] + arguments + ["--server", url], environment: environment, output: logs.appendingPathComponent("\(name).log").path)
    }

    /// Runs a command to its end (or `seconds`); its exit code (nil: killed at the deadline) and output.
    func run(_ arguments: [String], name: String, within seconds: Double = 60) throws -> (status: Int32?, output: String) {
        let started = try cli(arguments, name: name)
        let status = started.wait(until: Date().addingTimeInterval(seconds))
        if status == nil { started.kill() }
        return (status, started.text)
    }

    // MARK: The agent

    /// The running agent's pid, from the lock it holds (its pid is written there), if that
    /// process is alive and is an agent.
    var agentPID: pid_t? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: agentState.path)) ?? []
        for name in names where name.hasSuffix(".lock") {
            guard let text = try? String(contentsOf: agentState.appendingPathComponent(name), encoding: .utf8),
                  let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0,
                  let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else { continue }
            let words = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if words.contains("agent"), !isZombie(pid) { return pid }
        }
        return nil
    }

    private func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// SIGKILL to the agent; true if one ran. It is not our child (it detached): waits until
    /// its process is gone.
    @discardableResult
    func killAgent() -> Bool {
        guard let pid = agentPID else { return false }
        kill(pid, SIGKILL)
        poll(10) { !FileManager.default.fileExists(atPath: "/proc/\(pid)") || isZombie(pid) }
        return true
    }

    /// Transfers in the agent's journals, as JSON objects.
    func agentTransfers() -> [[String: Any]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: agentState.path)) ?? []
        var all: [[String: Any]] = []
        for name in names where name.hasSuffix(".json") {
            guard let data = try? Data(contentsOf: agentState.appendingPathComponent(name)),
                  let object = try? JSONSerialization.jsonObject(with: data) else { continue }
            let transfers = (object as? [String: Any])?["transfers"] as? [[String: Any]] ?? (object as? [[String: Any]]) ?? []
            all += transfers
        }
        return all
    }

    /// Stops everything still running (the agent is not our child: by its pid).
    func shutDown() {
        killServer()
        killAgent()
    }
}
