import ArgumentParser
import Foundation

/// The options the `cli` and `webdav` benchmarks share: both time the byteclub binary next to
/// the curl CLI on one large file.
struct CLIBenchOptions: ParsableArguments {
    @Option(help: "File size.") var size: String = "1GiB"
    @Option(help: "Runs per row; the table shows the median.") var runs: Int = 3
    @Option(help: "The byteclub binary (default: next to this one).") var byteclub: String?
    @Option(help: "The curl CLI.") var curl: String = "/usr/bin/curl"

    /// The file size in bytes and the byteclub binary to run, or a clear refusal.
    func resolve() throws -> (bytes: Int64, binary: String) {
        guard let bytes = parseSize(size), bytes > 0 else { throw ValidationError("bad --size \(size)") }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let binary = byteclub ?? URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw ValidationError("build byteclub first (\(binary))") }
        return (bytes, binary)
    }
}

/// The `cli` and `webdav` benchmarks' table, after a blank line: per command (name, wall times
/// of its runs, peak RSS of its runs) the median wall time, the throughput over `bytes` that
/// makes, and the largest peak RSS.
func printRunTable(_ rows: [(String, [Double], [Int64])], bytes: Int64) {
    print("")
    print("| command | wall (s) | MB/s | peak RSS (MiB) |")
    print("|---|---:|---:|---:|")
    for (name, walls, rss) in rows {
        let wall = median(walls) ?? 0
        print(String(format: "| %@ | %.3f | %.0f | %.1f |", name, wall, Double(bytes) / wall / 1e6, Double(rss.max() ?? 0) / 1048576))
    }
}
