import Foundation
import TestSupport
import XCTest

/// A whole folder tree as text, to compare before and after: every path under the root (links
/// are listed, never followed) with what it is.
enum FileTree {
    static func list(_ root: URL) -> [String: String] {
        var result: [String: String] = [:]
        func walk(_ folder: URL, _ relative: String) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
            for name in names {
                let url = folder.appendingPathComponent(name)
                let path = relative.isEmpty ? name : relative + "/" + name
                let attributes = (try? FileManager.default.attributesOfItem(atPath: url.path)) ?? [:]
                switch attributes[.type] as? FileAttributeType {
                case .typeDirectory?:
                    result[path] = "folder"
                    walk(url, path)
                case .typeSymbolicLink?:
                    result[path] = "link to " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) ?? "?")
                default:
                    result[path] = "file of \((attributes[.size] as? NSNumber)?.intValue ?? -1) bytes"
                }
            }
        }
        walk(root, "")
        return result
    }

    /// The paths that are new or changed in `after`, and those gone from it.
    static func changes(_ before: [String: String], _ after: [String: String]) -> (changed: [String], gone: [String]) {
        (after.filter { before[$0.key] != $0.value }.map(\.key).sorted(), before.keys.filter { after[$0] == nil }.sorted())
    }
}

/// Bytes a terminal would act on: ESC, BEL and the other C0 controls but newline, DEL, and C1
/// controls (U+0080–U+009F as characters, since raw 0x80–0x9F bytes are parts of UTF-8).
func terminalControls(in output: Data) -> [String] {
    var found: [String] = []
    for byte in output where (byte < 0x20 && byte != 0x0A) || byte == 0x7F {
        found.append(String(format: "0x%02x", byte))
    }
    for scalar in String(decoding: output, as: UTF8.self).unicodeScalars where (0x80..<0xA0).contains(scalar.value) {
        found.append("U+\(String(scalar.value, radix: 16))")
    }
    return found
}

/// The built `byteclub`, run as a script runs it: collected output and exit status, with a deadline.
struct ByteclubRun {
    var status: Int32
    var stdout: Data
    var stderr: Data
    /// The process's peak resident memory (`VmHWM`), as last read from /proc while it ran;
    /// `nil` unless asked for.
    var peakMemory: Int? = nil
    /// The most anonymous memory (`RssAnon`: what the process allocated, not the pages of its
    /// code and libraries, which vary with the page cache) seen in those readings; `nil` unless
    /// asked for.
    var peakAllocated: Int? = nil

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }

    static func run(_ arguments: [String], in directory: URL, environment: [String: String], timeout: TimeInterval = 30,
                    samplingMemory: Bool = false) throws -> ByteclubRun {
        let executable = try Requirement.byteclub()
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let collected = Collected()
        let group = DispatchGroup()
        if samplingMemory {
            // VmHWM only grows, so the last reading before the process is gone is its peak.
            let pid = process.processIdentifier
            group.enter()
            DispatchQueue.global().async {
                while let reading = memory(of: pid) {
                    collected.setPeak(reading.peak, allocated: reading.allocated)
                    usleep(2_000)
                }
                group.leave()
            }
        }
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
        }
        guard group.wait(timeout: .now() + timeout) == .success else {
            process.terminate()
            throw CouldNotCheck("byteclub \(arguments) did not finish in \(timeout) s")
        }
        process.waitUntilExit()
        let (stdout, stderr) = collected.get()
        return ByteclubRun(status: process.terminationStatus, stdout: stdout, stderr: stderr,
                           peakMemory: samplingMemory ? collected.peak : nil,
                           peakAllocated: samplingMemory ? collected.allocated : nil)
    }

    /// A process's `VmHWM` and `RssAnon` in bytes, or `nil` once it has exited (a zombie has
    /// no memory lines).
    private static func memory(of pid: Int32) -> (peak: Int, allocated: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func kilobytes(_ key: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        guard let peak = kilobytes("VmHWM"), let allocated = kilobytes("RssAnon") else { return nil }
        return (peak * 1024, allocated * 1024)
    }

    /// Output gathered by two reader threads.
    private final class Collected: @unchecked Sendable {
        // @unchecked Sendable: `out` and `err` are only touched while holding `lock`.
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()
        private var peakBytes = 0
        private var allocatedBytes = 0
        func set(_ data: Data, isOut: Bool) { lock.withLock { if isOut { out = data } else { err = data } } }
        func setPeak(_ bytes: Int, allocated: Int) {
            lock.withLock {
                peakBytes = max(peakBytes, bytes)
                allocatedBytes = max(allocatedBytes, allocated)
            }
        }
        var peak: Int { lock.withLock { peakBytes } }
        var allocated: Int { lock.withLock { allocatedBytes } }
        func get() -> (Data, Data) { lock.withLock { (out, err) } }
    }
}
