import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The result of running one child process.
struct ChildRun {
    var exitStatus: Int32
    var wallSeconds: Double
    /// The child's own peak RSS (VmHWM), polled from /proc while it runs. `wait4`'s
    /// `ru_maxrss` cannot be used: with posix_spawn's vfork it includes this parent's RSS.
    var peakRSSBytes: Int64
    var stdout: String
}

/// Runs a program, waits for it with `wait4` to learn its peak RSS, and captures stdout.
func spawnAndMeasure(_ arguments: [String]) throws -> ChildRun {
    var pipeFDs: [Int32] = [0, 0]
    guard pipe(&pipeFDs) == 0 else { throw BenchError("pipe failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
    posix_spawn_file_actions_addclose(&actions, pipeFDs[0])

    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
    close(pipeFDs[1])
    guard spawned == 0 else {
        close(pipeFDs[0])
        throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
    }
    let poller = HighWaterPoller(pid: pid)
    poller.start()
    var output = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(pipeFDs[0], &buffer, buffer.count)
        if count > 0 { output.append(contentsOf: buffer[0..<count]) } else if count == 0 || errno != EINTR { break }
    }
    close(pipeFDs[0])
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let end = DispatchTime.now().uptimeNanoseconds
    let peak = poller.stop()
    let exited = (status & 0x7f) == 0
    return ChildRun(
        exitStatus: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
        wallSeconds: Double(end - start) / 1e9,
        peakRSSBytes: peak,
        stdout: String(decoding: output, as: UTF8.self))
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Parses sizes such as "1GiB", "256MiB", "100MB" or "4096".
func parseSize(_ text: String) -> Int64? {
    let units: [(String, Int64)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1000), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)]
    for (suffix, factor) in units where text.hasSuffix(suffix) {
        return Double(text.dropLast(suffix.count)).map { Int64($0 * Double(factor)) }
    }
    return Int64(text)
}

/// Reads a process's VmHWM (peak resident set of its current image) every 2 ms.
final class HighWaterPoller: @unchecked Sendable {
    // @unchecked Sendable: `peak` and `running` are only touched under `lock`.
    private let pid: pid_t
    private let lock = NSLock()
    private var peak: Int64 = 0
    private var running = true
    private let finished = DispatchSemaphore(value: 0)

    init(pid: pid_t) { self.pid = pid }

    func start() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                if let value = Self.highWater(pid) { lock.withLock { peak = max(peak, value) } }
                usleep(2000)
            }
            finished.signal()
        }
    }

    func stop() -> Int64 {
        lock.withLock { running = false }
        finished.wait()
        return lock.withLock { peak }
    }

    /// VmHWM of `pid` in bytes, or nil once the process is gone.
    static func highWater(_ pid: pid_t) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.dropFirst(6).filter(\.isNumber)
            return Int64(digits).map { $0 * 1024 }
        }
        return nil
    }
}

/// This process's own peak RSS, read at the end of a run.
func ownPeakRSSBytes() -> Int64? {
    HighWaterPoller.highWater(getpid())
}
