import Foundation

/// Headless Chromium (Debian's `chromium`, installed by `make deps`) as a stranger's browser.
public enum Chromium {
    /// The DOM of `url` once it has loaded (pictures included), as Chromium serializes it.
    public static func dumpDOM(_ url: String, timeout: TimeInterval = 90) throws -> String {
        let executable = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let executable else { throw failure("chromium is not installed: `make deps` installs Debian's chromium") }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        // --no-sandbox: the tests may run as root, where Chromium's own sandbox refuses to start.
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                             "--user-data-dir=\(profile.path)", "--virtual-time-budget=5000", "--dump-dom", url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // A browser that hangs must not hang the test: it is killed at the deadline.
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        guard process.terminationStatus == 0 else { throw failure("chromium exited with \(process.terminationStatus) on \(url)") }
        return String(decoding: data, as: UTF8.self)
    }

    private static func failure(_ message: String) -> NSError {
        NSError(domain: "Chromium", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
