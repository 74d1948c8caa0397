import Foundation
import TestSupport
import XCTest

/// The built `byteclub`, run with no subcommand in a real terminal (tmux, 120×36) against the
/// embedded club server over temp `HOME`/`XDG_*` dirs and `--data-dir`.
final class AppEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var base: URL { app.base }
    var club: URL { app.club }
    static var executable: URL? { BuiltExecutable.byteclub }

    /// The app in tmux; the tty is left as the app leaves it, which this suite checks.
    func launch() throws -> TmuxSession {
        try app.launch(["--data-dir", club.path], resetTTY: false)
    }

    func testTabsHelpResizeAndQuit() throws {
        let tmux = try launch()

        // The first screen: both tabs, and the sample club's welcome note, seeded on first run.
        var screen = tmux.waitFor(all: ["Welcome to Byte Club", "Notes", "PanoPhotos", "embedded"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: club.appendingPathComponent("byteclub/Welcome to Byte Club.txt").path))

        // 2 switches to the photos.
        try tmux.type("2")
        tmux.waitFor("the photos in place of the notes") { $0.contains("alps-sunrise") && !$0.contains("Welcome to Byte Club") }
        try tmux.type("1")
        tmux.waitFor("Welcome to Byte Club")

        // ? opens help, Esc closes it.
        try tmux.type("?")
        tmux.waitFor(all: ["Show this help", "PanoPhotos tab"])
        try tmux.press("Escape")
        tmux.waitFor("help closed") { !$0.contains("Show this help") && $0.contains("Welcome to Byte Club") }

        // Resizes at any moment: smaller, too small, and back.
        try tmux.resize(width: 50, height: 12)
        tmux.waitFor("the 50×12 layout") { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return screen.contains("Welcome to Byte Club") && screen.contains("? help") && lines.allSatisfy { $0.count <= 50 }
        }
        try tmux.resize(width: 20, height: 5)
        tmux.waitFor("Terminal too small")
        try tmux.resize(width: 120, height: 36)
        screen = tmux.waitFor("the 120×36 layout") { $0.contains("Welcome to Byte Club") && $0.contains("PanoPhotos") && !$0.contains("too small") }
        XCTAssertEqual(tmux.currentCommand(), "byteclub")
        // Still answering keys after all that.
        try tmux.type("2")
        tmux.waitFor("alps-sunrise")

        // q quits at once (nothing unsaved, no transfers), and the shell is back, in cooked mode.
        try tmux.type("q")
        screen = tmux.waitFor(app.exitLine(0))
        XCTAssertFalse(screen.contains("PanoPhotos"), "the alternate screen is gone:\n\(screen)")
        tmux.waitFor("the shell in the foreground") { _ in tmux.currentCommand() == "sh" }
        // The answers are quoted in the command, so the shell's echo of the typed line is not one.
        try tmux.type("case \"$(stty -a)\" in *-icanon*) echo TTY-\"RAW\";; *) echo TTY-\"COOKED\";; esac")
        try tmux.press("Enter")
        screen = tmux.waitFor("the tty's mode") { $0.contains("TTY-COOKED") || $0.contains("TTY-RAW") }
        XCTAssertTrue(screen.contains("TTY-COOKED"), screen)

        // The log went to the state dir, not the screen.
        let log = try String(contentsOf: base.appendingPathComponent("state/byteclub/byteclub.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("loaded notes"), log)
    }

    func testDumbTerminalOrNoTTYIsAClearError() throws {
        let binary = try Requirement.byteclub()
        for term in ["dumb", "xterm-256color"] {
            let process = Process()
            process.executableURL = binary
            process.arguments = ["--data-dir", club.path]
            process.environment = ["HOME": base.appendingPathComponent("home").path, "TERM": term, "PATH": "/usr/bin:/bin",
                                   "XDG_STATE_HOME": base.appendingPathComponent("state").path, "SWIFT_BACKTRACE": "interactive=no"]
            let errors = Pipe()
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = Pipe()
            process.standardError = errors
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertNotEqual(process.terminationStatus, 0)
            XCTAssertTrue(text.hasPrefix("byteclub: the terminal UI needs a terminal"), text)
            XCTAssertEqual(text.filter { $0 == "\n" }.count, 1, "one line: \(text)")
        }
    }

    func testDumbTermInATerminalIsAClearError() throws {
        let binary = try Requirement.byteclub()
        let tmux = try TmuxSession(width: 120, height: 36, environment: [
            "HOME": base.appendingPathComponent("home").path, "PATH": "/usr/bin:/bin", "PS1": "e2e> ",
            "XDG_STATE_HOME": base.appendingPathComponent("state").path, "SWIFT_BACKTRACE": "interactive=no",
        ])
        defer { tmux.kill() }
        tmux.waitFor("e2e>")
        try tmux.type("TERM=dumb \(TmuxSession.quote(binary.path)) --data-dir \(TmuxSession.quote(club.path)); echo \"EXIT=$?\"")
        try tmux.press("Enter")
        let screen = tmux.waitFor("EXIT=2")
        XCTAssertTrue(screen.contains("byteclub: the terminal UI cannot run with TERM=dumb"), screen)
    }
}
