import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `byteclub serve` with members, in a process of its own on a random port.
public final class MemberServe {
    public let process = Process()
    public private(set) var port = 0

    /// `log`, when given, gets the server's log at info level: a line per request.
    /// `port`: 0 for a random one, or the port of a server that was stopped, to start it again.
    public init(root: URL, members: [(name: String, token: String)], log: URL? = nil, port: Int = 0) throws {
        process.executableURL = try AppHarness.binary
        process.arguments = ["serve", "--insecure-http", "--root", root.path, "--create", "--port", String(port), "--log-level", log == nil ? "error" : "info"]
            + members.flatMap { ["--member", "\($0.name)=\($0.token)"] }
        let output = Pipe()
        process.standardOutput = output
        if let log {
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        do {
            self.port = try Self.listeningPort(output)
        } catch {
            process.terminate()
            throw error
        }
    }

    /// The port a starting `byteclub serve` says it listens on, from the first line of its
    /// output: "byteclub serve: listening on http://127.0.0.1:PORT (root …)".
    public static func listeningPort(_ output: Pipe) throws -> Int {
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let bound = Int(text[range].split(separator: ":").last ?? "") else {
            throw NSError(domain: "serve", code: 1, userInfo: [NSLocalizedDescriptionKey: "serve did not start: \(text)"])
        }
        return bound
    }

    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
