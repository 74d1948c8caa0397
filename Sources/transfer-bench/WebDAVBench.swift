import ArgumentParser
import Foundation
import LoopbackHTTP
#if canImport(Glibc)
import Glibc
#endif

/// `byteclub put` / `byteclub get --webdav` of a large file against `rclone serve webdav`,
/// next to `curl -T` / `curl -o` on the same server, in the same run.
struct WebDAVBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "webdav", abstract: "byteclub put/get vs curl -T/-o on the same rclone serve webdav.")

    @OptionGroup var options: CLIBenchOptions

    func run() throws {
        let (bytes, binary) = try options.resolve()
        let (runs, curl) = (options.runs, options.curl)
        let server = try RcloneWebDAV(user: "bench")
        defer { server.remove() }
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        let payload = server.base.appendingPathComponent("payload.bin")
        let got = server.base.appendingPathComponent("got.bin")
        FileHandle.standardError.write(Data("webdav bench: writing \(format(bytes: bytes))\n".utf8))
        do {
            guard FileManager.default.createFile(atPath: payload.path, contents: nil) else { throw BenchError("cannot create \(payload.path)") }
            let handle = try FileHandle(forWritingTo: payload)
            var block = Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 9) })
            var written: Int64 = 0
            var index = 0
            while written < bytes {
                let count = Int(min(Int64(block.count), bytes - written))
                block[0] = UInt8(truncatingIfNeeded: index)
                try handle.write(contentsOf: block.prefix(count))
                written += Int64(count)
                index += 1
            }
            try handle.close()
        }
        // The child inherits it: the password is never an argument.
        setenv("BYTECLUB_WEBDAV_PASSWORD", server.password, 1)
        let target = server.file("byteclub/big.bin")
        let url = server.url.absoluteString
        let fileURL = server.url.appendingPathComponent("byteclub/big.bin").absoluteString
        let webdav = ["--webdav", url, "--user", server.user]

        var rows: [(String, [Double], [Int64])] = []
        func row(_ name: String, place: Bool, _ arguments: [String]) throws {
            var walls: [Double] = []
            var rss: [Int64] = []
            for _ in 0..<runs {
                try? FileManager.default.removeItem(at: target)
                try? FileManager.default.removeItem(at: got)
                if place { try FileManager.default.copyItem(at: payload, to: target) }
                let result = try spawnAndMeasure(arguments)
                guard result.exitStatus == 0 else { throw BenchError("\(name) failed with \(result.exitStatus)") }
                let check = place ? got : target
                let size = (try? FileManager.default.attributesOfItem(atPath: check.path)[.size] as? NSNumber)?.int64Value ?? -1
                guard size == bytes else { throw BenchError("\(name): \(check.lastPathComponent) has \(size) bytes, not \(bytes)") }
                walls.append(result.wallSeconds)
                rss.append(result.peakRSSBytes)
            }
            rows.append((name, walls, rss))
        }
        // A curl -u config on stdin would keep the password out of curl's arguments too; for a
        // benchmark on loopback the argument is fine.
        let auth = "\(server.user):\(server.password)"
        try row("byteclub put --webdav (LOCK, PUT, UNLOCK)", place: false, [binary, "put", payload.path, "/byteclub/big.bin"] + webdav)
        try row("curl -T", place: false, [curl, "-sS", "-f", "-u", auth, "-T", payload.path, fileURL])
        try row("byteclub get --webdav", place: true, [binary, "get", "/byteclub/big.bin", got.path] + webdav)
        try row("curl -o", place: true, [curl, "-sS", "-f", "-u", auth, "-o", got.path, fileURL])

        print("byteclub CLI against `rclone serve webdav` on loopback, \(format(bytes: bytes)), median of \(runs) run(s).")
        printRunTable(rows, bytes: bytes)
        let put = median(rows[0].1) ?? 0, curlPut = median(rows[1].1) ?? 1
        let get = median(rows[2].1) ?? 0, curlGet = median(rows[3].1) ?? 1
        let peak = Double(max(rows[0].2.max() ?? 0, rows[2].2.max() ?? 0)) / 1048576
        print("")
        print(String(format: "- put / curl -T = %.2f×, get / curl -o = %.2f× (target ≤ 1.25×); byteclub's peak RSS %.1f MiB (target ≤ 48 MiB).",
                     put / curlPut, get / curlGet, peak))
    }
}
