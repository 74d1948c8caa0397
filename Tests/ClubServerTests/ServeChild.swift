import Foundation
import TestSupport
import Transfer
import XCTest

/// A `byteclub serve` child process, for what only a separate process shows: its peak memory
/// (VmHWM), and how it answers SIGTERM.
final class ServeChild {
    let process: Process
    let port: Int
    let token: String
    let session = Session(configuration: .ephemeral)

    /// - Parameter log: where the server's log goes, at level `info` (the access log); by
    ///   default it is dropped, and only warnings are made.
    init(root: URL, token: String = "child-\(UUID().uuidString)", extraArguments: [String] = [], log: FileHandle? = nil) throws {
        self.token = token
        let launched = try MemberServe.launch(
            ["serve", "--insecure-http", "--root", root.path, "--create", "--port", "0", "--token", token, "--log-level", log == nil ? "warning" : "info"]
                + extraArguments,
            port: 0, errorsTo: log ?? FileHandle.nullDevice, deadline: 20)
        process = launched.process
        port = launched.port
    }

    deinit {
        session.invalidateAndCancel()
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Requests to this server, from any task.
    var client: Client { Client(port: port, token: token, session: session) }

    func content(_ endpoint: String, _ argument: String, body: Data = Data()) async throws -> ServerFixture.Reply {
        try await client.content(endpoint, argument, body: body)
    }

    func rpc(_ endpoint: String, _ json: String) async throws -> ServerFixture.Reply {
        try await client.rpc(endpoint, json)
    }

    struct Client: Sendable {
        let port: Int
        let token: String
        let session: Session

        /// A content call, answered whatever the status.
        func content(_ endpoint: String, _ argument: String, body: Data = Data()) async throws -> ServerFixture.Reply {
            let request = Request(url: URL(string: "http://127.0.0.1:\(port)/\(endpoint)")!, method: "POST", headers: [
                "Authorization": "Bearer \(token)", "Dropbox-API-Arg": argument, "Content-Type": "application/octet-stream",
            ], body: body)
            return try await send(request)
        }

        func rpc(_ endpoint: String, _ json: String) async throws -> ServerFixture.Reply {
            let request = Request(url: URL(string: "http://127.0.0.1:\(port)/\(endpoint)")!, method: "POST", headers: [
                "Authorization": "Bearer \(token)", "Content-Type": "application/json",
            ], body: Data(json.utf8))
            return try await send(request)
        }

        private func send(_ request: Request) async throws -> ServerFixture.Reply {
            do {
                let (data, response) = try await session.data(for: request)
                return ServerFixture.Reply(status: response.statusCode, body: data, headers: response)
            } catch let error {
                if case .httpStatus(let code, let body) = error { return ServerFixture.Reply(status: code, body: body, headers: nil) }
                throw error
            }
        }
    }

    /// A figure from /proc/PID/status, in bytes (VmHWM: peak resident set; VmRSS: current).
    func memory(_ field: String) -> Int? {
        // Read to the end: /proc files say their size is 0, so a size-driven read gets nothing.
        guard let data = FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/status")?.readDataToEndOfFile(),
              case let text = String(decoding: data, as: UTF8.self),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        let kilobytes = line.dropFirst(field.count + 1).split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
        return kilobytes.map { $0 * 1024 }
    }

    /// Sends SIGTERM and waits for the exit; false if it is still running at the deadline.
    func terminate(within seconds: TimeInterval) -> Bool {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }
}
