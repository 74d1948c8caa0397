import ArgumentParser
import Dispatch
import Foundation
import LoopbackHTTP
#if canImport(Glibc)
import Glibc
#endif

/// `byteclub put`/`get` over 1 and 4 streams against `curl` and `rclone copy`, all over one
/// emulated WAN link (``WANLink``) in the same run, under each congestion control asked for.
///
/// The servers (`byteclub serve`, `rclone serve webdav`) run in the server namespace, every
/// client in the client namespace. Where the machine cannot do this (no root, no tun, no
/// namespaces, no cc) it says why and skips, and a congestion control the kernel refuses is
/// reported, never replaced by a made-up figure.
struct WANBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "wan",
                                                    abstract: "byteclub put/get (1 and 4 streams) vs curl and rclone over an emulated WAN link.")

    @Option(help: "File size.") var size: String = "256MiB"
    @Option(help: "File size under a loss-based congestion control (cubic, reno): one such stream on these links runs at 2-3 Mbit/s.")
    var lossBasedSize: String = "32MiB"
    @Option(help: "Links as RTT_MS:LOSS_PERCENT, comma-separated.") var links: String = "50:1,200:0.1"
    @Option(help: "Link rate in Mbit/s (every link).") var rateMbit: Double = 100
    @Option(help: "Congestion controls to run the table under, comma-separated.") var cc: String = "cubic,bbr"
    @Option(help: "The byteclub binary (default: next to this one).") var byteclub: String?
    @Option(help: "The curl CLI.") var curl: String = "/usr/bin/curl"
    @Option(help: "The link emulator's C source.") var emulatorSource: String = "scripts/wan/linkemu.c"

    func run() throws {
        guard let bytes = parseSize(size), bytes > 0 else { throw ValidationError("bad --size \(size)") }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let binary = byteclub ?? URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw ValidationError("build byteclub first (\(binary))") }
        if let reason = WANLink.unavailable() {
            print("transfer-bench wan: skipped: \(reason).")
            return
        }
        guard let rclone = RcloneWebDAV.executable?.path else {
            print("transfer-bench wan: skipped: rclone is not installed.")
            return
        }
        guard let lossBasedBytes = parseSize(lossBasedSize), lossBasedBytes > 0 else { throw ValidationError("bad --loss-based-size \(lossBasedSize)") }
        let parsedLinks = try links.split(separator: ",").map { item -> (Double, Double) in
            let parts = item.split(separator: ":")
            guard parts.count == 2, let rtt = Double(parts[0]), let loss = Double(parts[1]) else { throw ValidationError("bad link \(item)") }
            return (rtt, loss)
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("bc-wan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let emulator = try WANLink.buildEmulator(source: emulatorSource, into: work)
        let controls = cc.split(separator: ",").map(String.init)
        let allowed = AllowedCongestionControl()
        let allowing = allowed.allow(controls)
        defer { allowed.restore() }
        print("# transfer-bench wan, \(ISO8601DateFormatter().string(from: Date()))")
        print("")
        print("- \(WANLink.netemNote()).")
        if let allowing { print("- \(allowing).") }
        print("- rate \(rateMbit) Mbit/s on every link; drop-tail queue of one BDP.")
        for (rtt, loss) in parsedLinks {
            for control in controls {
                // One loss-based stream on a lossy link runs near the Mathis bound (2.8 Mbit/s at
                // 50 ms and 1 %, 2.2 at 200 ms and 0.1 %): 256 MiB would take 13-16 minutes a row.
                let bytes = loss > 0 && control != "bbr" ? lossBasedBytes : bytes
                let payload = work.appendingPathComponent("payload-\(bytes).bin")
                if !FileManager.default.fileExists(atPath: payload.path) { try writePayload(payload, bytes: bytes) }
                let link = WANLink(rttMs: rtt, lossPercent: loss, rateMbit: rateMbit)
                let servers = WANServers()
                let stop = Self.onInterrupt { servers.stop(); link.tearDown(); allowed.restore() }
                defer {
                    stop.cancel()
                    servers.stop()
                    link.tearDown()
                }
                try link.start(emulatorBinary: emulator)
                print("")
                print("## \(Int(rtt)) ms RTT, \(loss) % loss, \(rateMbit) Mbit/s, \(control), \(format(bytes: bytes)) each way")
                if let refusal = link.setCongestionControl(control) {
                    print("")
                    print("- skipped: this kernel will not set \(control) in a network namespace (\(refusal)); no figures.")
                    continue
                }
                try servers.start(binary: binary, rclone: rclone, in: work)
                let table = WANTable(bytes: bytes, payload: payload, work: work, servers: servers, binary: binary, curl: curl, rclone: rclone)
                try table.validate(link: link)
                try table.run(rateMbit: rateMbit)
            }
        }
    }

    /// A file of `bytes` that does not compress (links have no compression, but be fair).
    private func writePayload(_ url: URL, bytes: Int64) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw BenchError("cannot create \(url.path)") }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        guard let random = FileHandle(forReadingAtPath: "/dev/urandom") else { throw BenchError("no /dev/urandom") }
        defer { try? random.close() }
        var written: Int64 = 0
        while written < bytes {
            let count = Int(min(Int64(4 << 20), bytes - written))
            try handle.write(contentsOf: random.readData(ofLength: count))
            written += Int64(count)
        }
    }

    /// Runs `cleanup` and exits 130 on Ctrl-C or SIGTERM while installed.
    static func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            cleanup()
            Glibc.exit(130)
        }
        source.resume()
        let terminate = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        terminate.setEventHandler {
            cleanup()
            Glibc.exit(143)
        }
        terminate.resume()
        source.setCancelHandler { terminate.cancel() }
        return source
    }
}
