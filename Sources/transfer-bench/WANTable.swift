import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `byteclub serve` and `rclone serve webdav` in the server namespace, on fixed ports (the
/// namespace is the bench's own).
final class WANServers: @unchecked Sendable {
    // @unchecked Sendable: `processes` is only touched under `lock`.
    static let clubPort = 8421
    static let webdavPort = 8422
    let token = "wan-\(UUID().uuidString)"
    let user = "bench"
    let password = "pw-\(UUID().uuidString.prefix(8))"
    private let lock = NSLock()
    private var processes: [Process] = []
    private(set) var clubRoot = URL(fileURLWithPath: "/nonexistent")
    private(set) var webdavRoot = URL(fileURLWithPath: "/nonexistent")

    var clubURL: String { "http://\(WANLink.serverAddress):\(Self.clubPort)" }
    var webdavURL: String { "http://\(WANLink.serverAddress):\(Self.webdavPort)/" }

    func start(binary: String, rclone: String, in work: URL) throws {
        clubRoot = work.appendingPathComponent("club-\(UUID().uuidString)")
        webdavRoot = work.appendingPathComponent("webdav-\(UUID().uuidString)")
        for folder in [clubRoot.appendingPathComponent("byteclub"), webdavRoot.appendingPathComponent("byteclub")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try launch([binary, "serve", "--insecure-http", "--root", clubRoot.path, "--create", "--host", WANLink.serverAddress, "--port", "\(Self.clubPort)",
                    "--token", token, "--log-level", "error"])
        try launch([rclone, "serve", "webdav", webdavRoot.path, "--addr", "\(WANLink.serverAddress):\(Self.webdavPort)",
                    "--user", user, "--pass", password, "--log-level", "ERROR",
                    // The bench replaces files behind the server's back between rows.
                    "--dir-cache-time", "0s"])
        // Ready when each answers across the link, within a deadline.
        for url in [clubURL + "/", webdavURL] {
            let deadline = Date().addingTimeInterval(30)
            while WANLink.run(["ip", "netns", "exec", WANLink.client, "curl", "-s", "-o", "/dev/null", "--max-time", "2", url]).status != 0 {
                guard Date() < deadline else { throw BenchError("\(url) did not answer across the link") }
                usleep(100_000)
            }
        }
    }

    private func launch(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip", "netns", "exec", WANLink.server] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        lock.lock()
        processes.append(process)
        lock.unlock()
    }

    func stop() {
        lock.lock()
        let running = processes
        processes = []
        lock.unlock()
        for process in running where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// One table: every client over the link, put and get, each checked for the right size.
struct WANTable {
    let bytes: Int64
    let payload: URL
    let work: URL
    let servers: WANServers
    let binary: String
    let curl: String
    let rclone: String

    private func inClient(_ arguments: [String]) -> [String] {
        ["/usr/bin/env", "ip", "netns", "exec", WANLink.client] + arguments
    }

    /// The link as TCP sees it: the handshake time (one RTT) over five connections.
    func validate(link: WANLink) throws {
        var handshakes: [Double] = []
        for _ in 0..<5 {
            let result = WANLink.run(["ip", "netns", "exec", WANLink.client, curl, "-s", "-o", "/dev/null", "-w", "%{time_connect}",
                                      servers.clubURL + "/"])
            if let seconds = Double(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) { handshakes.append(seconds) }
        }
        let rtt = (median(handshakes) ?? 0) * 1000
        // Mathis et al.: one loss-based stream tops out near MSS / RTT × 1.22 / √p.
        let mathis = link.lossPercent > 0 ? 1448 * 8 / (link.rttMs / 1000) * 1.22 / (link.lossPercent / 100).squareRoot() / 1e6 : link.rateMbit
        print("")
        print(String(format: "- link check: TCP handshake %.1f ms (set %.0f ms RTT); one loss-based stream's Mathis bound %.1f Mbit/s, link %.0f Mbit/s.",
                     rtt, link.rttMs, min(mathis, link.rateMbit), link.rateMbit))
    }

    func run(rateMbit: Double) throws {
        let club = ["--server", servers.clubURL, "--token", servers.token]
        let got = work.appendingPathComponent("got.bin")
        let clubFile = servers.clubRoot.appendingPathComponent("byteclub/big.bin")
        let webdavFile = servers.webdavRoot.appendingPathComponent("byteclub/big.bin")
        let fileURL = servers.webdavURL + "byteclub/big.bin"
        let auth = "\(servers.user):\(servers.password)"
        let obscured = WANLink.run([rclone, "obscure", servers.password]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let remote = ["--webdav-url", servers.webdavURL, "--webdav-user", servers.user, "--webdav-pass", obscured]
        var rows: [(String, [Double], [Int64])] = []

        func row(_ name: String, placing place: URL?, check: URL, _ arguments: [String]) throws {
            try? FileManager.default.removeItem(at: clubFile)
            try? FileManager.default.removeItem(at: webdavFile)
            try? FileManager.default.removeItem(at: got)
            if let place { try FileManager.default.copyItem(at: payload, to: place) }
            let result = try spawnAndMeasure(inClient(arguments))
            let size = (try? FileManager.default.attributesOfItem(atPath: check.path)[.size] as? NSNumber)?.int64Value ?? -1
            guard result.exitStatus == 0, size == bytes else {
                print("- \(name): failed (exit \(result.exitStatus), \(size) bytes); no figure.")
                return
            }
            rows.append((name, [result.wallSeconds], [result.peakRSSBytes]))
        }
        for streams in [1, 4] {
            try row("byteclub put --streams \(streams)", placing: nil, check: clubFile,
                    [binary, "put", payload.path, "/byteclub/big.bin", "--streams", "\(streams)"] + club)
        }
        try row("curl -T (WebDAV)", placing: nil, check: webdavFile, [curl, "-sS", "-f", "-u", auth, "-T", payload.path, fileURL])
        try row("rclone copyto to WebDAV", placing: nil, check: webdavFile,
                [rclone, "copyto", "--ignore-times", payload.path, ":webdav:byteclub/big.bin"] + remote)
        for streams in [1, 4] {
            try row("byteclub get --streams \(streams)", placing: clubFile, check: got,
                    [binary, "get", "/byteclub/big.bin", got.path, "--streams", "\(streams)"] + club)
        }
        try row("curl -o (WebDAV)", placing: webdavFile, check: got, [curl, "-sS", "-f", "-u", auth, "-o", got.path, fileURL])
        try row("rclone copyto from WebDAV", placing: webdavFile, check: got,
                [rclone, "copyto", "--ignore-times", ":webdav:byteclub/big.bin", got.path] + remote)
        printRunTable(rows, bytes: bytes)
        func megabits(_ name: String) -> Double? {
            rows.first(where: { $0.0 == name }).flatMap { median($0.1) }.map { Double(bytes) * 8 / $0 / 1e6 }
        }
        print("")
        for (direction, curlName, rcloneName) in [("put", "curl -T (WebDAV)", "rclone copyto to WebDAV"),
                                                  ("get", "curl -o (WebDAV)", "rclone copyto from WebDAV")] {
            guard let four = megabits("byteclub \(direction) --streams 4") else { continue }
            let curlFigure = megabits(curlName).map { String(format: "%.2f× curl", four / $0) } ?? "curl failed"
            let rcloneFigure = megabits(rcloneName).map { String(format: "%.2f× rclone", four / $0) } ?? "rclone failed"
            print(String(format: "- %@ over 4 streams: %.1f Mbit/s = %.0f %% of the link, %@, %@.", direction, four, four / rateMbit * 100,
                         curlFigure, rcloneFigure))
        }
    }
}
