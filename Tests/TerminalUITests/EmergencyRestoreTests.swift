import CNcursesw
import CTerminalShim
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The crash path's C shim, short of crashing: what it writes and restores, and how it installs.
///
/// The handler itself only runs when the process dies, so these tests drive its two halves
/// directly: ``bc_emergency_restore()`` (the first thing the handler does) against a pseudo-terminal
/// standing in for the user's terminal, and the install bookkeeping that decides which handler a
/// crash is handed to afterwards. Every test leaves the process's signal handlers as it found them.
final class EmergencyRestoreTests: XCTestCase {
    private let fatalSignals = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]

    override func tearDown() {
        bc_emergency_uninstall()
        super.tearDown()
    }

    func testRestoreWritesTheResetBytesAndPutsBackTheSavedTermios() throws {
        let pty = try PseudoTerminal()
        var err: Int32 = 0
        guard setupterm("xterm-256color", pty.follower, &err) == bc_OK() else {
            try Requirement.tool(false, "no terminfo entry for xterm-256color (ncurses-term; make deps)")
            return
        }
        let cooked = try pty.attributes()
        XCTAssertNotEqual(cooked.c_lflag & tcflag_t(ECHO | ICANON), 0, "a new pty starts cooked")

        bc_emergency_save_terminal(pty.follower, pty.follower)
        bc_emergency_save_reset()
        try pty.makeRaw()
        bc_emergency_install()
        bc_emergency_restore()

        var expected = Array("\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1006l\u{1B}[?2004l".utf8)
        for capability in ["sgr0", "rmkx", "cnorm", "rmcup"] {
            guard let value = tigetstr(capability), Int(bitPattern: value) != -1 else { continue }
            expected += Array(String(cString: value).utf8)
        }
        XCTAssertGreaterThan(expected.count, 32, "xterm-256color adds sgr0, cnorm and rmcup to the mouse reset")
        XCTAssertEqual(try pty.read(count: expected.count), expected)
        XCTAssertEqual(try pty.attributes().c_lflag, cooked.c_lflag, "termios is the one saved before curses")

        // Restoring is one-shot: a second crash signal while handing over must not write again.
        try pty.makeRaw()
        bc_emergency_restore()
        XCTAssertEqual(try pty.attributes().c_lflag & tcflag_t(ECHO | ICANON), 0)
    }

    func testDisarmedRestoreLeavesTheTerminalAlone() throws {
        let pty = try PseudoTerminal()
        bc_emergency_save_terminal(pty.follower, pty.follower)
        try pty.makeRaw()
        bc_emergency_install()
        bc_emergency_disarm()
        bc_emergency_restore()
        XCTAssertEqual(try pty.attributes().c_lflag & tcflag_t(ECHO | ICANON), 0, "the ordinary exit already restored it")
    }

    func testInstallTwiceStillHandsTheCrashToTheHandlerThatWasThereBefore() {
        let before = fatalSignals.map(currentHandler)
        for signal in fatalSignals { XCTAssertEqual(bc_emergency_handles(signal), 0) }

        bc_emergency_install()
        bc_emergency_install()
        for signal in fatalSignals { XCTAssertEqual(bc_emergency_handles(signal), 1, "signal \(signal)") }

        // Had the second install saved the first one's handler as "previous", this would put the
        // emergency handler back, and a crash would raise into it forever.
        bc_emergency_uninstall()
        for signal in fatalSignals { XCTAssertEqual(bc_emergency_handles(signal), 0, "signal \(signal)") }
        XCTAssertEqual(fatalSignals.map(currentHandler), before)
    }

    /// The handler of `signal` as an address, to compare before and after.
    private func currentHandler(_ signal: Int32) -> Int {
        var action = sigaction()
        _ = sigaction(signal, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }
}

/// A pseudo-terminal pair: the test reads what the code under test writes to `follower`.
private final class PseudoTerminal {
    let leader: Int32
    let follower: Int32

    init() throws {
        // Swift's Glibc module is built without _XOPEN_SOURCE, so the pty calls are looked up by name.
        let openpt: @convention(c) (Int32) -> Int32 = try libc("posix_openpt")
        let grantpt: @convention(c) (Int32) -> Int32 = try libc("grantpt")
        let unlockpt: @convention(c) (Int32) -> Int32 = try libc("unlockpt")
        let ptsname: @convention(c) (Int32) -> UnsafeMutablePointer<CChar>? = try libc("ptsname")
        leader = openpt(O_RDWR | O_NOCTTY)
        guard leader >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        guard grantpt(leader) == 0, unlockpt(leader) == 0, let name = ptsname(leader) else {
            close(leader)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        follower = open(name, O_RDWR | O_NOCTTY)
        guard follower >= 0 else {
            close(leader)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
    }

    deinit {
        close(follower)
        close(leader)
    }

    func attributes() throws -> termios {
        var t = termios()
        guard tcgetattr(follower, &t) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return t
    }

    /// What curses does to the terminal: no echo, no line editing.
    func makeRaw() throws {
        var t = try attributes()
        cfmakeraw(&t)
        guard tcsetattr(follower, TCSANOW, &t) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    /// Reads `count` bytes from the leader side, waiting at most two seconds in all.
    func read(count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let deadline = DispatchTime.now() + .seconds(2)
        while bytes.count < count, DispatchTime.now() < deadline {
            var pfd = pollfd(fd: leader, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: count - bytes.count)
            let n = Glibc.read(leader, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        return bytes
    }
}

/// The C library function `name`, typed as `F`.
private func libc<F>(_ name: String) throws -> F {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
        throw CouldNotCheck("the C library has no \(name)")
    }
    return unsafeBitCast(symbol, to: F.self)
}
