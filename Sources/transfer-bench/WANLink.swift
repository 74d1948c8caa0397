import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Two network namespaces joined by an emulated link: `bc-wan-c` (the client, 10.77.0.1) and
/// `bc-wan-s` (the servers, 10.77.1.1), each with one tun device whose other end is the link
/// emulator (`scripts/wan/linkemu.c`, built here with cc) running in the host namespace.
///
/// The emulator holds each packet for the one-way delay, drops the given share at random and
/// paces to the rate behind a drop-tail queue of one BDP, so TCP in the namespaces sees real
/// loss, queueing and delay. The same emulator is used whether or not the kernel has
/// `sch_netem`, so figures from different machines compare; `netemNote` says whether it had.
///
/// `tearDown()` kills the emulator and deletes both namespaces; the bench calls it on every
/// exit, Ctrl-C included.
final class WANLink: @unchecked Sendable {
    // @unchecked Sendable: `emulator` is set once in `start` before the link is shared, and
    // `tearDown` (main thread or the signal queue) is made idempotent by `lock`.
    static let client = "bc-wan-c"
    static let server = "bc-wan-s"
    static let clientAddress = "10.77.0.1"
    static let serverAddress = "10.77.1.1"

    let rttMs: Double
    let lossPercent: Double
    let rateMbit: Double
    private var emulator: Process?
    private var emulatorErrors = Pipe()
    private let lock = NSLock()
    private var down = false

    init(rttMs: Double, lossPercent: Double, rateMbit: Double) {
        self.rttMs = rttMs
        self.lossPercent = lossPercent
        self.rateMbit = rateMbit
    }

    /// Why this machine cannot run the bench, or nil when it can.
    static func unavailable() -> String? {
        guard getuid() == 0 else { return "needs root (network namespaces and tun devices)" }
        guard FileManager.default.fileExists(atPath: "/dev/net/tun") else { return "no /dev/net/tun" }
        guard run(["ip", "netns", "add", "bc-wan-probe"]).status == 0 else { return "cannot create a network namespace (ip netns add)" }
        _ = run(["ip", "netns", "del", "bc-wan-probe"])
        guard run(["cc", "--version"]).status == 0 else { return "no C compiler (cc) for the link emulator" }
        return nil
    }

    /// Whether `tc qdisc … netem` works here, said in a line for the report.
    static func netemNote() -> String {
        _ = run(["ip", "netns", "add", "bc-wan-probe"])
        defer { _ = run(["ip", "netns", "del", "bc-wan-probe"]) }
        let probe = run(["ip", "netns", "exec", "bc-wan-probe", "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"])
        if probe.status == 0 { return "sch_netem is present; the bench still uses its own emulator so figures compare across machines" }
        return "no sch_netem here (tc: \(probe.output.trimmingCharacters(in: .whitespacesAndNewlines))); using the bench's tun link emulator"
    }

    /// Builds the emulator from its C source into `directory`.
    static func buildEmulator(source: String, into directory: URL) throws -> String {
        let binary = directory.appendingPathComponent("linkemu").path
        let result = run(["cc", "-O2", "-o", binary, source])
        guard result.status == 0 else { throw BenchError("cannot build the link emulator from \(source): \(result.output)") }
        return binary
    }

    /// Creates the namespaces, starts the emulator and wires the addresses and routes.
    func start(emulatorBinary: String) throws {
        tearDownNamespaces()
        for namespace in [Self.client, Self.server] {
            try check(["ip", "netns", "add", namespace])
            try check(["ip", "-n", namespace, "link", "set", "lo", "up"])
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: emulatorBinary)
        process.arguments = ["bcwanc0", "bcwans0", "--rtt-ms", "\(rttMs)", "--loss", "\(lossPercent)", "--rate-mbit", "\(rateMbit)", "--seed", "1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = emulatorErrors
        try process.run()
        emulator = process
        // Its first line says both tun devices are open.
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("ready") else { throw BenchError("the link emulator did not start: \(line)") }
        FileHandle.standardError.write(Data("wan: link emulator \(line)".utf8))
        for (device, namespace, address, peer) in [("bcwanc0", Self.client, Self.clientAddress, "10.77.1.0/30"),
                                                   ("bcwans0", Self.server, Self.serverAddress, "10.77.0.0/30")] {
            try check(["ip", "link", "set", device, "netns", namespace])
            try check(["ip", "-n", namespace, "addr", "add", address + "/30", "dev", device])
            try check(["ip", "-n", namespace, "link", "set", device, "up"])
            try check(["ip", "-n", namespace, "route", "add", peer, "dev", device])
        }
    }

    /// Sets both namespaces' congestion control; nil when done, else the kernel's refusal.
    func setCongestionControl(_ name: String) -> String? {
        for namespace in [Self.client, Self.server] {
            let result = Self.run(["ip", "netns", "exec", namespace, "sysctl", "-w", "net.ipv4.tcp_congestion_control=\(name)"])
            if result.status != 0 { return result.output.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        return nil
    }

    /// Stops the emulator (printing its counters) and removes both namespaces; safe twice.
    func tearDown() {
        lock.lock()
        let first = !down
        down = true
        lock.unlock()
        guard first else { return }
        if let emulator, emulator.isRunning {
            emulator.interrupt()
            emulator.waitUntilExit()
            let counters = emulatorErrors.fileHandleForReading.availableData
            FileHandle.standardError.write(counters)
        }
        tearDownNamespaces()
    }

    private func tearDownNamespaces() {
        for namespace in [Self.client, Self.server] { _ = Self.run(["ip", "netns", "del", namespace]) }
    }

    private func check(_ arguments: [String]) throws {
        let result = Self.run(arguments)
        guard result.status == 0 else { throw BenchError("\(arguments.joined(separator: " ")): \(result.output)") }
    }

    /// Runs a short command to its end; its status and its stdout and stderr together.
    @discardableResult
    static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (127, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
