import ArgumentParser
import ClubServer
import Foundation
import Logging

/// `byteclub serve`: share a folder with club members over the Dropbox v2 API subset.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Share a folder with your club (a Dropbox-v2-compatible server).",
        discussion: """
        Members connect with `byteclub --server http://HOST:PORT --token TOKEN`. The token comes
        from --token, or BYTECLUB_TOKEN, or is generated once and kept (mode 0600) in
        ROOT/.byteclub/token.

        --chaos injects faults for testing clients, e.g.
          --chaos drop=0.05,429=0.05,5xx=0.05,slow=0.05,truncate=0.05 --chaos-seed 7
        drop: cut the connection mid-body; 429: rate limit with Retry-After; 5xx: 500/503;
        slow: trickle the response; truncate: cut JSON answers in half; stall: say nothing
        for five minutes (clients must time out).
        """
    )

    @Option(help: "The folder to share.") var root: String
    @Option(help: "The address to listen on. Use 0.0.0.0 to share on your LAN.") var host: String = "127.0.0.1"
    @Option(help: "The port; 0 picks a free one.") var port: Int = 8421
    @Option(help: "The bearer token clients must send (default: BYTECLUB_TOKEN or a stored one).") var token: String?
    @Option(help: "Fault injection for testing clients (see above).") var chaos: String?
    @Option(help: "Seed for --chaos, to replay a run.") var chaosSeed: UInt64 = 1
    @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel: String = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        if let chaos { _ = try ChaosSpec(parsing: chaos) }
        if let token, token.isEmpty { throw ValidationError("--token must not be empty") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let rootPath = URL(fileURLWithPath: root).standardizedFileURL.path
        let secret: String
        do {
            secret = try token ?? ProcessInfo.processInfo.environment["BYTECLUB_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
                ?? ServerTokenFile.loadOrCreate(root: rootPath)
        } catch {
            throw ValidationError("cannot set up the token under \(rootPath)/.byteclub: \(error)")
        }
        var configuration = ClubServerConfiguration(root: rootPath, token: secret, logger: Logger(label: "byteclub.serve"))
        configuration.host = host
        configuration.port = port
        configuration.chaosSeed = chaosSeed
        configuration.chaos = try chaos.map { try ChaosSpec(parsing: $0) }
        let host = self.host
        do {
            try await ClubServer.run(configuration) { port, realRoot in
                let shownHost = host.contains(":") ? "[\(host)]" : host
                // Unbuffered, so a script reading the pipe sees the line at once.
                FileHandle.standardOutput.write(Data("byteclub serve: listening on http://\(shownHost):\(port) (root \(realRoot))\n".utf8))
            }
        } catch let error as ClubServerError {
            throw ValidationError(error.description)
        }
    }
}

/// The generated token, kept in ROOT/.byteclub/token with mode 0600.
enum ServerTokenFile {
    static func loadOrCreate(root: String) throws -> String {
        let directory = root + "/.byteclub"
        let path = directory + "/token"
        if let data = FileManager.default.contents(atPath: path),
           let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            return text
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let token = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let line = token + "\n"
        guard write(fd, line, line.utf8.count) == line.utf8.count else { throw POSIXError(.EIO) }
        return token
    }
}
