import Foundation
import TestSupport
import XCTest

/// The app in a pseudo-terminal that plays a terminal: it answers the start-up questions as
/// kitty does, or as a sixel terminal does, or not at all, and records every byte the app
/// writes. The viewer must then write a kitty image, a sixel image, or only symbols.
///
/// The terminal is a small python3 script (`pty.fork`, `TIOCSWINSZ` with pixel sizes), which
/// keeps the byte-level back and forth in one readable place; it prints what it saw as JSON.
final class ViewerPtyTests: XCTestCase {
    var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: base)
    }

    /// What the fake terminal saw.
    struct Seen: Decodable {
        var asked: Bool
        var viewer: Bool
        var kitty: Bool
        var sixel: Bool
        var iterm: Bool
        var deleted: Bool
        var exited: Bool
        var status: Int?
        var stray: [String]
    }

    /// Runs the app under the fake terminal answering as `answer` (kitty, sixel, split, none).
    func run(answering answer: String, extra: [String] = []) throws -> Seen {
        let binary = try AppHarnessBinary.path()
        let script = base.appendingPathComponent("terminal.py")
        try Self.terminal.write(to: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, answer, binary,
                             "--data-dir", base.appendingPathComponent("club").path,
                             "--download-dir", base.appendingPathComponent("downloads").path] + extra
        process.environment = [
            "HOME": base.appendingPathComponent("home").path,
            "XDG_STATE_HOME": base.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": base.appendingPathComponent("data").path,
            "PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8", "USER": "ray",
            "SWIFT_BACKTRACE": "interactive=no",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        do {
            return try JSONDecoder().decode(Seen.self, from: data)
        } catch {
            XCTFail("the fake terminal said: \(String(decoding: data, as: UTF8.self))")
            throw error
        }
    }

    func testAKittyTerminalGetsAKittyImage() throws {
        let seen = try run(answering: "kitty")
        XCTAssertTrue(seen.asked, "the kitty question was asked")
        XCTAssertTrue(seen.viewer, "the viewer opened")
        XCTAssertTrue(seen.kitty, "a kitty image (ESC _ G a=t …)")
        XCTAssertFalse(seen.sixel)
        XCTAssertTrue(seen.deleted, "closing the viewer deletes it (a=d)")
        XCTAssertTrue(seen.exited)
        XCTAssertEqual(seen.status, 0)
    }

    func testASixelTerminalGetsASixelImage() throws {
        let seen = try run(answering: "sixel")
        XCTAssertTrue(seen.viewer)
        XCTAssertTrue(seen.sixel, "a sixel image (ESC P … q)")
        XCTAssertFalse(seen.kitty)
        XCTAssertEqual(seen.status, 0)
    }

    func testAnswersCutInPiecesAndMixedWithKeysAreNotKeys() throws {
        // The answers arrive in four writes, cut inside the kitty string and inside DA1, with
        // keys (2, v) before and after them.
        let seen = try run(answering: "split")
        XCTAssertTrue(seen.viewer, "2 and v reached the app")
        XCTAssertTrue(seen.kitty)
        XCTAssertEqual(seen.status, 0, "no piece of an answer was taken for q")
    }

    func testATerminalThatAnswersNothingGetsSymbolsOnly() throws {
        let seen = try run(answering: "none")
        XCTAssertTrue(seen.viewer)
        XCTAssertFalse(seen.kitty)
        XCTAssertFalse(seen.sixel)
        XCTAssertFalse(seen.iterm)
        XCTAssertEqual(seen.stray, [], "no escape sequence outside what curses and the questions write")
        XCTAssertEqual(seen.status, 0)
    }

    func testImagesSymbolsAsksNothing() throws {
        let seen = try run(answering: "kitty", extra: ["--images", "symbols"])
        XCTAssertFalse(seen.asked)
        XCTAssertTrue(seen.viewer)
        XCTAssertFalse(seen.kitty)
        XCTAssertEqual(seen.status, 0)
    }

    /// The fake terminal. argv: answer mode, then the command to run.
    static let terminal = #"""
    import fcntl, json, os, pty, re, select, struct, sys, termios, time

    mode, command = sys.argv[1], sys.argv[2:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(command[0], command)
    # 120x36 cells of 10x20 pixels.
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 1200, 720))
    out = bytearray()
    seen = {"asked": False, "viewer": False, "kitty": False, "sixel": False, "iterm": False,
            "deleted": False, "exited": False, "status": None, "stray": []}
    answered = False
    step = "wait-notes"
    viewer_at = None
    closed_at = None
    deadline = time.time() + 60

    def send(data):
        os.write(fd, data)

    def pump(timeout=0.05):
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(fd, 1 << 16)
        except OSError:
            return False
        if not data:
            return False
        out.extend(data)
        return True

    alive = True
    while time.time() < deadline and alive:
        alive = pump()
        text = bytes(out)
        if not answered and b"\x1b[c" in text:
            seen["asked"] = b"\x1b_Gi=31," in text
            answered = True
            if mode == "kitty":
                send(b"\x1b_Gi=31;OK\x1b\\\x1b[6;20;10t\x1b[?62;22c")
            elif mode == "sixel":
                send(b"\x1b_Gi=31;ENOTSUPPORTED\x1b\\\x1b[?62;4;22c")
            elif mode == "split":
                send(b"\x1b_Gi=3")
                time.sleep(0.05)
                send(b"1;O")
                time.sleep(0.05)
                send(b"K\x1b\\\x1b[?62;")
                time.sleep(0.05)
                send(b"22c")
        if step == "wait-notes" and b"Welcome to Byte Club" in text:
            send(b"2")
            step = "wait-photos"
        elif step == "wait-photos" and b"alps-sunrise.jpg" in text:
            start = len(out)
            send(b"v")
            step = "wait-viewer"
        elif step == "wait-viewer" and b"zoom 100%" in text[start:]:
            seen["viewer"] = True
            viewer_at = time.time()
            step = "look"
        elif step == "look":
            shown = text[start:]
            seen["kitty"] = re.search(rb"\x1b_Ga=[tT]", shown) is not None
            seen["sixel"] = re.search(rb"\x1bP[0-9;]*q", shown) is not None
            seen["iterm"] = b"\x1b]1337;File=" in shown
            done = seen["kitty"] or seen["sixel"] or seen["iterm"]
            if done or time.time() - viewer_at > 2.5:
                closing = len(out)
                send(b"\x1b")
                step = "closing"
        elif step == "closing" and b"alps-sunrise.jpg" in text[closing:]:
            # The delete follows curses' frame, perhaps in a later read: give it a moment.
            closed_at = closed_at or time.time()
            seen["deleted"] = b"\x1b_Ga=d" in text[closing:]
            if seen["deleted"] or time.time() - closed_at > 1.5:
                send(b"q")
                step = "quitting"
    if alive:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    else:
        _, status = os.waitpid(pid, 0)
        seen["exited"] = True
        seen["status"] = os.waitstatus_to_exitcode(status)

    # Every escape sequence the app wrote, less what curses, the questions and the pictures write.
    text = bytes(out)
    allowed = [rb"\x1b\[[0-9;?>=]*[A-Za-z@`]", rb"\x1b[()][0-9A-Za-z]", rb"\x1b[78=>MDEHc]", rb"\x1b_Gi=31,[^\x1b]*\x1b\\",
               rb"\x1b_Ga=[^\x1b]*\x1b\\", rb"\x1bP[^\x1b]*\x1b\\", rb"\x1b\]1337;[^\x07]*\x07", rb"\x1b\][0-9]+;[^\x07\x1b]*(\x07|\x1b\\)"]
    rest = re.sub(b"|".join(allowed), b"", text)
    if mode == "none":
        for match in re.finditer(rb"\x1b.{0,12}", rest):
            seen["stray"].append(match.group(0).decode("latin-1"))
        for sequence in (b"\x1b_Ga=", b"\x1bP", b"\x1b]1337"):
            if sequence in text:
                seen["stray"].append(sequence.decode("latin-1"))
    print(json.dumps(seen))
    """#
}

/// Where the built `byteclub` is, or a skip.
enum AppHarnessBinary {
    static func path() throws -> String { try AppHarness.binary.path }
}
