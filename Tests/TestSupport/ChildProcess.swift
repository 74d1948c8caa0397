import Foundation

/// A command (curl, python3) run to its end or a deadline; stdout and stderr kept in temp files,
/// so a chatty command never blocks on a full pipe.
public enum ChildProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `arguments` through `/usr/bin/env` (so `curl`, `python3` come from PATH).
    /// `input`: what the command reads on stdin (nothing by default).
    public static func run(_ arguments: [String], within seconds: TimeInterval = 60, environment: [String: String]? = nil,
                           input: String? = nil) throws -> Result {
        let started = try start(arguments, environment: environment, input: input)
        let deadline = Date().addingTimeInterval(seconds)
        while started.process.isRunning && Date() < deadline { usleep(10_000) }
        return started.finish()
    }

    /// A command started and left running: `finish()` waits for it (killing it first if asked).
    public final class Started: @unchecked Sendable {
        // @unchecked Sendable: `process` and the two files are set once in init; `finish` only reads them.
        public let process: Process
        let out: URL
        let err: URL

        init(process: Process, out: URL, err: URL) {
            self.process = process
            self.out = out
            self.err = err
        }

        /// What the command wrote to stderr so far.
        public var stderrSoFar: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
        /// What the command wrote to stdout so far.
        public var stdoutSoFar: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }

        /// Polls until stdout holds `text` or `seconds` pass; whether it came.
        public func waitForOutput(_ text: String, within seconds: TimeInterval = 20) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !stdoutSoFar.contains(text) {
                guard Date() < deadline, process.isRunning else { return stdoutSoFar.contains(text) }
                usleep(20_000)
            }
            return true
        }

        /// Polls until stderr holds `text` or `seconds` pass; whether it came.
        public func waitForErrors(_ text: String, within seconds: TimeInterval = 20) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !stderrSoFar.contains(text) {
                guard Date() < deadline, process.isRunning else { return stderrSoFar.contains(text) }
                usleep(20_000)
            }
            return true
        }

        public func finish(kill: Bool = true) -> Result {
            if kill && process.isRunning { process.terminate() }
            process.waitForExit(within: 30)
            defer {
                try? FileManager.default.removeItem(at: out)
                try? FileManager.default.removeItem(at: err)
            }
            return Result(status: process.terminationStatus, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                          stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
        }
    }

    public static func start(_ arguments: [String], environment: [String: String]? = nil, input: String? = nil) throws -> Started {
        let temp = FileManager.default.temporaryDirectory
        let out = temp.appendingPathComponent("child-\(UUID().uuidString).out")
        let err = temp.appendingPathComponent("child-\(UUID().uuidString).err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        if let stdin, let input {
            // Small answers to a prompt: they fit the pipe's buffer, so this never blocks.
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        return Started(process: process, out: out, err: err)
    }
}
