import ArgumentParser
import Foundation
import LoopbackHTTP
import Transfer

/// Starts a loopback server and measures Transfer, the curl CLI and URLSession side by side.
///
/// Every client runs as its own process so that its peak RSS (from `wait4`) is its own; wall
/// time is measured from spawn to exit, the same way for all three.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Side-by-side table: Transfer vs curl vs URLSession over loopback.")

    @Option(help: "Payload size, e.g. 1GiB, 256MiB.") var size: String = "1GiB"
    @Option(help: "Runs per cell; the table shows the median.") var runs: Int = 3
    @Option(help: "The curl CLI to compare with.") var curl: String = "/usr/bin/curl"
    @Option(help: "Fraction of the payload after which the cancel runs cancel.") var cancelAt: Double = 0.25
    @Flag(help: "Leave URLSession out (its upload takes about 20 times as long as the others).") var withoutURLSession = false

    /// Transfer may take at most this much longer than curl on a streamed upload or a download
    /// before the comparison calls it a regression.
    static let slowerLimit = 1.10
    /// The most Transfer's process may hold on a streamed upload or a download, whatever the size.
    static let peakRSSLimit: Double = 48 * 1048576

    struct Cell {
        var wall: [Double] = []
        var rss: [Int64] = []
        var eventsPerSecond: [Double] = []
        var cancelMs: [Double] = []
        var failures: [String] = []
    }

    func run() throws {
        guard let bytes = parseSize(size), bytes > 0 else { throw ValidationError("bad --size \(size)") }
        guard runs > 0 else { throw ValidationError("--runs must be at least 1") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("transfer-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let payload = directory.appendingPathComponent("payload.bin")
        try writePayload(payload, bytes: bytes)
        let output = directory.appendingPathComponent("download.bin")

        let server = try LoopbackServer.startBlocking()
        defer { try? server.shutdownBlocking() }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        // The checksum would make the server, not the client, the bottleneck.
        let uploadURL = server.url("/upload?hash=0").absoluteString
        let downloadURL = server.url("/bytes/\(bytes)").absoluteString

        let operations = ["upload from file", "upload from memory", "download"]
        let clients = ["Transfer", "curl CLI", "URLSession"]
        var cells: [String: Cell] = [:]

        func command(_ operation: String, _ client: String, cancel: Bool) -> [String] {
            let cancelArgs = cancel ? ["--cancel-at", "\(cancelAt)"] : []
            switch (operation, client) {
            case ("upload from file", "curl CLI"):
                return [curl, "-sS", "-o", "/dev/null", "-X", "POST", "-H", "Expect:", "-H", "Content-Type: application/octet-stream", "-T", payload.path, uploadURL]
            case ("upload from memory", "curl CLI"):
                return [curl, "-sS", "-o", "/dev/null", "-H", "Expect:", "-H", "Content-Type: application/octet-stream", "--data-binary", "@" + payload.path, uploadURL]
            case ("download", "curl CLI"):
                return [curl, "-sS", "-o", output.path, downloadURL]
            case ("download", _):
                return [me, "download", "--url", downloadURL, "--out", output.path, "--client", client == "Transfer" ? "transfer" : "urlsession"] + cancelArgs
            default:
                let memory = operation == "upload from memory" ? ["--from-memory"] : []
                return [me, "upload", "--url", uploadURL, "--file", payload.path, "--client", client == "Transfer" ? "transfer" : "urlsession"] + memory + cancelArgs
            }
        }

        /// One run of one cell, added to that cell.
        func measure(_ operation: String, _ client: String, cancel: Bool) {
            let key = "\(operation)|\(client)|\(cancel)"
            var cell = cells[key] ?? Cell()
            defer { cells[key] = cell }
            try? FileManager.default.removeItem(at: output)
            let arguments = command(operation, client, cancel: cancel)
            FileHandle.standardError.write(Data("  \(operation) · \(client)\(cancel ? " · cancel" : "")\n".utf8))
            let result: ChildRun
            do {
                result = try spawnAndMeasure(arguments)
            } catch {
                cell.failures.append("\(error)")
                return
            }
            let report = result.stdout.split(separator: "\n").last.flatMap { try? JSONDecoder().decode(RunReport.self, from: Data($0.utf8)) }
            if result.exitStatus != 0 {
                cell.failures.append("exit \(result.exitStatus) \(report?.error ?? "")")
                return
            }
            if operation == "download", !cancel {
                let got = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int64) ?? -1
                if got != bytes { cell.failures.append("downloaded \(got) of \(bytes) bytes"); return }
            }
            cell.wall.append(result.wallSeconds)
            cell.rss.append(max(result.peakRSSBytes, report?.peak_rss_bytes ?? 0))
            if let report, report.seconds > 0, client != "curl CLI" {
                cell.eventsPerSecond.append(Double(report.progress_events) / report.seconds)
            }
            if let ms = report?.cancel_ms { cell.cancelMs.append(ms) }
        }

        FileHandle.standardError.write(Data("transfer-bench: \(runs) run(s) per cell, \(format(bytes: bytes)) over \(server.baseURL.absoluteString)\n".utf8))
        // Round by round, each client once per operation, so that the load of a given minute
        // falls on Transfer and curl alike and their ratio means something.
        let measured = withoutURLSession ? clients.filter { $0 != "URLSession" } : clients
        for run in 0..<runs {
            FileHandle.standardError.write(Data("round \(run + 1) of \(runs)\n".utf8))
            for operation in operations {
                for client in measured { measure(operation, client, cancel: false) }
            }
            for operation in ["upload from file", "download"] {
                for client in measured where client != "curl CLI" { measure(operation, client, cancel: true) }
            }
        }

        // The table, in Markdown so it can go straight into docs/benchmarks.md.
        print("Payload \(format(bytes: bytes)) over loopback, median of \(runs) run(s), libcurl \(Transfer.libcurlVersion).")
        print("")
        print("| operation | client | wall (s) | MB/s | peak RSS (MiB) | progress events/s | cancel → callback (ms) |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for operation in operations {
            for client in measured {
                let cell = cells["\(operation)|\(client)|false"] ?? Cell()
                let cancel = cells["\(operation)|\(client)|true"]
                let wall = median(cell.wall)
                let rate = wall.map { String(format: "%.0f", Double(bytes) / $0 / 1e6) } ?? "—"
                let rss = median(cell.rss.map(Double.init)).map { String(format: "%.1f", $0 / 1048576) } ?? "—"
                let events = median(cell.eventsPerSecond).map { String(format: "%.1f", $0) } ?? "—"
                let cancelText = cancel.flatMap { median($0.cancelMs) }.map { String(format: "%.2f", $0) } ?? "—"
                let wallText = wall.map { String(format: "%.3f", $0) } ?? "failed"
                print("| \(operation) | \(client) | \(wallText) | \(rate) | \(rss) | \(events) | \(cancelText) |")
            }
        }
        print("")
        func ratio(_ a: String, _ b: String, _ operation: String) -> String {
            guard let x = median(cells["\(operation)|\(a)|false"]?.wall ?? []), let y = median(cells["\(operation)|\(b)|false"]?.wall ?? []) else { return "n/a" }
            return String(format: "%.2f×", x / y)
        }
        let limit = String(format: "%.2f×", Self.slowerLimit)
        print("- Upload from file: Transfer / curl wall time = \(ratio("Transfer", "curl CLI", "upload from file")) (target ≤ 1.00×, regression above \(limit)); URLSession / Transfer = \(ratio("URLSession", "Transfer", "upload from file")) (target ≥ 5×).")
        print("- Download: Transfer / curl wall time = \(ratio("Transfer", "curl CLI", "download")) (target ≤ 1.00×, regression above \(limit)).")
        for (key, cell) in cells.sorted(by: { $0.key < $1.key }) where !cell.failures.isEmpty {
            print("- Failures in \(key.replacingOccurrences(of: "|", with: " · ")): \(cell.failures.joined(separator: "; "))")
        }
        let regressions = Self.regressions(cells)
        for line in regressions { print("REGRESSION: \(line)") }
        if !regressions.isEmpty { throw ExitCode(1) }
    }

    /// What makes the comparison fail: on a streamed upload or a download, Transfer more than
    /// `slowerLimit` times curl's median wall time, a failed Transfer run, or Transfer's peak
    /// RSS over `peakRSSLimit`.
    static func regressions(_ cells: [String: Cell]) -> [String] {
        var found: [String] = []
        for operation in ["upload from file", "download"] {
            let ours = cells["\(operation)|Transfer|false"] ?? Cell()
            let curl = cells["\(operation)|curl CLI|false"] ?? Cell()
            if !ours.failures.isEmpty {
                found.append("\(operation): Transfer failed (\(ours.failures.joined(separator: "; ")))")
            }
            if let x = median(ours.wall), let y = median(curl.wall), y > 0 {
                if x / y > slowerLimit {
                    found.append(String(format: "%@: Transfer took %.3f s against curl's %.3f s (%.2f×, limit %.2f×)", operation, x, y, x / y, slowerLimit))
                }
            } else {
                found.append("\(operation): no time to compare (Transfer \(ours.wall.count) run(s), curl \(curl.wall.count))")
            }
            if let peak = ours.rss.max(), Double(peak) > peakRSSLimit {
                found.append(String(format: "%@: Transfer's peak RSS %.1f MiB (limit %.0f MiB)", operation, Double(peak) / 1048576, peakRSSLimit / 1048576))
            }
        }
        return found
    }

    private func writePayload(_ url: URL, bytes: Int64) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw BenchError("cannot create \(url.path)") }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        // Not zeros, so that nothing on the way can shortcut sparse or compressible data.
        var chunk = Data(count: 8 << 20)
        chunk.withUnsafeMutableBytes { raw in
            for index in 0..<raw.count { raw[index] = UInt8(truncatingIfNeeded: index &* 2654435761 >> 7) }
        }
        var remaining = bytes
        while remaining > 0 {
            let count = Int(min(Int64(chunk.count), remaining))
            try handle.write(contentsOf: chunk.prefix(count))
            remaining -= Int64(count)
        }
    }
}

func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func format(bytes: Int64) -> String {
    if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
    if bytes >= 1 << 20 { return String(format: "%.0f MiB", Double(bytes) / 1048576) }
    return "\(bytes) bytes"
}
