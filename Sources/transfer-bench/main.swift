import ArgumentParser
import Foundation
import LoopbackHTTP
import Transfer

/// Benchmarks for the Transfer layer: single runs, and a side-by-side comparison with the
/// `curl` CLI and FoundationNetworking's URLSession.
struct TransferBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer-bench",
        abstract: "Measure byteclub's Transfer layer against curl and URLSession.",
        subcommands: [Upload.self, Download.self, Compare.self, ServerBench.self, CLIBench.self, LiveBench.self, WebDAVBench.self, WANBench.self, TLSBench.self, EncryptedBench.self]
    )
}

enum Client: String, ExpressibleByArgument, CaseIterable {
    case transfer, urlsession
}

struct Upload: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "One streamed upload; prints one JSON line.")

    @Option(help: "Where to send the body.") var url: String
    @Option(help: "The file to upload.") var file: String
    @Option(help: "PUT or POST.") var method: String = "POST"
    @Option(name: .customLong("header"), help: "An extra header, 'Name: value'. Repeatable.") var headers: [String] = []
    @Flag(help: "Read the whole file into memory and upload from Data.") var fromMemory = false
    @Option(help: "Which client to run.") var client: Client = .transfer
    @Option(help: "Cancel when this fraction of the file is sent, and report the cancel latency.") var cancelAt: Double?

    func run() throws {
        guard let target = URL(string: url) else { throw ValidationError("bad URL \(url)") }
        let fileURL = URL(fileURLWithPath: file)
        let method = method.uppercased()
        guard method == "PUT" || method == "POST" else { throw ValidationError("--method must be PUT or POST") }
        var headerFields: [String: String] = [:]
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else { throw ValidationError("bad header '\(header)': expected 'Name: value'") }
            headerFields[String(header[..<colon]).trimmingCharacters(in: .whitespaces)] = String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        let operation: TransferRunner.Operation = fromMemory ? .uploadMemory : .uploadFile
        let report = client == .transfer
            ? TransferRunner.run(operation, url: target, file: fileURL, out: nil, method: method, headers: headerFields, cancelAt: cancelAt)
            : FoundationRunner.run(operation, url: target, file: fileURL, out: nil, method: method, cancelAt: cancelAt)
        try finish(report, cancelling: cancelAt != nil)
    }
}

struct Download: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "One download to a file; prints one JSON line.")

    @Option(help: "What to fetch.") var url: String
    @Option(help: "Where to put the file.") var out: String
    @Option(help: "Which client to run.") var client: Client = .transfer
    @Option(help: "Cancel when this fraction of the file has arrived, and report the cancel latency.") var cancelAt: Double?

    func run() throws {
        guard let target = URL(string: url) else { throw ValidationError("bad URL \(url)") }
        let outURL = URL(fileURLWithPath: out)
        let report = client == .transfer
            ? TransferRunner.run(.download, url: target, file: nil, out: outURL, method: "GET", headers: [:], cancelAt: cancelAt)
            : FoundationRunner.run(.download, url: target, file: nil, out: outURL, method: "GET", cancelAt: cancelAt)
        try finish(report, cancelling: cancelAt != nil)
    }
}

/// Prints the report and exits non-zero unless the run did what was asked.
func finish(_ report: RunReport, cancelling: Bool) throws {
    var report = report
    report.peak_rss_bytes = ownPeakRSSBytes()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    print(String(decoding: try encoder.encode(report), as: UTF8.self))
    if cancelling {
        if report.cancel_ms == nil { throw ExitCode(1) }
    } else if let error = report.error {
        FileHandle.standardError.write(Data("transfer-bench: \(error)\n".utf8))
        throw ExitCode(1)
    } else if !(200..<300).contains(report.status) {
        FileHandle.standardError.write(Data("transfer-bench: HTTP \(report.status)\n".utf8))
        throw ExitCode(1)
    }
}

TransferBench.main()
