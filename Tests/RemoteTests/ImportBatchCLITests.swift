import Foundation
import TestSupport
import XCTest

/// `byteclub import` of a vault in folders five deep to a real `byteclub serve`: the files go in
/// batches (`/2/byteclub/files/upload_batch`, a few hundred files a request, never a request
/// a file), the front matter's tags in one `tags/add_batch`, and every file arrives byte for
/// byte; an import killed midway and run again ends with every file once.
final class ImportBatchCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("import-batch-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    /// A vault of `notes` notes of about 1 KiB in folders up to five deep (every other one with
    /// front matter tags) and `pictures` small PNG files in `attachments/` folders; each file's
    /// bytes by its path in the vault.
    func makeVault(notes: Int, pictures: Int) throws -> (URL, [String: Data]) {
        let vault = base.appendingPathComponent("vault")
        var generator = SeededGenerator(seed: 71)
        let levels = ["Projects", "Areas", "Archive", "Daily", "People"]
        func folder() -> String {
            let depth = Int.random(in: 0...5, using: &generator)
            return (0..<depth).map { "\(levels[$0]) \(Int.random(in: 1...3, using: &generator))" }.joined(separator: "/")
        }
        var files: [String: Data] = [:]
        for index in 0..<notes {
            var text = index.isMultiple(of: 2) ? "---\ntags: [club, batch\(index % 7)]\n---\n" : ""
            text += "# Note \(index)\n\n"
            while text.utf8.count < 1000 { text += "The club met on Tuesday and went over puzzle \(index) again, line by line. " }
            let path = [folder(), "Note \(index).md"].filter { !$0.isEmpty }.joined(separator: "/")
            files[path] = Data(text.utf8)
        }
        for index in 0..<pictures {
            var bytes = [UInt8](repeating: 0, count: 2000 + index)
            for position in bytes.indices { bytes[position] = UInt8.random(in: 0...255, using: &generator) }
            let path = [folder(), "attachments", "screen \(index).png"].filter { !$0.isEmpty }.joined(separator: "/")
            files[path] = Data(bytes)
        }
        for (path, data) in files {
            let url = vault.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        return (vault, files)
    }

    /// Where import puts a vault file in the club's folder: notes at their vault path, pictures
    /// under `photos/`, in an album named after their vault folder.
    func clubPath(_ vaultPath: String) -> String {
        vaultPath.hasSuffix(".png") ? "photos/" + vaultPath : vaultPath
    }

    /// Every file in the club's folder (its own `.byteclub/` aside), by path, with its bytes.
    func clubFiles(_ root: URL) -> [String: Data] {
        let folder = root.appendingPathComponent("byteclub").standardizedFileURL
        var files: [String: Data] = [:]
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walk?.nextObject() as? URL {
            if url.lastPathComponent == ".byteclub" {
                walk?.skipDescendants()
                continue
            }
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true, let data = try? Data(contentsOf: url) else { continue }
            files[String(url.standardizedFileURL.path.dropFirst(folder.path.count + 1))] = data
        }
        return files
    }

    /// Each vault file once in the club, byte for byte, and nothing else there but import's own
    /// manifest (`.byteclub/import.json`, left out by ``clubFiles(_:)``).
    func assertEveryFileOnce(_ files: [String: Data], in root: URL, file: StaticString = #filePath, line: UInt = #line) {
        let club = clubFiles(root)
        let expected = Dictionary(uniqueKeysWithValues: files.map { (clubPath($0.key), $0.value) })
        XCTAssertEqual(Set(club.keys).subtracting(expected.keys).sorted(), [], "files in the club the vault does not have", file: file, line: line)
        XCTAssertEqual(Set(expected.keys).subtracting(club.keys).sorted(), [], "vault files missing from the club", file: file, line: line)
        let differing = expected.filter { path, data in club[path].map { $0 != data } ?? false }.keys.sorted()
        XCTAssertEqual(differing, [], "files whose bytes differ", file: file, line: line)
    }

    /// The access log's requests to `route` (one line each at `--log-level info`).
    func requests(_ route: String, in log: URL) -> Int {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("POST \(route) ") }.count
    }

    func testAnImportGoesInBatchesAndEveryFileArrivesByteForByte() throws {
        let (vault, files) = try makeVault(notes: 600, pictures: 30)
        let root = base.appendingPathComponent("club")
        let log = base.appendingPathComponent("serve.log")
        let server = try ServeProcess(root: root, token: nil, log: log, arguments: ["--member", "ann=ann-token"])
        defer { _ = server }

        let imported = try cli.run(["import", vault.path, "--server", server.url, "--token", "ann-token"], timeout: 240)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("630 imported, 0 already in the club: 600 notes, 30 pictures"), imported.stderr)
        assertEveryFileOnce(files, in: root)

        // A few hundred files a request: 630 files in at most 3 (256 a request), not one each.
        let batches = requests("/2/byteclub/files/upload_batch", in: log)
        XCTAssertTrue((1...3).contains(batches), "\(batches) upload_batch requests for 630 files")
        XCTAssertEqual(requests("/2/files/upload_session/start", in: log), 0, "a session a file")
        // The one file sent alone is import's manifest.
        XCTAssertLessThanOrEqual(requests("/2/files/upload", in: log), 1)
        // The 300 notes' tags in one call, not a call a tag.
        XCTAssertEqual(requests("/2/byteclub/files/tags/add_batch", in: log), 1)
        XCTAssertEqual(requests("/2/byteclub/files/tags/add", in: log) + requests("/2/files/tags/add", in: log), 0)
        let tagged = try JSONDecoder().decode([String: [String]].self, from: Data(contentsOf: root.appendingPathComponent(".byteclub/tags.json")))
        XCTAssertEqual(tagged.count, 300, "every note with front matter tags has them in the club")
        XCTAssertTrue(tagged.values.allSatisfy { $0.first == "club" && $0.count == 2 }, "\(tagged.values.prefix(3))")
    }

    func testAnImportKilledMidwayFinishesWithEveryFileOnceWhenRunAgain() throws {
        let (vault, files) = try makeVault(notes: 1500, pictures: 40)
        let root = base.appendingPathComponent("club")
        let log = base.appendingPathComponent("serve.log")
        let server = try ServeProcess(root: root, token: nil, log: log, arguments: ["--member", "ann=ann-token"])
        defer { _ = server }
        let arguments = ["import", vault.path, "--server", server.url, "--token", "ann-token"]

        // Killed (SIGKILL, no goodbye) once the server has received the first batch's bytes.
        let first = Process()
        first.executableURL = try Requirement.byteclub()
        first.arguments = arguments
        first.environment = cli.environment
        first.currentDirectoryURL = cli.directory
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        let deadline = Date().addingTimeInterval(120)
        while requests("/2/byteclub/files/upload_batch", in: log) == 0 && first.isRunning && Date() < deadline { usleep(5_000) }
        guard first.isRunning else { throw CouldNotCheck("the import ended before it could be killed midway (status \(first.terminationStatus))") }
        guard requests("/2/byteclub/files/upload_batch", in: log) > 0 else {
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            throw CouldNotCheck("no upload_batch reached the server within 120 s")
        }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        XCTAssertEqual(first.terminationReason, .uncaughtSignal)
        let landedBefore = clubFiles(root).count
        XCTAssertLessThan(landedBefore, files.count, "the first import was cut before it sent everything")

        let again = try cli.run(arguments, timeout: 240)
        XCTAssertEqual(again.status, 0, again.stderr)
        let summary = try XCTUnwrap(again.stderr.split(separator: "\n").last.map(String.init))
        let numbers = summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        XCTAssertEqual(numbers.count >= 2 ? numbers[0] + numbers[1] : -1, files.count, summary)
        assertEveryFileOnce(files, in: root)
        // What the killed request left half-received is gone from the server's temporary folder.
        let temp = root.appendingPathComponent(".byteclub/tmp")
        let cleanDeadline = Date().addingTimeInterval(20)
        var left: [String] = []
        repeat {
            left = ((try? FileManager.default.contentsOfDirectory(atPath: temp.path)) ?? []).filter { $0.hasPrefix("batch-") }
            if left.isEmpty { break }
            usleep(20_000)
        } while Date() < cleanDeadline
        XCTAssertEqual(left, [], "a batch's temporary files left behind")
    }
}
