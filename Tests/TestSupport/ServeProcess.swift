import Foundation
import XCTest

/// A `byteclub serve` in its own process on a random port: named remotes are tested against the
/// real server a club would run, not an in-process one.
public final class ServeProcess {
    private let process = Process()
    /// `http://127.0.0.1:PORT`.
    public let url: String

    /// `log`: where the server's stderr goes, at `--log-level info` (one access line per request), for
    /// tests that check which requests a client made; nil discards it. `extra`: more of serve's
    /// options (`--member bob=TOKEN`).
    public init(root: URL, token: String, log: URL? = nil, extra: [String] = []) throws {
        guard let executable = BuiltExecutable.byteclub else { throw XCTSkip("the byteclub executable is not built") }
        let output = Pipe()
        process.executableURL = executable
        process.arguments = ["serve", "--root", root.path, "--port", "0", "--token", token, "--log-level", log == nil ? "warning" : "info"] + extra
        process.standardOutput = output
        if let log {
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        // Its first line says where it listens; read it with a deadline, never a blocking read.
        let deadline = Date().addingTimeInterval(20)
        var text = ""
        while !text.contains("\n") && Date() < deadline {
            var ready = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
            process.terminate()
            throw XCTSkip("byteclub serve did not start: \(text)")
        }
        url = String(text[match])
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
