import ArgumentParser
import ClubServer
import Foundation

/// `byteclub put` / `byteclub get` of one large file in a plain club and in an encrypted one
/// (`byteclub init --encrypted`), against two club servers in the same run: what encryption
/// costs (age's ChaCha20-Poly1305 in 64 KiB chunks, the SHA-256 the signature covers; since
/// issue 56 no sealed copy of the file is made either way).
struct EncryptedBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "encrypted", abstract: "byteclub put/get in a plain club beside an encrypted one.")

    @OptionGroup var options: CLIBenchOptions
    @Option(help: "byteclub's --bwlimit for every row, e.g. 50M: a network slower than loopback.") var bwlimit: String?

    func run() throws {
        let (bytes, binary) = try options.resolve()
        let runs = options.runs
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("encrypted-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: base) }
        // The spawned byteclub keeps its identity, keyring and state here, not in the user's home.
        let home = base.appendingPathComponent("home")
        for (name, folder) in [("HOME", ""), ("XDG_CONFIG_HOME", "config"), ("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data")] {
            setenv(name, home.appendingPathComponent(folder).path, 1)
        }
        setenv("BYTECLUB_NAME", "bench", 1)
        let payload = base.appendingPathComponent("payload.bin")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        FileHandle.standardError.write(Data("encrypted bench: writing \(format(bytes: bytes))\n".utf8))
        guard FileManager.default.createFile(atPath: payload.path, contents: nil) else { throw BenchError("cannot create \(payload.path)") }
        let handle = try FileHandle(forWritingTo: payload)
        var block = Data((0..<(32 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 9) })
        var written: Int64 = 0
        while written < bytes {
            let count = Int(min(Int64(block.count), bytes - written))
            block[0] = UInt8(truncatingIfNeeded: written >> 25)
            try handle.write(contentsOf: block.prefix(count))
            written += Int64(count)
        }
        try handle.close()

        let token = "encrypted-bench"
        var clubs: [(name: String, root: URL, url: String, server: ClubServer)] = []
        defer { for club in clubs { blocking { await club.server.stop() } } }
        for name in ["plain", "encrypted"] {
            let root = base.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
            let server = try blocking { try await ClubServer.start(ClubServerConfiguration(root: root.path, token: token)) }
            clubs.append((name, root, server.baseURL.absoluteString, server))
        }
        let made = try spawnAndMeasure([binary, "init", "--encrypted", "--server", clubs[1].url, "--token", token])
        guard made.exitStatus == 0 else { throw BenchError("byteclub init --encrypted failed with \(made.exitStatus)") }

        var rows: [(String, [Double], [Int64])] = []
        func emptied(_ root: URL) {
            let folder = root.appendingPathComponent("byteclub")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name != ".clubkeys" {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
        /// One measured spawn of `arguments`, `before` run first.
        func measure(_ name: String, _ arguments: [String], before: () -> Void) throws -> (Double, Int64) {
            before()
            let result = try spawnAndMeasure(arguments)
            guard result.exitStatus == 0 else { throw BenchError("\(name) failed with \(result.exitStatus)") }
            return (result.wallSeconds, result.peakRSSBytes)
        }
        let got = base.appendingPathComponent("got.bin")
        let limit = bwlimit.map { ["--bwlimit", $0] } ?? []
        // The clubs take turns, run by run: a machine whose load drifts (another build on the
        // second core) weighs on both sides of a ratio alike, not on one row.
        var puts = Array(repeating: ([Double](), [Int64]()), count: clubs.count)
        var gets = puts
        for _ in 0..<runs {
            for (index, club) in clubs.enumerated() {
                let (wall, rss) = try measure("put to the \(club.name) club",
                                              [binary, "put", payload.path, "/byteclub/big.bin", "--server", club.url, "--token", token] + limit,
                                              before: { emptied(club.root) })
                puts[index].0.append(wall)
                puts[index].1.append(rss)
            }
        }
        for _ in 0..<runs {
            for (index, club) in clubs.enumerated() {
                let (wall, rss) = try measure("get from the \(club.name) club",
                                              [binary, "get", "/byteclub/big.bin", got.path, "--server", club.url, "--token", token] + limit,
                                              before: { try? FileManager.default.removeItem(at: got) })
                gets[index].0.append(wall)
                gets[index].1.append(rss)
                guard let a = try? FileHandle(forReadingFrom: got), let first = try a.read(upToCount: 1 << 20), first == (try? FileHandle(forReadingFrom: payload).read(upToCount: 1 << 20)) else {
                    throw BenchError("the \(club.name) club's download differs from the payload")
                }
            }
        }
        for (index, club) in clubs.enumerated() { rows.append(("byteclub put, \(club.name) club", puts[index].0, puts[index].1)) }
        for (index, club) in clubs.enumerated() { rows.append(("byteclub get, \(club.name) club", gets[index].0, gets[index].1)) }

        print("byteclub put/get against `byteclub serve` on loopback\(bwlimit.map { " at --bwlimit \($0)" } ?? ""), a plain club beside an encrypted one, \(format(bytes: bytes)), median of \(runs) run(s).")
        printRunTable(rows, bytes: bytes)
        let seconds = rows.map { median($0.1) ?? 0 }
        print("")
        print(String(format: "- put encrypted / plain = %.2f× (target ≤ 1.3×, issue 56); get encrypted / plain = %.2f× (target ≤ 1.3×).",
                     seconds[1] / max(seconds[0], 0.001), seconds[3] / max(seconds[2], 0.001)))
        // Run by run (each pair measured back to back): how much of the ratio is the machine's load.
        func pairs(_ plain: [Double], _ sealed: [Double]) -> String {
            zip(plain, sealed).map { String(format: "%.2f×", $1 / max($0, 0.001)) }.joined(separator: ", ")
        }
        print("- run by run: put \(pairs(rows[0].1, rows[1].1)); get \(pairs(rows[2].1, rows[3].1)).")
    }
}
