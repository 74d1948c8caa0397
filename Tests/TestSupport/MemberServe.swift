import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `byteclub serve` with members, in a process of its own on a random port.
public final class MemberServe {
    public let process: Process
    public let port: Int

    /// `log`, when given, gets the server's log at info level: a line per request.
    /// `port`: 0 for a random one, or the port of a server that was stopped, to start it again.
    public init(root: URL, members: [(name: String, token: String)], log: URL? = nil, port: Int = 0) throws {
        let arguments = ["serve", "--insecure-http", "--root", root.path, "--create", "--port", String(port), "--log-level", log == nil ? "error" : "info"]
            + members.flatMap { ["--member", "\($0.name)=\($0.token)"] }
        if let log { FileManager.default.createFile(atPath: log.path, contents: nil) }
        (process, self.port) = try Self.start(arguments, port: port, log: log)
    }

    /// Runs `byteclub ARGUMENTS` and waits until it says the port it listens on; its stderr goes
    /// to `log` (appended), else nowhere. A server started again on its old `port` (its clients
    /// know that address) can find it taken for a moment: between the port's hold let go and the
    /// server's bind, another test's connection may have been given it as its own end's port.
    /// That is said on stderr (`port P is already in use`) and the start is tried again, for at
    /// most `patience` seconds; any other failure is thrown at once, with what the server said.
    public static func start(_ arguments: [String], port: Int, log: URL? = nil, patience: TimeInterval = 10) throws -> (Process, Int) {
        let deadline = Date().addingTimeInterval(patience)
        while true {
            let process = Process()
            process.executableURL = try AppHarness.binary
            process.arguments = arguments
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            // Where this try's lines begin in `log`: what it says if it does not start.
            var logged = 0
            if let log {
                let handle = try FileHandle(forWritingTo: log)
                logged = Int(handle.seekToEndOfFile())
                process.standardError = handle
            } else {
                process.standardError = errors
            }
            try process.run()
            do {
                let bound = try listeningPort(output)
                // What the server says later is read and dropped, so a full pipe never holds it up.
                if log == nil { Thread.detachNewThread { _ = errors.fileHandleForReading.readDataToEndOfFile() } }
                return (process, bound)
            } catch {
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                let text = log.flatMap { try? Data(contentsOf: $0) }.map { String(decoding: $0.dropFirst(logged), as: UTF8.self) }
                    ?? String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                guard port != 0, text.contains("already in use"), Date() < deadline else {
                    throw NSError(domain: "serve", code: 1, userInfo: [NSLocalizedDescriptionKey: "serve did not start: \(text)"])
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
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
