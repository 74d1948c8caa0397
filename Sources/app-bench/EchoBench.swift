import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Key echo in a real terminal: the built `byteclub` in a pseudo-terminal, a key written to the
/// master side, and the time until the terminal output carries the echoed character. Measured
/// with the app idle, then while a 1 GiB upload runs in the background.
enum EchoBench {
    /// The pty's output, as it arrives, read on a thread of its own: the bytes, and when each
    /// read returned them (as a terminal's own read would see them).
    final class Output: Sendable {
        private let state = Mutex((bytes: [UInt8](), total: 0, arrivals: [(end: Int, at: ContinuousClock.Instant)]()))

        func append(_ chunk: ArraySlice<UInt8>) {
            let now = ContinuousClock.now
            state.withLock {
                $0.bytes.append(contentsOf: chunk)
                $0.total += chunk.count
                $0.arrivals.append(($0.total, now))
                if $0.bytes.count > 1 << 20 { $0.bytes.removeFirst($0.bytes.count - (1 << 19)) }
                if $0.arrivals.count > 8192 { $0.arrivals.removeFirst(4096) }
            }
        }

        /// When the read that brought the byte at stream position `offset` returned.
        func arrival(ofByteAt offset: Int) -> ContinuousClock.Instant? {
            state.withLock { state in state.arrivals.first { $0.end > offset }?.at }
        }

        /// Everything after byte `offset` of the stream (as far as it is still kept).
        func since(_ offset: Int) -> (text: [UInt8], end: Int) {
            state.withLock { state in
                let kept = state.total - state.bytes.count
                let start = max(0, offset - kept)
                return (Array(state.bytes[min(start, state.bytes.count)...]), state.total)
            }
        }

        var total: Int { state.withLock { $0.total } }
    }

    final class PTYApp {
        let master: Int32
        let pid: pid_t
        let output = Output()

        init(binary: String, arguments: [String], environment: [String: String]) throws {
            // posix_openpt, unlockpt and ptsname are hidden behind _XOPEN_SOURCE in Glibc's module;
            // they are these calls on Linux: open the multiplexer, unlock, ask for the number.
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            var unlock: Int32 = 0, number: UInt32 = 0
            let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
            guard master >= 0, ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
                throw BenchError("cannot open a pseudo-terminal")
            }
            var size = winsize(ws_row: 36, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &size)
            let slave = "/dev/pts/\(number)"
            // A session of its own: opening the pty slave then makes it the controlling terminal.
            let masterSide = master
            pid = try spawnInNewSession([binary] + arguments, environment: environment.map { "\($0.key)=\($0.value)" }) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR, 0)
                posix_spawn_file_actions_adddup2(&actions, 0, 1)
                posix_spawn_file_actions_adddup2(&actions, 0, 2)
                posix_spawn_file_actions_addclose(&actions, masterSide)
            }
            let fd = master, output = self.output
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let n = read(fd, &buffer, buffer.count)
                    if n <= 0 { break }
                    output.append(buffer[0..<n])
                }
            }
        }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        }

        /// Waits until the output after `offset` contains `needle`; returns the stream position.
        @discardableResult
        func waitFor(_ needle: String, after offset: Int = 0, timeout: TimeInterval = 30) throws -> Int {
            try waitForMatch(needle, after: offset, timeout: timeout).end
        }

        /// Waits until the output after `offset` contains `needle`; returns where it begins in
        /// the stream, and the stream position when it was seen.
        func waitForMatch(_ needle: String, after offset: Int = 0, timeout: TimeInterval = 30) throws -> (at: Int, end: Int) {
            let pattern = Array(needle.utf8)
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                let (text, end) = output.since(offset)
                if text.count >= pattern.count,
                   let first = (0...(text.count - pattern.count)).first(where: { text[$0..<($0 + pattern.count)].elementsEqual(pattern) }) {
                    return (end - text.count + first, end)
                }
                usleep(200)
            }
            let tail = String(decoding: output.since(max(offset, output.total - 600)).text, as: UTF8.self)
            throw BenchError("timed out waiting for “\(needle)” on the pty; the last output: \(tail.debugDescription)")
        }

        private var stopped = false

        /// SIGTERM and the exit waited for; a second call does nothing.
        func stop() {
            guard !stopped else { return }
            stopped = true
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            close(master)
        }
    }

    /// Types `count` keys into the open editor, one every `gap`, timing each echo.
    static func measure(_ app: PTYApp, count: Int, while condition: () -> Bool = { true }) throws -> [Double] {
        var samples: [Double] = []
        for _ in 0..<count {
            guard condition() else { break }
            let offset = app.output.total
            let start = ContinuousClock.now
            app.send("Q")
            // Timed to the read that brought the echo, not to when this loop looked: the loop
            // polls, and under load its own wake-ups would be counted as the app's.
            let echo = try app.waitForMatch("Q", after: offset, timeout: 5)
            samples.append(milliseconds(from: start, to: app.output.arrival(ofByteAt: echo.at) ?? .now))
            usleep(15_000)
        }
        return samples.sorted()
    }

    static func run(size: Int64) async throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binary = executable.deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("build byteclub next to app-bench first (swift build -c release --product byteclub)")
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-echo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let file = try await AppBench.bigFile(size, in: base)
        let environment = [
            "HOME": base.path, "TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
            "XDG_STATE_HOME": base.appendingPathComponent("state").path, "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": base.appendingPathComponent("data").path, "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
        ]
        let app = try PTYApp(binary: binary, arguments: ["--data-dir", base.appendingPathComponent("club").path,
                                                          "--download-dir", base.appendingPathComponent("downloads").path],
                             environment: environment)
        defer { app.stop() }
        try app.waitFor("Welcome")

        // Idle: a new note, then keys.
        app.send("n")
        try app.waitFor("Title")
        app.send("Idle\r")
        let idle = try measure(app, count: 100)
        app.send("\u{1B}")
        try app.waitFor("iscard")  // the D is underlined (its hotkey), so it is sent apart
        app.send("d")

        // A background upload at full loopback speed, then the same keys in a new note.
        var offset = app.output.total
        app.send("2")
        try app.waitFor("alps", after: offset)
        app.send("u")
        offset = try app.waitFor("photo", after: offset)
        app.send(file.path + "\r")
        try app.waitFor("background", after: offset)
        app.send("b")
        app.send("1")
        offset = app.output.total
        app.send("n")
        try app.waitFor("Title", after: offset)
        app.send("Busy\r")
        let uploadStart = app.output.total
        let busy = try measure(app, count: 100) {
            // Only keys typed while the upload runs count.
            !String(decoding: app.output.since(uploadStart).text, as: UTF8.self).contains("Uploaded")
        }

        print("app-bench echo: key to echo in a pty (byteclub, 120×36, xterm-256color), note editor open")
        print(row(["while", "keys", "median ms", "p99 ms", "max ms"], [34, 6, 10, 8, 8]))
        for (label, samples) in [("idle", idle), ("a \(DisplayFormatting.size(size)) upload in the background", busy)] {
            print(row([label, "\(samples.count)", String(format: "%.2f", percentile(samples, 0.5)),
                       String(format: "%.2f", percentile(samples, 0.99)), String(format: "%.2f", samples.last ?? 0)], [34, 6, 10, 8, 8]))
        }
        print("")
    }
}

/// Sizes for labels, without the app's formatter (this file does not need the app).
enum DisplayFormatting {
    static func size(_ bytes: Int64) -> String {
        bytes >= 1 << 30 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
    }
}

/// Starts `arguments` (the executable first) in a session of its own, its standard streams as
/// `files` sets them up (posix_spawn's file actions), with `environment` or this process's own;
/// the child's pid.
func spawnInNewSession(_ arguments: [String], environment: [String]? = nil,
                       files: (inout posix_spawn_file_actions_t) -> Void) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    let POSIX_SPAWN_SETSID: Int16 = 0x80  // glibc ≥ 2.26
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    files(&actions)
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { $0.map { strdup($0) } + [nil] }
    defer {
        for pointer in argv { free(pointer) }
        for pointer in envp ?? [] { free(pointer) }
    }
    var child: pid_t = 0
    let status = envp.map { envp in posix_spawn(&child, arguments[0], &actions, &attributes, argv, envp) }
        ?? posix_spawn(&child, arguments[0], &actions, &attributes, argv, environ)
    guard status == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(status)))") }
    return child
}
