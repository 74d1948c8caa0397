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
        if let log { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        (process, self.port) = try Self.start(arguments, port: port, log: log)
    }

    /// A started `byteclub serve`: its process, its port and what it said on stdout as it started.
    public struct Launched {
        public let process: Process
        public let port: Int
        /// Its first `lines` lines (where it listens; a TLS server's key after).
        public let said: String
    }

    /// Runs `byteclub ARGUMENTS` and waits until it says the port it listens on; its stderr goes
    /// to `log` (appended), else nowhere. A server started again on its old `port` (its clients
    /// know that address) can find it taken for a moment: between the port's hold let go and the
    /// server's bind, another test's connection may have been given it as its own end's port.
    /// That is said on stderr (`port P is already in use`) and the start is tried again, for at
    /// most `patience` seconds; any other failure is thrown at once, with what the server said.
    public static func start(_ arguments: [String], port: Int, log: URL? = nil, patience: TimeInterval = 10) throws -> (Process, Int) {
        let launched = try launch(arguments, port: port, log: log, patience: patience)
        return (launched.process, launched.port)
    }

    /// The one way a test starts `byteclub serve` in a process of its own (``start(_:port:log:patience:)``),
    /// with `environment` (the token, kept out of `ps`) and reading `lines` lines of its stdout
    /// within `deadline` seconds: a server that never says where it listens fails the test
    /// with what it said (`still not listening after 30 s`, or its exit and stderr), never hangs it.
    /// `errorsTo`: a handle its stderr goes to instead of `log` (then it is not read back).
    public static func launch(_ arguments: [String], port: Int, log: URL? = nil, errorsTo: FileHandle? = nil,
                              environment: [String: String]? = nil, lines: Int = 1,
                              deadline: TimeInterval = 30, patience: TimeInterval = 10) throws -> Launched {
        let giveUp = Date().addingTimeInterval(patience)
        while true {
            let process = Process()
            process.executableURL = try AppHarness.binary
            process.arguments = arguments
            if let environment { process.environment = environment }
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            // Where this try's lines begin in `log`: what it says if it does not start.
            var logged = 0
            if let errorsTo {
                process.standardError = errorsTo
            } else if let log {
                let handle = try FileHandle(forWritingTo: log)
                logged = Int(handle.seekToEndOfFile())
                process.standardError = handle
            } else {
                process.standardError = errors
            }
            try process.run()
            let said = read(output, lines: lines, within: deadline)
            if let bound = listening(in: said) {
                // What the server says later is read and dropped, so a full pipe never holds it up.
                if log == nil, errorsTo == nil { Thread.detachNewThread { _ = errors.fileHandleForReading.readDataToEndOfFile() } }
                return Launched(process: process, port: bound, said: said)
            }
            let state = process.isRunning ? "still not listening after \(Int(deadline)) s" : "exited with status \(process.terminationStatus)"
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let text = errorsTo != nil ? ""
                : log.flatMap { try? Data(contentsOf: $0) }.map { String(decoding: $0.dropFirst(logged), as: UTF8.self) }
                ?? String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            guard port != 0, text.contains("already in use"), Date() < giveUp else {
                throw CouldNotCheck("byteclub serve did not start (\(state)): \(said)\(String(text.suffix(2_000)))")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// Up to `lines` lines of `output`, read with poll(2) until `seconds` have passed or the
    /// process closed it: never a read that blocks past the deadline.
    static func read(_ output: Pipe, lines: Int, within seconds: TimeInterval) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var text = ""
        let fd = output.fileHandleForReading.fileDescriptor
        while text.filter({ $0 == "\n" }).count < lines && Date() < deadline {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    /// The port in a starting server's first line: "byteclub serve: listening on http://127.0.0.1:PORT (root …)".
    static func listening(in said: String) -> Int? {
        guard let range = said.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return nil }
        return Int(said[range].split(separator: ":").last ?? "")
    }

    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
