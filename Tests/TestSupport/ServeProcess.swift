import Foundation
import XCTest

/// A `byteclub serve` in its own process on a random port: named remotes are tested against the
/// real server a club would run, not an in-process one.
public final class ServeProcess {
    private let process: Process
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
        var environment = ProcessInfo.processInfo.environment
        // The token through the environment, where `ps` does not show it.
        environment["BYTECLUB_TOKEN"] = token
        if let log { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        // Its first line says where it listens (a TLS server's second, its key).
        let launched = try MemberServe.launch(
            ["serve"] + (tls ? [] : ["--insecure-http"]) + ["--root", root.path, "--create", "--port", "0", "--log-level", log == nil ? "warning" : "info"]
                + arguments,
            port: 0, log: log, environment: environment, lines: tls ? 2 : 1)
        process = launched.process
        let text = launched.said
        guard let match = text.range(of: tls ? #"https://127\.0\.0\.1:\d+"# : #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
            process.terminate()
            throw CouldNotCheck("byteclub serve said where it listens in a way this test does not know: \(text)")
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
