import Foundation

/// Makes a congestion control settable inside the bench's namespaces for the run, and puts
/// the host back as it was afterwards.
///
/// Outside the initial network namespace the kernel lets a namespace choose only algorithms
/// listed in the initial namespace's `net.ipv4.tcp_allowed_congestion_control` (here `reno bbr`
/// by default); anything else is refused with EPERM. Root in the initial namespace may add to
/// that list, so the bench adds what it needs when the kernel has it (it is in
/// `tcp_available_congestion_control`, or loads as module `tcp_<name>`) and restores the old list
/// on every exit, Ctrl-C included.
final class AllowedCongestionControl: @unchecked Sendable {
    // @unchecked Sendable: `saved` is read and cleared under `lock`, from the main thread or
    // the signal queue.
    static let allowedPath = "/proc/sys/net/ipv4/tcp_allowed_congestion_control"
    static let availablePath = "/proc/sys/net/ipv4/tcp_available_congestion_control"
    private let lock = NSLock()
    private var saved: String?

    /// Adds `names` to the allowed list where available and not yet allowed; returns a line
    /// saying what it did (nil when nothing was needed).
    func allow(_ names: [String]) -> String? {
        guard let allowed = Self.read(Self.allowedPath) else { return nil }
        var list = allowed.split(separator: " ").map(String.init)
        var added: [String] = []
        for name in names where !list.contains(name) {
            if !(Self.read(Self.availablePath)?.split(separator: " ").contains(Substring(name)) ?? false) {
                // Built as a module: loading it makes it available.
                _ = WANLink.run(["modprobe", "tcp_\(name)"])
            }
            guard Self.read(Self.availablePath)?.split(separator: " ").contains(Substring(name)) == true else { continue }
            list.append(name)
            added.append(name)
        }
        guard !added.isEmpty else { return nil }
        let result = WANLink.run(["sysctl", "-w", "net.ipv4.tcp_allowed_congestion_control=\(list.joined(separator: " "))"])
        guard result.status == 0 else {
            return "could not allow \(added.joined(separator: ", ")) for namespaces: \(result.output.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
        lock.lock()
        saved = allowed
        lock.unlock()
        return "allowed \(added.joined(separator: ", ")) for network namespaces for this run (net.ipv4.tcp_allowed_congestion_control was \"\(allowed)\"; restored at exit)"
    }

    /// Puts the allowed list back as it was; safe twice.
    func restore() {
        lock.lock()
        let old = saved
        saved = nil
        lock.unlock()
        guard let old else { return }
        _ = WANLink.run(["sysctl", "-w", "net.ipv4.tcp_allowed_congestion_control=\(old)"])
    }

    private static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
