import Foundation
import TestSupport
import XCTest

/// The official Dropbox Python SDK against the real `byteclub serve`: `scripts/sdk-interop.py`
/// calls every endpoint the server implements through the SDK, whose stone validators check each
/// answer as they would Dropbox's, and checks every raw answer again in strict mode (no field,
/// union tag or length the spec does not allow), endpoint by endpoint.
///
/// The SDK comes from PyPI (`make deps` installs it); without it this test fails and says so, so
/// a machine that skipped `make deps` does not pass it unchecked.
final class SDKInteropTests: XCTestCase {
    func testTheOfficialPythonSDKAcceptsEveryAnswer() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-interop-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        // Members, so answers carry `sharing_info.modified_by` and `get_account` has others to name.
        let annToken = "ann-\(UUID().uuidString)"
        let rayToken = "ray-\(UUID().uuidString)"
        let server = try ServeChild(root: base.appendingPathComponent("club"),
                                    extraArguments: ["--member", "ann lee=\(annToken)", "--member", "ray=\(rayToken)"])
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let photo = repository.appendingPathComponent("Resources/SampleClub/byteclub/photos/alps-sunrise.jpg")
        let run = try PythonScript.run(repository.appendingPathComponent("scripts/sdk-interop.py"), arguments: [
            "--url", "http://127.0.0.1:\(server.port)", "--token", annToken, "--member-token", "ray=\(rayToken)", "--photo", photo.path,
        ], within: 180)
        XCTAssertEqual(run.status, 0, run.status == 2 ? "the Dropbox SDK is missing: run `make deps`\n\(run.output)" : run.output)
        // The script's last line counts the checks; a run that checked next to nothing is no pass.
        let checked = run.output.split(separator: "\n").last(where: { $0.hasPrefix("sdk-interop: ") }).flatMap {
            Int($0.split(separator: " ")[1])
        } ?? 0
        XCTAssertGreaterThan(checked, 40, run.output)
        XCTAssertTrue(server.terminate(within: 10))
    }
}

/// A Python script run to its end or a deadline, its output (stdout and stderr together) kept
/// in a temp file so a chatty script can never block on a full pipe.
enum PythonScript {
    struct Result {
        var status: Int32
        var output: String
    }

    static func run(_ script: URL, arguments: [String], within seconds: TimeInterval) throws -> Result {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("python-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { return Result(status: -1, output: "cannot create \(log.path)") }
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        let timedOut = process.isRunning
        if timedOut {
            process.terminate()
            process.waitUntilExit()
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return Result(status: timedOut ? -1 : process.terminationStatus, output: timedOut ? "timed out after \(seconds) s\n" + output : output)
    }
}
