import ClubKit
import Foundation
import XCTest

/// The built `byteclub` in a tmux terminal over temp `HOME` and `XDG_*` dirs: launched, killed
/// and launched again in the same shell, with its files on disk at hand.
public final class AppHarness {
    public let base: URL
    public private(set) var tmux: TmuxSession?
    /// How many times the app was launched; numbers each run's exit line.
    public private(set) var runs = 0

    public init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    public var home: URL { base.appendingPathComponent("home") }

    /// The app's world: its home and `XDG_*` folders under ``base``, and nothing from outside,
    /// so a command run with it (``cli(_:within:input:)``) sees the same config, drafts and
    /// remotes as the app in the terminal.
    public var environment: [String: String] {
        [
            "HOME": home.path,
            "XDG_DATA_HOME": base.appendingPathComponent("data").path,
            "XDG_STATE_HOME": base.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
            "TMPDIR": FileManager.default.temporaryDirectory.path,
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "SWIFT_BACKTRACE": "interactive=no",
        ]
    }

    /// Runs `byteclub ARGUMENTS` as a script in this app's world would, to its end or the deadline.
    public func cli(_ arguments: [String], within seconds: TimeInterval = 60, input: String? = nil) throws -> ChildProcess.Result {
        try ChildProcess.run([try Self.binary.path] + arguments, within: seconds, environment: environment, input: input)
    }

    /// Starts `byteclub ARGUMENTS` (a `watch`) in this app's world and leaves it running.
    public func start(_ arguments: [String]) throws -> ChildProcess.Started {
        try ChildProcess.start([try Self.binary.path] + arguments, environment: environment)
    }
    /// The embedded club folder (`--data-dir`).
    public var club: URL { base.appendingPathComponent("club") }
    public var state: URL { base.appendingPathComponent("state/byteclub") }
    /// Where the drafts folders are: one per club (`drafts/KEY/`), since a draft is one club's.
    public var draftsRoot: URL { state.appendingPathComponent("drafts") }
    /// Each club's drafts folder under ``draftsRoot``, by name.
    public var draftsFolders: [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: draftsRoot.path)) ?? []).sorted()
            .map { draftsRoot.appendingPathComponent($0) }
            .filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true }
    }
    /// The drafts folder of the club this app opens (a test of one club: the one folder under
    /// ``draftsRoot``); a folder that does not exist (no drafts) until the app wrote one.
    public var drafts: URL { draftsFolders.first ?? draftsRoot.appendingPathComponent("no-club-has-drafts-yet") }
    public var downloads: URL { base.appendingPathComponent("downloads") }
    public var log: URL { state.appendingPathComponent("byteclub.log") }

    public static var binary: URL {
        get throws {
            let binary = try Requirement.byteclub()
            return binary
        }
    }

    /// Starts the app with `arguments` (default: the embedded club in ``club``) in a
    /// `width`×`height` terminal; every exit prints `BYTECLUB-EXIT=<status> (run <n>)` (see
    /// ``exitLine(_:)``). With `resetTTY`, `stty sane` runs first (after a `kill -9`); without
    /// it, the tty is as the app left it.
    @discardableResult
    ///
    /// `environment` adds variables to the shell's (only when this launch starts the shell).
    public func launch(_ arguments: [String]? = nil, width: Int = 120, height: Int = 36, term: String = "xterm-256color",
                resetTTY: Bool = true, environment: [String: String] = [:], jobControl: Bool = true) throws -> TmuxSession {
        let binary = try Self.binary
        let tmux: TmuxSession
        if let existing = self.tmux {
            tmux = existing
        } else {
            tmux = try TmuxSession(width: width, height: height, environment: self.environment.merging([
                "TERM": term,
                "USER": "ray",
                "PS1": "e2e> ",
            ]) { _, added in added }.merging(environment) { _, added in added })
            self.tmux = tmux
            tmux.waitFor("e2e>")
        }
        let arguments = arguments ?? ["--data-dir", club.path, "--download-dir", downloads.path]
        let command = ([binary.path] + arguments).map(TmuxSession.quote).joined(separator: " ")
        runs += 1
        // `stty sane` puts the tty back even after kill -9, so the shell takes the next command.
        // Without job control, a `kill -STOP` leaves the app the terminal's (the shell does not take it back).
        try tmux.type("\(jobControl ? "" : "set +m; ")\(command); s=$?; \(resetTTY ? "stty sane; " : "")echo \"BYTECLUB-EXIT=$s (run \(runs))\"")
        try tmux.press("Enter")
        return tmux
    }

    /// The line the latest run prints when it exits with `status`.
    ///
    /// Numbered: an earlier run's exit line stays on the shell's screen, and shows again as soon
    /// as the next run leaves the alternate screen, before that run has exited.
    public func exitLine(_ status: Int32) -> String { "BYTECLUB-EXIT=\(status) (run \(runs))" }

    /// Whether a line of `screen` other than the status bar shows `text`: a list row, not the
    /// message an action left (the status bar is the line with the "? help" hint).
    public static func listed(_ text: String, in screen: String) -> Bool {
        screen.split(separator: "\n").contains { $0.contains(text) && !$0.contains("? help") }
    }

    /// How many times the log says a load of `noun` ("notes", "photos") was applied; the log
    /// line is written just before the list changes, on the same turn of the UI queue.
    public func loads(of noun: String) -> Int {
        (Self.text(log) ?? "").components(separatedBy: "loaded \(noun)").count - 1
    }

    /// The running byteclub's pid: the child of the pane's shell.
    public func appPID() -> pid_t? {
        guard let tmux, let shell = Int32(((try? tmux.run(["display-message", "-p", "-t", tmux.session, "#{pane_pid}"])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8) else { continue }
            // "pid (comm) state ppid …": comm may hold spaces, so split after the last ')'.
            guard let close = stat.lastIndex(of: ")"), let open = stat.firstIndex(of: "(") else { continue }
            let comm = stat[stat.index(after: open)..<close]
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if comm == "byteclub", fields.count > 1, Int32(fields[1]) == shell { return pid }
        }
        return nil
    }

    /// Polls until `condition` holds or `timeout` passes (for files on disk); false on timeout.
    @discardableResult
    public static func eventually(_ what: String, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line,
                           _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else {
                XCTFail("timed out after \(timeout) s waiting for \(what)", file: file, line: line)
                return false
            }
            usleep(20_000)
        }
        return true
    }

    /// A file's text, or nil.
    public static func text(_ url: URL) -> String? {
        (try? Data(contentsOf: url)).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The texts of the drafts in `folder` (one club's), read as byteclub reads them
    /// (`DraftStore`): a draft whose text is a journal's (a live note's, or a note's own while it
    /// is edited) keeps none in its file, and is read from the journal.
    public static func draftTexts(in folder: URL) -> [String] {
        DraftStore(directory: folder).all().map(\.body)
    }

    /// Every club's drafts under `root` (a drafts root, a state folder, a whole HOME).
    public static func draftTexts(under root: URL) -> [String] {
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        let folders = Set(files.filter { $0.pathExtension == "json" && $0.path.contains("/drafts/") }.map { $0.deletingLastPathComponent().path })
        return folders.sorted().flatMap { draftTexts(in: URL(fileURLWithPath: $0)) }
    }

    public func close() {
        tmux?.kill()
        tmux = nil
        try? FileManager.default.removeItem(at: base)
    }
}
