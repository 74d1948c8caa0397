import DropboxWire
import ArgumentParser
import Foundation
import Transfer

/// The live club's server figures, against a `byteclub serve` child: how soon a longpoll hears
/// of a commit, and what 1,000 idle longpolls cost the server (peak RSS, from its VmHWM) and a
/// 2,000-entry `list_folder` answered meanwhile.
///
/// Longpolls are raw HTTP/1.1 requests on plain sockets (one connection each, as clients hold
/// them), so the client side costs next to nothing; the server runs with no per-client cap, as
/// all of them come from 127.0.0.1.
struct LiveBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live", abstract: "Longpoll wake latency, and 1,000 idle longpolls: server RSS and list_folder p99 meanwhile.")

    @Option(help: "Commits for the wake-latency median.") var commits: Int = 50
    @Option(help: "Idle longpolls held at once.") var longpolls: Int = 1000
    @Option(help: "list_folder calls timed while they wait.") var listings: Int = 200
    @Option(help: "The byteclub binary (default: next to this one).") var byteclub: String?

    func run() throws {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let binary = byteclub ?? URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw ValidationError("build byteclub first (\(binary))") }
        Self.raiseDescriptorLimit()
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("live-bench-\(getpid())")
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/many"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/live"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/idle"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        for index in 0..<2000 {
            try Data("note \(index)\n".utf8).write(to: root.appendingPathComponent("byteclub/many/note-\(String(format: "%04d", index)).txt"))
        }

        let port = freePort()
        let token = "bench"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        server.arguments = ["serve", "--insecure-http", "--root", root.path, "--create", "--port", String(port), "--token", token, "--log-level", "error",
                            "--max-connections", String(longpolls + 256), "--max-connections-per-client", "0",
                            // Every idle longpoll waits, plus the one timed for latency: none backed off.
                            "--max-longpolls", String(longpolls + 16)]
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(20)
        while !canConnect(port: port) {
            guard Date() < deadline, server.isRunning else { throw BenchError("byteclub serve did not start") }
            usleep(20_000)
        }
        let api = LiveClient(port: port, token: token)

        // (a) Wake latency: from an upload's answer to the longpoll's `{"changes":true}`.
        var cursor = try api.cursor("/byteclub/live")
        _ = try api.call(Endpoint.listFolder.relativePath, json: #"{"path":"/byteclub/many","limit":2000}"#) // warm the hash cache
        var wakes: [Double] = []
        for index in 0..<commits {
            let poll = try RawLongpoll(port: port, cursor: cursor, timeout: 30)
            // Give the request time to arrive and register; the latency is timed from the commit.
            usleep(30_000)
            guard poll.answer(within: 0) == nil else { throw BenchError("a longpoll answered before the commit") }
            _ = try api.call(Endpoint.upload.relativePath, arg: "{\"path\":\"/byteclub/live/n\(index).txt\",\"mode\":\"add\"}", body: Data("\(index)".utf8))
            let committed = DispatchTime.now().uptimeNanoseconds
            guard let answer = poll.answer(within: 5), answer.contains("\"changes\":true") else { throw BenchError("no wake-up within 5 s") }
            wakes.append(Double(DispatchTime.now().uptimeNanoseconds - committed) / 1e6)
            cursor = try api.drain(cursor)
        }

        // (b) Idle longpolls on a folder nothing changes in, and listings while they wait (and,
        // for comparison, before).
        var quietTimes: [Double] = []
        for _ in 0..<listings { quietTimes.append(try api.call(Endpoint.listFolder.relativePath, json: #"{"path":"/byteclub/many","limit":2000}"#).1) }
        let restingRSS = Self.status(server.processIdentifier, "VmRSS:") ?? 0
        let idleCursor = try api.cursor("/byteclub/idle")
        var held: [RawLongpoll] = []
        for _ in 0..<longpolls { held.append(try RawLongpoll(port: port, cursor: idleCursor, timeout: 480)) }
        usleep(1_000_000)
        var listTimes: [Double] = []
        for _ in 0..<listings {
            let (data, ms) = try api.call(Endpoint.listFolder.relativePath, json: #"{"path":"/byteclub/many","limit":2000}"#)
            guard (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["entries"].map({ ($0 as? [Any])?.count }) == 2000 else {
                throw BenchError("list_folder did not list 2,000 entries")
            }
            listTimes.append(ms)
        }
        let answered = held.filter { $0.answer(within: 0) != nil }.count
        let peak = Self.status(server.processIdentifier, "VmHWM:") ?? 0
        let holding = Self.status(server.processIdentifier, "VmRSS:") ?? 0
        for poll in held { poll.close() }

        func p99(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        }
        print("Live club: byteclub serve (\(binary)), \(commits) commits, \(longpolls) idle longpolls.")
        print("")
        print("| figure | result | target |")
        print("|---|---:|---|")
        print(String(format: "| longpoll wake after a commit, median of %d | %.1f ms | < 100 ms |", wakes.count, median(wakes) ?? 0))
        print(String(format: "| longpoll wake after a commit, worst | %.1f ms | — |", wakes.max() ?? 0))
        print(String(format: "| server RSS at rest → holding %d longpolls | %.1f → %.1f MiB | — |", longpolls,
                     Double(restingRSS) / 1_048_576, Double(holding) / 1_048_576))
        print(String(format: "| server peak RSS (VmHWM), whole run | %.1f MiB | ≤ 200 MiB |", Double(peak) / 1_048_576))
        print(String(format: "| list_folder of 2,000 entries, no longpolls, p50 / p99 | %.1f / %.1f ms | — |",
                     median(quietTimes) ?? 0, p99(quietTimes)))
        print(String(format: "| list_folder of 2,000 entries while they wait, p50 / p99 | %.1f / %.1f ms | p99 ≤ 50 ms |",
                     median(listTimes) ?? 0, p99(listTimes)))
        print("| longpolls answered before their timeout (should be 0) | \(answered) | 0 |")
    }

    /// A `/proc/PID/status` field in bytes (VmRSS, VmHWM).
    static func status(_ pid: pid_t, _ field: String) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            return Int64(line.dropFirst(field.count).filter(\.isNumber)).map { $0 * 1024 }
        }
        return nil
    }

    /// A thousand sockets need more than the usual 1,024 descriptors.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// Calls to the server through Transfer, timed.
struct LiveClient {
    let port: Int
    let session: Session
    let base: URL

    init(port: Int, token: String) {
        self.port = port
        var configuration = SessionConfiguration.ephemeral
        configuration.additionalHeaders = ["Authorization": "Bearer \(token)"]
        session = Session(configuration: configuration)
        base = URL(string: "http://127.0.0.1:\(port)")!
    }

    func call(_ endpoint: String, json: String? = nil, arg: String? = nil, body: Data = Data()) throws -> (Data, Double) {
        var headers: [String: String] = [:]
        var payload = body
        if let json { headers["Content-Type"] = "application/json"; payload = Data(json.utf8) }
        if let arg { headers["Dropbox-API-Arg"] = arg; headers["Content-Type"] = "application/octet-stream" }
        let request = Request(url: base.appendingPathComponent(endpoint), method: "POST", headers: headers, body: payload)
        let session = self.session
        let start = DispatchTime.now().uptimeNanoseconds
        let (data, _) = try blocking { try await session.data(for: request) }
        return (data, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }

    func cursor(_ path: String) throws -> String {
        let (data, _) = try call(Endpoint.getLatestCursor.relativePath, json: "{\"path\":\"\(path)\"}")
        guard let cursor = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["cursor"] as? String else {
            throw BenchError("no cursor for \(path)")
        }
        return cursor
    }

    /// Follows `continue` to the end; the cursor after every change so far.
    func drain(_ cursor: String) throws -> String {
        var next = cursor
        while true {
            let (data, _) = try call(Endpoint.listFolderContinue.relativePath, json: "{\"cursor\":\"\(next)\"}")
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            guard let cursor = object["cursor"] as? String else { throw BenchError("continue gave no cursor") }
            next = cursor
            if object["has_more"] as? Bool != true { return next }
        }
    }
}

/// One longpoll as a client holds it: a socket with the request sent, read when it answers.
final class RawLongpoll {
    private let fd: Int32
    private var received: [UInt8] = []

    init(port: Int, cursor: String, timeout: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw BenchError("connect: \(String(cString: strerror(errno)))")
        }
        let body = "{\"cursor\":\"\(cursor)\",\"timeout\":\(timeout)}"
        let request = "POST \(Endpoint.longpoll.route) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == bytes.count else {
            Glibc.close(fd)
            throw BenchError("send failed")
        }
    }

    /// The answer's text once its body has arrived, waiting at most `seconds`; nil if none yet.
    func answer(within seconds: Double) -> String? {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while true {
            let text = String(decoding: received, as: UTF8.self)
            if let split = text.range(of: "\r\n\r\n"), text[split.upperBound...].contains("}") { return text }
            let now = DispatchTime.now().uptimeNanoseconds
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = now >= deadline ? 0 : Int32((deadline - now) / 1_000_000) + 1
            guard poll(&entry, 1, wait) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let got = recv(fd, &chunk, chunk.count, 0)
            // The server closed the connection: that is an answer too (not a good one).
            guard got > 0 else { return received.isEmpty ? "closed" : String(decoding: received, as: UTF8.self) }
            received += chunk[0..<got]
        }
    }

    func close() {
        Glibc.close(fd)
    }
}
