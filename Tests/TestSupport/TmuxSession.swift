import Foundation
import XCTest

/// A tmux server of its own (`tmux -L NAME`) with one session running a shell, so tests can type
/// into the built `byteclub` and read the screen with `capture-pane -p`, as fzf's tests do.
public final class TmuxSession {
    public let socket = "byteclub-e2e-\(UUID().uuidString.prefix(8))"
    public let session = "e2e"
    public let tmux: String

    /// The tmux binary, or nil when it is not installed.
    public static var binary: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts `sh` in a detached `width`×`height` session, with `environment` and nothing else.
    public init(width: Int, height: Int, environment: [String: String]) throws {
        let tmux = try Requirement.tool(Self.binary, "tmux is not installed (apt-get install tmux, or make deps)")
        self.tmux = tmux
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quote($0.value))" }.joined(separator: " ")
        try run(["-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-s", session,
                 "env -i \(assignments) /bin/sh"])
        // A fixed window size: no client is attached to size it.
        try run(["set-option", "-g", "window-size", "manual"])
    }

    public static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs one tmux command, its output going through a temp file.
    ///
    /// Not through Foundation's `Process`: the server that `new-session` forks inherits the
    /// descriptor `Process` watches for the child's exit, so `waitUntilExit` would wait for the
    /// server too. posix_spawn and waitpid wait for the client alone.
    @discardableResult
    public func run(_ arguments: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).out").path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([tmux, "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tmux, &actions, nil, argv, environ)
        guard spawned == 0 else { throw NSError(domain: "tmux", code: Int(spawned), userInfo: [NSLocalizedDescriptionKey: "cannot run tmux"]) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS are macros: the exit code is in bits 8-15, the signal in 0-6.
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        if exitCode != 0 {
            throw NSError(domain: "tmux", code: Int(exitCode),
                          userInfo: [NSLocalizedDescriptionKey: "tmux \(arguments.joined(separator: " ")): \(text)"])
        }
        return text
    }

    /// Types `text` literally (`--`: a text starting with "-", a Markdown list item, is no flag).
    public func type(_ text: String) throws { try run(["send-keys", "-t", session, "-l", "--", text]) }

    /// Sends tmux key names: "Enter", "Escape", "F1", "BTab".
    public func press(_ keys: String...) throws { try run(["send-keys", "-t", session] + keys) }

    public func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    public func capture() -> String {
        do {
            return try run(["capture-pane", "-p", "-t", session])
        } catch {
            return "(capture-pane failed: \(error.localizedDescription))"
        }
    }

    /// The screen with its colors and attributes as escape sequences (`capture-pane -e`).
    public func captureWithEscapes() -> String {
        (try? run(["capture-pane", "-p", "-e", "-t", session])) ?? ""
    }

    /// The command in the foreground of the pane, e.g. "byteclub" or "sh".
    public func currentCommand() -> String {
        ((try? run(["display-message", "-p", "-t", session, "#{pane_current_command}"])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls the screen until `condition` holds or the deadline passes; returns the last screen.
    @discardableResult
    public func waitFor(_ what: String, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line,
                 _ condition: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = capture()
        while !condition(screen) {
            guard Date() < deadline else {
                // The status bar (the screen's last lines) goes on the first line too: a CI report
                // that keeps one line of a failure still says what the app said.
                let status = screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.suffix(2)
                XCTFail("timed out after \(timeout) s waiting for \(what) (the screen ends: \(status.joined(separator: " ⏎ "))); the screen:\n\(screen)",
                        file: file, line: line)
                return screen
            }
            // A short poll interval, not a wait for something to happen.
            usleep(20_000)
            screen = capture()
        }
        return screen
    }

    /// Waits until the screen shows `text`.
    @discardableResult
    public func waitFor(_ text: String, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line) -> String {
        waitFor("“\(text)”", timeout: timeout, file: file, line: line) { $0.contains(text) }
    }

    /// Waits until the screen shows every one of `texts` at once. One frame can reach tmux in more
    /// than one write (ncurses flushes a full buffer before the frame ends), so a screen that
    /// shows the first text may not show the rest yet.
    @discardableResult
    public func waitFor(all texts: [String], timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line) -> String {
        waitFor(texts.map { "“\($0)”" }.joined(separator: " and "), timeout: timeout, file: file, line: line) { screen in
            texts.allSatisfy { screen.contains($0) }
        }
    }

    /// Stops this test's tmux server and removes its socket.
    public func kill() {
        _ = try? run(["kill-server"])
        let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        unlink("\(directory)/tmux-\(getuid())/\(socket)")
    }
}
