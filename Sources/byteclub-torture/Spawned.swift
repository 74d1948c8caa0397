import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn (not Foundation's Process, whose watcher descriptor a
/// forked tmux server or a detached agent would inherit), its output in files, waited for by
/// polling `waitpid` against a deadline.
final class Spawned {
    let pid: pid_t
    let output: String
    private(set) var status: Int32?

    /// Starts `arguments[0]` with `arguments`, `environment` only, stdin from /dev/null, stdout
    /// and stderr to `output`.
    init(_ arguments: [String], environment: [String: String], output: String) throws {
        self.output = output
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard result == 0 else { throw TortureError("cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// Whether it still runs (reaps it once it has ended).
    var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, WNOHANG)
        if result == pid {
            status = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            return false
        }
        if result < 0 && errno == ECHILD { status = -1 }
        return result == 0
    }

    /// Waits until it exits or `deadline` passes; its exit code, or nil if it still runs.
    @discardableResult
    func wait(until deadline: Date) -> Int32? {
        while isRunning {
            if Date() >= deadline { return nil }
            usleep(5_000)
        }
        return status
    }

    /// SIGKILL, then reaped.
    func kill() {
        guard isRunning else { return }
        Glibc.kill(pid, SIGKILL)
        _ = wait(until: Date().addingTimeInterval(10))
    }

    var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
}

struct TortureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every few milliseconds until it holds or `seconds` pass.
@discardableResult
func poll(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() >= deadline { return false }
        usleep(5_000)
    }
    return true
}

/// What a run leaves running if it is stopped by a signal: the server's pid, the tmux server's
/// socket, the agent's lock folder. Ctrl-C or SIGTERM ends them, as the end of a run does.
final class Leftovers: Sendable {
    private struct State {
        var server: pid_t?
        var tmux: [String]?
        var agentState: String?
    }

    private let state = Mutex(State())

    func server(_ pid: pid_t?) { state.withLock { $0.server = pid } }
    func tmux(_ command: [String]) { state.withLock { $0.tmux = command } }
    func agent(_ folder: String) { state.withLock { $0.agentState = folder } }

    /// Ends them all (from the signal handler's queue), then the process.
    func endAll() -> Never {
        end()
        exit(130)
    }

    /// Ends them all: a run that could not start, or one stopped by a signal.
    func end() {
        let now = state.withLock { $0 }
        if let pid = now.server { kill(pid, SIGKILL) }
        if let folder = now.agentState {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".lock") {
                if let text = try? String(contentsOfFile: folder + "/" + name, encoding: .utf8), let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 {
                    kill(pid, SIGKILL)
                }
            }
        }
        if let tmux = now.tmux { _ = try? Spawned(tmux + ["kill-server"], environment: ["PATH": "/usr/bin:/bin"], output: "/dev/null").wait(until: Date().addingTimeInterval(5)) }
    }
}

let leftovers = Leftovers()
