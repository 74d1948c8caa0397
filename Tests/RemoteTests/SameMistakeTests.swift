import Foundation
import TestSupport
import XCTest

/// The same mistake gets the same answer on every backend (issue 54): the same command lines,
/// run against a real `byteclub serve` and a real `rclone serve webdav`, end with the same exit
/// status and the same sentence. A file listed as a folder, a folder downloaded as a file, a
/// note moved into a folder with or without the slash.
final class SameMistakeTests: XCTestCase {
    private var base: URL!
    private var cli: CLI!
    private var serve: ServeProcess?
    private var webdav: RcloneWebDAV?

    override func setUpWithError() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        base = FileManager.default.temporaryDirectory.appendingPathComponent("same-mistake-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
        let root = base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        serve = try ServeProcess(root: root, token: "owner-token-1", arguments: ["--member", "ann=ann-token-1"])
        let dav = try RcloneWebDAV()
        webdav = dav
        try FileManager.default.createDirectory(at: dav.file("byteclub"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        serve = nil
        webdav?.remove()
        webdav = nil
        if let base { try? FileManager.default.removeItem(at: base) }
    }

    /// Each backend's connection, by name.
    private func backends() throws -> [(name: String, arguments: [String], environment: [String: String])] {
        let serve = try XCTUnwrap(serve), dav = try XCTUnwrap(webdav)
        return [("club", ["--server", serve.url, "--token", "ann-token-1"], [:]),
                ("webdav", ["--webdav", dav.url.absoluteString, "--user", dav.user], ["BYTECLUB_WEBDAV_PASSWORD": dav.password])]
    }

    private func run(_ arguments: [String], on backend: (name: String, arguments: [String], environment: [String: String])) throws -> CLI.Result {
        let cli = CLI(environment: self.cli.environment.merging(backend.environment) { $1 }, directory: self.cli.directory)
        return try cli.run(arguments + backend.arguments)
    }

    /// `put`s `text` at `path` in the club's folder.
    private func put(_ text: String, _ path: String, on backend: (name: String, arguments: [String], environment: [String: String]),
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let local = cli.directory.appendingPathComponent("put-\(UUID().uuidString).md")
        try Data(text.utf8).write(to: local)
        let put = try run(["put", local.path, path], on: backend)
        XCTAssertEqual(put.status, 0, "\(backend.name): put \(path): \(put.stderr)", file: file, line: line)
    }

    func testAFileListedAsAFolderAndAFolderFetchedAsAFileAnswerAlike() throws {
        var answers: [String: [String]] = [:]
        for backend in try backends() {
            try put("the plan\n", "Plan.md", on: backend)
            try put("Day one\n", "Trips/Lisbon.md", on: backend)

            let listed = try run(["ls", "Plan.md", "--json"], on: backend)
            XCTAssertEqual(listed.status, 4, "\(backend.name): ls of a file: \(listed.stdout) \(listed.stderr)")
            XCTAssertTrue(listed.stderr.contains("is a file, not a folder (byteclub get downloads it)"), "\(backend.name): \(listed.stderr)")
            XCTAssertTrue(listed.stdout.contains(#""kind":"conflict""#), "\(backend.name): \(listed.stdout)")

            let fetched = try run(["get", "Trips", "-"], on: backend)
            XCTAssertEqual(fetched.status, 4, "\(backend.name): get of a folder: \(fetched.stderr)")
            XCTAssertTrue(fetched.stderr.contains("is a folder, not a file (byteclub ls lists it; byteclub get -r downloads all of it)"), "\(backend.name): \(fetched.stderr)")
            answers[backend.name] = [String(listed.status), listed.stderr, String(fetched.status), fetched.stderr]
        }
        XCTAssertEqual(answers["club"], answers["webdav"], "the same mistake, the same answer")
    }

    func testAMoveIntoAFolderWithOrWithoutItsSlash() throws {
        for backend in try backends() {
            try put("A\n", "Plan A.md", on: backend)
            try put("B\n", "Plan B.md", on: backend)
            try put("keep\n", "Old Stuff/Keep.md", on: backend)

            let slash = try run(["mv", "Plan A.md", "Old Stuff/"], on: backend)
            XCTAssertEqual(slash.status, 0, "\(backend.name): \(slash.stderr)")
            XCTAssertEqual(slash.stdout, "/byteclub/Old Stuff/Plan A.md\n", backend.name)
            let bare = try run(["mv", "Plan B.md", "Old Stuff"], on: backend)
            XCTAssertEqual(bare.status, 0, "\(backend.name): \(bare.stderr)")
            XCTAssertEqual(bare.stdout, "/byteclub/Old Stuff/Plan B.md\n", backend.name)
            XCTAssertEqual(try run(["get", "Old Stuff/Plan B.md", "-"], on: backend).stdout, "B\n", backend.name)

            // A file of that name is still a taken name, not a folder to move into.
            try put("C\n", "Plan C.md", on: backend)
            let taken = try run(["mv", "Plan C.md", "Old Stuff/Keep.md"], on: backend)
            XCTAssertEqual(taken.status, 4, "\(backend.name): \(taken.stderr)")
            XCTAssertTrue(taken.stderr.contains("already exists"), "\(backend.name): \(taken.stderr)")
            XCTAssertEqual(try run(["get", "Old Stuff/Keep.md", "-"], on: backend).stdout, "keep\n", backend.name)
        }
    }
}
