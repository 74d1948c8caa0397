#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `rclone serve webdav` over a temp folder, on a random loopback port, with a user and a
/// password: the WebDAV server the tests and benchmarks run against (`make deps` installs rclone).
/// Tests reach it through TestSupport.
///
/// Tests serve the folder with `--dir-cache-time 0s`, so a file a test writes straight to disk
/// shows up in the next listing; that makes rclone read the folder again for every file it
/// answers about (a PROPFIND of 2,000 files takes a minute), so benchmarks, which write only
/// through WebDAV, keep rclone's default cache (`dirCacheTime: nil`). `stop()` ends the server;
/// the folder goes with `remove()`.
public final class RcloneWebDAV: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` set in init; Process is only
    // touched again by `stop()`, which terminate()/waitUntilExit() make safe to call twice.
    public let base: URL
    /// The served folder (the WebDAV root).
    public let root: URL
    public let port: Int
    public let user: String
    public let password: String
    private let process: Process

    /// rclone on PATH (or /usr/bin), or nil when it is not installed.
    public static var executable: URL? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        return paths.map { URL(fileURLWithPath: $0).appendingPathComponent("rclone") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Starts the server with `--dir-cache-time 0s` (files written to disk show at once) and
    /// waits (up to `deadline` seconds) until it accepts connections.
    /// `port` (nil: a free one) starts it again where an earlier server of the same `root` listened.
    public convenience init(user: String = "member", password: String = "pw-\(UUID().uuidString.prefix(8))", root: URL? = nil,
                            port: Int? = nil, deadline: TimeInterval = 15) throws {
        try self.init(user: user, password: password, root: root, dirCacheTime: "0s", port: port, deadline: deadline)
    }

    /// Starts the server with rclone's directory cache at `dirCacheTime` (nil: rclone's default)
    /// and waits (up to `deadline` seconds) until it accepts connections. `flags` go to
    /// `rclone serve webdav` as they are (`--read-only`).
    public init(user: String = "member", password: String = "pw-\(UUID().uuidString.prefix(8))", root: URL? = nil,
                dirCacheTime: String?, port fixedPort: Int? = nil, deadline: TimeInterval = 15, flags: [String] = []) throws {
        guard let rclone = Self.executable else { throw FixtureError("rclone is not installed (make deps)") }
        self.user = user
        self.password = password
        base = FileManager.default.temporaryDirectory.appendingPathComponent("rclone-webdav-\(UUID().uuidString)")
        self.root = root ?? base.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)
        // The config and log live in `base`, which a given `root` is not inside.
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let config = base.appendingPathComponent("rclone.conf")
        FileManager.default.createFile(atPath: config.path, contents: Data())
        var lastError = "rclone did not start"
        // A free port, then rclone on it; another process may take it between the two, so try again.
        for _ in 0..<5 {
            let port = try fixedPort ?? LoopbackPort.free()
            let process = Process()
            process.executableURL = rclone
            process.arguments = ["serve", "webdav", self.root.path, "--addr", "127.0.0.1:\(port)", "--user", user, "--pass", password,
                                 "--config", config.path, "--log-level", "ERROR"] + (dirCacheTime.map { ["--dir-cache-time", $0] } ?? []) + flags
            let log = base.appendingPathComponent("rclone-\(port).log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: log)
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let until = Date().addingTimeInterval(deadline)
            while Date() < until, process.isRunning, !Self.accepts(port: port) {
                usleep(20_000)
            }
            if process.isRunning, Self.accepts(port: port) {
                self.port = port
                self.process = process
                return
            }
            process.terminate()
            process.waitUntilExit()
            lastError = (try? String(contentsOf: log, encoding: .utf8)) ?? lastError
        }
        throw FixtureError("rclone serve webdav did not start: \(lastError)")
    }

    deinit { stop() }

    /// The WebDAV root's URL.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Stops the server and deletes its folder.
    public func remove() {
        stop()
        try? FileManager.default.removeItem(at: base)
    }

    /// A file in the served folder, by its path below the root ("byteclub/a.txt").
    public func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// Runs `curl` against the server (the other member's hand), returning its exit status.
    @discardableResult
    public func curl(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-f", "-u", "\(user):\(password)"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// A fixture that could not be set up, with the reason.
public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A loopback port nothing listens on: bound once to learn a free one, then closed (a server
/// started on it next, or an address where nothing answers).
public enum LoopbackPort {
    public static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw FixtureError("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
