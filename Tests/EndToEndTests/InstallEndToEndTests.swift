import Foundation
import TestSupport
import XCTest

/// `make install PREFIX=…` as a user runs it: the binary, a man page per command that `man -l`
/// renders, and completions bash loads; `make uninstall` takes them all away again.
final class InstallEndToEndTests: XCTestCase {
    func run(_ tool: String, _ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["MANPAGER"] = "cat"
        environment["MANWIDTH"] = "80"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    func testMakeInstallPutsTheBinaryManPagesAndCompletionsInPlace() throws {
        let binary = try Requirement.byteclub()
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // In memory where there is a tmpfs: the copy of the 120 MB test binary and its removal
        // (a discard on a disk mounted `discard`) went to the disk the other tests flush to, and
        // in one CI run three tests that started beside it waited on the disk past their deadlines.
        let shm = URL(fileURLWithPath: "/dev/shm")
        let base = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        let prefix = base.appendingPathComponent("install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        // The binary this test run already has (the Makefile builds release without INSTALL_FROM).
        let install = try run("make", ["install", "PREFIX=\(prefix.path)", "INSTALL_FROM=\(binary.path)"], in: repository)
        XCTAssertEqual(install.status, 0, install.output)

        let installed = prefix.appendingPathComponent("bin/byteclub")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: installed.path))
        let version = try run(installed.path, ["--version"])
        XCTAssertEqual(version.status, 0, version.output)

        let man = prefix.appendingPathComponent("share/man/man1")
        let pages = try FileManager.default.contentsOfDirectory(atPath: man.path)
        for command in ["byteclub", "byteclub-ls", "byteclub-get", "byteclub-put", "byteclub-search", "byteclub-serve", "byteclub-watch"] {
            XCTAssertTrue(pages.contains(command + ".1"), "\(command).1 in \(pages)")
        }
        let rendered = try run("man", ["-l", man.appendingPathComponent("byteclub-get.1").path])
        XCTAssertEqual(rendered.status, 0, rendered.output)
        XCTAssertTrue(rendered.output.contains("BYTECLUB-GET(1)"), rendered.output)
        XCTAssertTrue(rendered.output.contains("--recursive"), "the options come from the parser: " + rendered.output)

        let bash = prefix.appendingPathComponent("share/bash-completion/completions/byteclub")
        let loaded = try run("bash", ["-c", "source '\(bash.path)' && complete -p byteclub"])
        XCTAssertEqual(loaded.status, 0, loaded.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("share/zsh/site-functions/_byteclub").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("share/fish/vendor_completions.d/byteclub.fish").path))

        let uninstall = try run("make", ["uninstall", "PREFIX=\(prefix.path)"], in: repository)
        XCTAssertEqual(uninstall.status, 0, uninstall.output)
        let left = FileManager.default.enumerator(atPath: prefix.path)?.compactMap { $0 as? String }
            .filter { !$0.isEmpty && (try? FileManager.default.attributesOfItem(atPath: prefix.appendingPathComponent($0).path)[.type] as? FileAttributeType) != .typeDirectory }
        XCTAssertEqual(left ?? [], [], "make uninstall leaves no file behind")
    }
}
