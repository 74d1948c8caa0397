import DropboxWire
import ArgumentParser
import ClubServer
import Foundation
import Transfer

/// The club server over TLS beside plain HTTP, in one run on loopback: a download and an upload
/// with our Transfer layer (pinning the server's key, as members do) and with the curl CLI
/// (`--pinnedpubkey`) against the same two servers over the same folder.
struct TLSBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tls", abstract: "Transfer and curl over the club server's TLS, beside plain HTTP.")

    @Option(help: "Download size (the upload is at most 128 MiB, under the 150 MiB request cap).") var size: String = "1GiB"
    @Option(help: "Repetitions per figure; the table shows the median.") var runs: Int = 3
    @Option(help: "The curl CLI.") var curl: String = "/usr/bin/curl"

    func run() throws {
        guard let bytes = parseSize(size), bytes > 0 else { throw BenchError("bad --size \(size)") }
        let uploadBytes = min(bytes, 128 << 20)
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tls-bench-\(getpid())")
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let big = root.appendingPathComponent("byteclub/big.bin")
        let upload = base.appendingPathComponent("upload.bin")
        try writePatternFile(big, bytes: bytes)
        try writePatternFile(upload, bytes: uploadBytes)

        let token = "bench"
        let identity = try ServerIdentity.generate(hostNames: [])
        var plainConfiguration = ClubServerConfiguration(root: root.path, token: token)
        plainConfiguration.logger.logLevel = .warning
        var tlsConfiguration = plainConfiguration
        tlsConfiguration.tls = identity
        let plainSettings = plainConfiguration
        let tlsSettings = tlsConfiguration
        let plain = try blocking { try await ClubServer.start(plainSettings) }
        let secure = try blocking { try await ClubServer.start(tlsSettings) }
        defer {
            blocking { await plain.stop() }
            blocking { await secure.stop() }
        }
        FileHandle.standardError.write(Data("tls bench: \(format(bytes: bytes)) down, \(format(bytes: uploadBytes)) up, plain and TLS, \(runs) run(s)\n".utf8))

        let download = #"{"path":"/byteclub/big.bin"}"#
        let uploadArg = #"{"path":"/byteclub/up.bin","mode":"overwrite"}"#
        func ours(_ server: ClubServer, pin: String?, up: Bool) -> Double {
            let headers = ["Authorization": "Bearer \(token)", "Dropbox-API-Arg": up ? uploadArg : download]
            let out = base.appendingPathComponent("down.bin")
            let report = up
                ? TransferRunner.run(.uploadFile, url: server.baseURL.appendingPathComponent(Endpoint.upload.relativePath), file: upload, out: nil, method: "POST",
                                     headers: headers, cancelAt: nil, pin: pin)
                : TransferRunner.run(.download, url: server.baseURL.appendingPathComponent(Endpoint.download.relativePath), file: nil, out: out, method: "POST",
                                     headers: headers, cancelAt: nil, pin: pin)
            try? FileManager.default.removeItem(at: out)
            guard report.error == nil, report.status == 200 else { return .nan }
            return Double(report.bytes) / report.seconds
        }
        func theirs(_ server: ClubServer, pin: String?, up: Bool) throws -> Double {
            var arguments = [curl, "-sS", "-o", "/dev/null", "-w", up ? "%{speed_upload}" : "%{speed_download}", "-X", "POST",
                             "-H", "Authorization: Bearer \(token)", "-H", "Dropbox-API-Arg: \(up ? uploadArg : download)"]
            if let pin { arguments += ["-k", "--pinnedpubkey", pin] }
            if up { arguments += ["-H", "Content-Type: application/octet-stream", "--data-binary", "@" + upload.path] }
            arguments.append(server.baseURL.appendingPathComponent(up ? Endpoint.upload.relativePath : Endpoint.download.relativePath).absoluteString)
            let result = try spawnAndMeasure(arguments)
            guard result.exitStatus == 0 else { throw BenchError("curl failed (exit \(result.exitStatus))") }
            return Double(result.stdout) ?? .nan
        }

        var rates: [String: [Double]] = [:]
        for _ in 0..<max(1, runs) {
            for up in [false, true] {
                let direction = up ? "up" : "down"
                rates["ours plain \(direction)", default: []].append(ours(plain, pin: nil, up: up))
                rates["ours tls \(direction)", default: []].append(ours(secure, pin: identity.pin, up: up))
                rates["curl plain \(direction)", default: []].append(try theirs(plain, pin: nil, up: up))
                rates["curl tls \(direction)", default: []].append(try theirs(secure, pin: identity.pin, up: up))
            }
        }
        func rate(_ key: String) -> Double { median(rates[key] ?? []) ?? .nan }
        print("The club server on loopback, plain HTTP beside TLS (self-signed P-256, pinned), median of \(max(1, runs)) run(s).")
        print("")
        print("| transfer | client | plain | TLS | TLS time / plain time | target |")
        print("|---|---|---:|---:|---:|---|")
        for (direction, label, amount) in [("down", "download", bytes), ("up", "upload", uploadBytes)] {
            for (client, name) in [("ours", "byteclub (Transfer)"), ("curl", "curl CLI")] {
                let plainRate = rate("\(client) plain \(direction)")
                let tlsRate = rate("\(client) tls \(direction)")
                print(String(format: "| %@ %@ | %@ | %.0f MB/s | %.0f MB/s | %.2f× | %@ |", label, format(bytes: amount), name,
                             plainRate / 1e6, tlsRate / 1e6, plainRate / tlsRate, client == "ours" ? "≤ 1.25×" : "—"))
            }
        }
    }
}
