import Foundation
import XCTest

/// A `byteclub serve` in its own process on a random port: named remotes are tested against the
/// real server a club would run, not an in-process one.
public final class ServeProcess {
    private let process = Process()
    /// `http://127.0.0.1:PORT`, or `https://…` for a TLS server.
    public let url: String
    /// The key fingerprint a TLS server printed (`sha256//…`); nil for plain HTTP.
    public let pin: String?
    public var port: Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    /// `log`: where the server's stderr goes, at `--log-level info` (one access line per request), for
    /// tests that check which requests a client made; nil discards it. Plain HTTP (`--insecure-http`)
    /// unless `tls`: then HTTPS with the certificate the server makes under ROOT/.byteclub/tls.
    /// `token` nil: no shared token given (members only, or the one kept in ROOT/.byteclub/token).
    /// `arguments`: more of serve's options (`--member bob=TOKEN`).
    public init(root: URL, token: String?, log: URL? = nil, tls: Bool = false, arguments: [String] = []) throws {
        let executable = try Requirement.byteclub()
        let output = Pipe()
        process.executableURL = executable
        process.arguments = ["serve"] + (tls ? [] : ["--insecure-http"]) + ["--root", root.path, "--create", "--port", "0", "--log-level", log == nil ? "warning" : "info"]
            + arguments
        var environment = ProcessInfo.processInfo.environment
        // The token through the environment, where `ps` does not show it.
        environment["BYTECLUB_TOKEN"] = token
        process.environment = environment
        process.standardOutput = output
        // Its stderr goes to `log`, else to a file of its own, read if it does not start: the
        // failure then says why (a port, a folder, a crash), not only that it did not.
        let said = log ?? FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: said.path, contents: nil)
        defer { if log == nil { try? FileManager.default.removeItem(at: said) } }
        process.standardError = try FileHandle(forWritingTo: said)
        try process.run()
        // Its first line says where it listens (a TLS server's second, its key); read them with
        // a deadline, never a blocking read.
        let deadline = Date().addingTimeInterval(30)
        var text = ""
        while text.filter({ $0 == "\n" }).count < (tls ? 2 : 1) && Date() < deadline {
            var ready = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.range(of: tls ? #"https://127\.0\.0\.1:\d+"# : #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
            let state = process.isRunning ? "still not listening after 30 s" : "exited with status \(process.terminationStatus)"
            process.terminate()
            let errors = (try? String(contentsOf: said, encoding: .utf8)).map { String($0.suffix(2_000)) } ?? ""
            throw CouldNotCheck("byteclub serve did not start (\(state)): \(text)\(errors)")
        }
        url = String(text[match])
        pin = text.range(of: #"sha256//[A-Za-z0-9+/=]+"#, options: .regularExpression).map { String(text[$0]) }
    }

    /// Whether the server is still running.
    public var isRunning: Bool { process.isRunning }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
