import Foundation
import Transfer
import TestSupport
import XCTest

/// A `byteclub serve` process, for tests that must kill a real server.
final class ServeProcess {
    let process: Process
    let port: Int

    static var executable: URL? { BuiltExecutable.byteclub }

    init(root: URL, token: String) throws {
        let launched = try MemberServe.launch(
            ["serve", "--insecure-http", "--root", root.path, "--create", "--port", "0", "--token", token, "--log-level", "warning"], port: 0)
        XCTAssertTrue(launched.said.hasPrefix("byteclub serve: listening on http://127.0.0.1:\(launched.port) (root "), launched.said)
        (process, port) = (launched.process, launched.port)
    }

    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

final class CrashTests: XCTestCase {
    func testKillingTheServerMidUploadLeavesTheOldFileIntact() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("club-crash-\(UUID().uuidString)")
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: base) }
        let original = Data("the original note, which must survive\n".utf8)
        try original.write(to: root.appendingPathComponent("byteclub/note.txt"))
        let token = "crash-token"

        let server = try ServeProcess(root: root, token: token)
        var configuration = SessionConfiguration.ephemeral
        configuration.additionalHeaders = ["Authorization": "Bearer \(token)"]
        configuration.maxSendBytesPerSecond = 4 << 20
        let session = Session(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let big = base.appendingPathComponent("big.bin")
        try Data(repeating: 0x5A, count: 64 << 20).write(to: big)
        let request = Request(url: URL(string: "http://127.0.0.1:\(server.port)/2/files/upload")!, method: "POST", headers: [
            "Dropbox-API-Arg": #"{"path":"/byteclub/note.txt","mode":"overwrite"}"#, "Content-Type": "application/octet-stream",
        ])
        let finished = DispatchSemaphore(value: 0)
        let task = session.uploadTask(with: request, fromFile: big) { _, _, _ in finished.signal() }
        task.resume()

        // Wait until the server is inside the body: its temp file has bytes.
        let temp = root.appendingPathComponent(".byteclub/tmp")
        let deadline = Date().addingTimeInterval(20)
        var inBody = false
        while !inBody && Date() < deadline {
            let sizes = ((try? FileManager.default.contentsOfDirectory(atPath: temp.path)) ?? []).compactMap {
                (try? FileManager.default.attributesOfItem(atPath: temp.appendingPathComponent($0).path))?[.size] as? Int
            }
            inBody = sizes.contains { $0 > 0 }
            if !inBody { _ = finished.wait(timeout: .now() + .milliseconds(5)) }
        }
        XCTAssertTrue(inBody, "the upload never reached the server's body handling")
        server.kill()
        XCTAssertEqual(finished.wait(timeout: .now() + 20), .success)
        XCTAssertNotNil(task.error, "the upload cannot have succeeded")

        XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("byteclub/note.txt")), original, "the old file is byte-identical")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("byteclub").path), ["note.txt"], "no partial file is visible")

        // After a restart the leftover temp file is gone and the listing shows just the note.
        let restarted = try ServeProcess(root: root, token: token)
        defer { restarted.kill() }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.path), [])
        let list = Request(url: URL(string: "http://127.0.0.1:\(restarted.port)/2/files/list_folder")!, method: "POST",
                           headers: ["Content-Type": "application/json"], body: Data(#"{"path":"/byteclub"}"#.utf8))
        let box = DispatchSemaphore(value: 0)
        // Written once by the completion handler before it signals `box`, read only after the wait.
        nonisolated(unsafe) var listing: Data?
        session.dataTask(with: list) { data, _, _ in listing = data; box.signal() }.resume()
        XCTAssertEqual(box.wait(timeout: .now() + 20), .success)
        let entries = ((try? JSONSerialization.jsonObject(with: listing ?? Data())) as? [String: Any])?["entries"] as? [[String: Any]]
        XCTAssertEqual(entries?.compactMap { $0["name"] as? String }, ["note.txt"])
        XCTAssertEqual(entries?.first?["size"] as? Int, original.count)
    }
}
