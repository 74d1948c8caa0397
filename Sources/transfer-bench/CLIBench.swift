import DropboxWire
import ArgumentParser
import ClubServer
import Foundation

/// `byteclub put` / `byteclub get` of a large file against a club server, next to the curl CLI
/// driving the same endpoints, in the same run.
struct CLIBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cli", abstract: "byteclub put/get vs curl on the same upload_session and download endpoints.")

    @OptionGroup var options: CLIBenchOptions

    func run() throws {
        let (bytes, binary) = try options.resolve()
        let (runs, curl) = (options.runs, options.curl)
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("cli-bench-\(getpid())")
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let payload = base.appendingPathComponent("payload.bin")
        let chunk: Int64 = 32 << 20
        FileHandle.standardError.write(Data("cli bench: writing \(format(bytes: bytes)) and its \(format(bytes: chunk)) chunks for curl\n".utf8))
        var chunks: [URL] = []
        do {
            guard FileManager.default.createFile(atPath: payload.path, contents: nil) else { throw BenchError("cannot create \(payload.path)") }
            let handle = try FileHandle(forWritingTo: payload)
            var block = Data((0..<Int(chunk)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 9) })
            var written: Int64 = 0
            var index = 0
            while written < bytes {
                let count = Int(min(chunk, bytes - written))
                block[0] = UInt8(truncatingIfNeeded: index)
                try handle.write(contentsOf: block.prefix(count))
                let piece = base.appendingPathComponent("chunk-\(index)")
                try block.prefix(count).write(to: piece)
                chunks.append(piece)
                written += Int64(count)
                index += 1
            }
            try handle.close()
        }

        let token = "cli-bench"
        let server = try blocking { try await ClubServer.start(ClubServerConfiguration(root: root.path, token: token)) }
        defer { blocking { await server.stop() } }
        let url = server.baseURL.absoluteString
        let auth = "Authorization: Bearer \(token)"

        var rows: [(String, [Double], [Int64])] = []
        func row(_ name: String, _ body: () throws -> (Double, Int64)) throws {
            var walls: [Double] = []
            var rss: [Int64] = []
            for _ in 0..<runs {
                try? FileManager.default.removeItem(at: root.appendingPathComponent("byteclub/big.bin"))
                try? FileManager.default.removeItem(at: base.appendingPathComponent("got.bin"))
                let (wall, peak) = try body()
                walls.append(wall)
                rss.append(peak)
            }
            rows.append((name, walls, rss))
        }
        func spawn(_ arguments: [String]) throws -> ChildRun {
            let result = try spawnAndMeasure(arguments)
            guard result.exitStatus == 0 else { throw BenchError("\(arguments.first ?? "") failed with \(result.exitStatus)") }
            return result
        }

        try row(bytes <= Self.singleUploadLimit ? "byteclub put (one upload)" : "byteclub put (upload sessions)") {
            let result = try spawn([binary, "put", payload.path, "/byteclub/big.bin", "--server", url, "--token", token])
            return (result.wallSeconds, result.peakRSSBytes)
        }
        let empty = base.appendingPathComponent("empty.bin")
        guard FileManager.default.createFile(atPath: empty.path, contents: Data()) else { throw BenchError("cannot create \(empty.path)") }
        try row(bytes <= Self.singleUploadLimit ? "curl: files/upload" : "curl: start + append_v2 + finish") {
            var wall = 0.0
            var peak: Int64 = 0
            var session = ""
            for step in Self.curlUploadSteps(chunks: chunks, bytes: bytes, chunk: chunk, empty: empty) {
                var arg = step.arg
                if let offset = step.offset {
                    let cursor = #"{"session_id":"\#(session)","offset":\#(offset)}"#
                    arg = arg.replacingOccurrences(of: "CURSOR", with: cursor)
                }
                let result = try spawn([curl, "-sS", "-X", "POST", "-H", auth, "-H", "Dropbox-API-Arg: \(arg)", "-H", "Content-Type: application/octet-stream",
                                        "-H", "Expect:", "-T", step.body.path, "\(url)/\(step.endpoint)"])
                wall += result.wallSeconds
                peak = max(peak, result.peakRSSBytes)
                if step.endpoint == Endpoint.sessionStart.relativePath, let data = result.stdout.data(using: .utf8),
                   let id = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["session_id"] as? String {
                    session = id
                }
            }
            guard FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/big.bin").path) else { throw BenchError("curl's upload did not commit") }
            return (wall, peak)
        }
        try row("byteclub get") {
            try FileManager.default.copyItem(at: payload, to: root.appendingPathComponent("byteclub/big.bin"))
            let result = try spawn([binary, "get", "/byteclub/big.bin", base.appendingPathComponent("got.bin").path, "--server", url, "--token", token])
            return (result.wallSeconds, result.peakRSSBytes)
        }
        try row("curl: files/download") {
            try FileManager.default.copyItem(at: payload, to: root.appendingPathComponent("byteclub/big.bin"))
            let result = try spawn([curl, "-sS", "-X", "POST", "-H", auth, "-H", #"Dropbox-API-Arg: {"path":"/byteclub/big.bin"}"#,
                                    "-o", base.appendingPathComponent("got.bin").path, "\(url)/\(Endpoint.download.relativePath)"])
            return (result.wallSeconds, result.peakRSSBytes)
        }

        print("byteclub CLI against `byteclub serve` on loopback, \(format(bytes: bytes)), median of \(runs) run(s).")
        printRunTable(rows, bytes: bytes)
        let put = median(rows[0].1) ?? 0, curlPut = median(rows[1].1) ?? 1
        let get = median(rows[2].1) ?? 0, curlGet = median(rows[3].1) ?? 1
        print("")
        print(String(format: "- put / curl = %.2f× (target ≤ 1.25×); get / curl = %.2f× (target ≤ 1.25×).", put / curlPut, get / curlGet))
    }

    /// `byteclub put`'s single-request limit (DropboxStore's default): a file up to this size
    /// goes in one `files/upload`, a larger one in an upload session.
    static let singleUploadLimit: Int64 = 8 << 20

    /// One curl request of the upload: an endpoint, its `Dropbox-API-Arg` (`CURSOR` stands for
    /// the session's cursor at `offset`), and the file sent as its body.
    struct CurlStep {
        var endpoint: String
        var arg: String
        var offset: Int64?
        var body: URL
    }

    /// The requests `byteclub put` makes for a file of `bytes` in `chunks`, as curl will make
    /// them: one `files/upload` for a small file; otherwise `start` with the first chunk,
    /// `append_v2` with the middle ones and `finish` with the last, or with an empty body when
    /// the first chunk was the whole file (as `UploadSessionStateMachine` does).
    static func curlUploadSteps(chunks: [URL], bytes: Int64, chunk: Int64, empty: URL) -> [CurlStep] {
        let commit = #"{"path":"/byteclub/big.bin","mode":"add","autorename":false}"#
        guard bytes > singleUploadLimit, let first = chunks.first else {
            return [CurlStep(endpoint: Endpoint.upload.relativePath, arg: commit, offset: nil, body: chunks.first ?? empty)]
        }
        var steps = [CurlStep(endpoint: Endpoint.sessionStart.relativePath, arg: #"{"close":false}"#, offset: nil, body: first)]
        var offset = min(chunk, bytes)
        var rest = Array(chunks.dropFirst())
        let last = rest.popLast() ?? empty
        for piece in rest {
            steps.append(CurlStep(endpoint: Endpoint.sessionAppend.relativePath, arg: #"{"cursor":CURSOR,"close":false}"#, offset: offset, body: piece))
            offset += chunk
        }
        steps.append(CurlStep(endpoint: Endpoint.sessionFinish.relativePath, arg: #"{"cursor":CURSOR,"commit":\#(commit)}"#, offset: offset, body: last))
        return steps
    }
}
