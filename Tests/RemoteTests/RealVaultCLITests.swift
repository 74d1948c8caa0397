import Foundation
import TestSupport
import XCTest

/// A real vault, whole (issue 55): the Obsidian Tasks plugin's sample vault
/// (Tests/Fixtures/Tasks-Demo, MIT, written by that plugin's people: 205 notes, PNG screenshots,
/// a PDF, a canvas, `.base`, HTML and JSON files) imported into a club on a real `byteclub
/// serve`, exported back byte for byte, its attachments listed, fetched and shared.
final class RealVaultCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    static var vault: URL { RealVault.folder }

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("real-vault-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    /// A club server over a new folder, and the options that reach it as its member ann.
    func club() throws -> (ServeProcess, root: URL, options: [String]) {
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        let server = try ServeProcess(root: root, token: "owner", arguments: ["--member", "ann=ann-token"])
        return (server, root, ["--server", server.url, "--token", "ann-token"])
    }

    static func tree(_ folder: URL) -> [String: Data] { RealVault.tree(folder) }

    /// The body `curl` gets for `url`, with no token.
    func curl(_ url: String) throws -> Data {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--fail", "--max-time", "10", url]
        process.standardOutput = output
        try process.run()
        let body = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return body
    }

    static var pictureExtensions: Set<String> { RealVault.pictureExtensions }

    static func clubPath(of vaultPath: String) -> String { RealVault.clubPath(of: vaultPath) }

    /// `![[name.png|400]]` as the vault writes it: import points it at the picture's new place
    /// and keeps it a wiki link with its size; every other file comes byte for byte.
    func testTheVaultComesInWholeAndGoesBackByteForByte() throws {
        let vault = Self.tree(Self.vault)
        XCTAssertGreaterThanOrEqual(vault.keys.filter { $0.hasSuffix(".md") }.count, 150, "a vault of at least 150 notes")
        var kinds: [String: Int] = [:]
        for path in vault.keys {
            let ext = (path as NSString).pathExtension.lowercased()
            kinds[ext == "md" || ext == "txt" ? "notes" : Self.pictureExtensions.contains(ext) ? "pictures" : "other", default: 0] += 1
        }
        let (server, root, options) = try club()
        defer { _ = server }

        let started = Date()
        let imported = try cli.run(["import", Self.vault.path, "Tasks-Demo"] + options)
        let seconds = Date().timeIntervalSince(started)
        print("RealVaultCLITests: imported \(vault.count) files in \(String(format: "%.1f", seconds)) s")
        XCTAssertEqual(imported.status, 0, "every file came: " + imported.stderr)
        let summary = "\(vault.count) imported, 0 already in the club: \(kinds["notes"] ?? 0) notes, \(kinds["pictures"] ?? 0) pictures and \(kinds["other"] ?? 0) other files"
        XCTAssertTrue(imported.stderr.contains(summary), "import says what it brought (\(summary)): " + imported.stderr)
        XCTAssertFalse(RealVault.tree(Self.vault, hidden: true).keys.filter { $0.hasPrefix(".obsidian/") }.isEmpty, "the vault has its settings")
        XCTAssertTrue(imported.stderr.contains("skipped .obsidian/ (Obsidian's settings, not notes)"), imported.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/Tasks-Demo/.obsidian").path))
        XCTAssertLessThan(seconds, 30, "a few hundred small files to a loopback server take seconds")

        // In the club: each file where import puts it, byte for byte but for the picture links it
        // pointed at the pictures' new place, each in its own style.
        var rewritten: [String] = []
        for (path, data) in vault {
            let club = root.appendingPathComponent(String(Self.clubPath(of: path).dropFirst()))
            guard let there = try? Data(contentsOf: club) else {
                XCTFail("\(path) is not in the club at \(club.path)")
                continue
            }
            if there != data { rewritten.append(path) }
        }
        XCTAssertEqual(rewritten.sorted(), ["Manual Testing/Seeing the Query as HTML/HTML from Query.md", "Test Data/corrupt_rerender_issue_3715_tasks.md"],
                       "only the notes whose pictures moved are written again")
        let query = try String(contentsOf: root.appendingPathComponent("byteclub/Tasks-Demo/Manual Testing/Seeing the Query as HTML/HTML from Query.md"), encoding: .utf8)
        XCTAssertTrue(query.contains("![[../../../photos/Manual Testing/Seeing the Query as HTML/HTML from Query - select an element.png|400]]"),
                      "a wiki link stays a wiki link, with its size: \(query)")
        XCTAssertFalse(query.contains("![HTML from Query"), query)

        // The whole club exported: the vault at its folder, every file back byte for byte.
        let whole = base.appendingPathComponent("whole")
        let exported = try cli.run(["export", whole.path] + options)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let back = RealVault.tree(whole.appendingPathComponent("Tasks-Demo"), hidden: true)
        XCTAssertEqual(Set(back.keys), Set(vault.keys), "every file of the vault, and only those")
        for (path, data) in vault where back[path] != data { XCTFail("\(path) differs after the whole club's export") }

        // The folder alone: the vault itself.
        let alone = base.appendingPathComponent("alone")
        let folder = try cli.run(["export", "Tasks-Demo", alone.path] + options)
        XCTAssertEqual(folder.status, 0, folder.stderr)
        XCTAssertEqual(RealVault.tree(alone, hidden: true), vault, "the folder's export is the vault (its settings aside), byte for byte")

        // Again: nothing is sent twice.
        let again = try cli.run(["import", Self.vault.path, "Tasks-Demo"] + options)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("0 imported, \(vault.count) already in the club"), again.stderr)
    }

    /// The same vault on the other backend: `rclone serve webdav`, which has no upload
    /// sessions, no tags route and names that differ in case as different files. It comes in
    /// whole, and goes back byte for byte.
    func testTheVaultComesInWholeOverWebDAVAndGoesBackByteForByte() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let server = try RcloneWebDAV()
        defer { server.remove() }
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        var environment = cli.environment
        environment["BYTECLUB_WEBDAV_PASSWORD"] = server.password
        let webdavCLI = CLI(environment: environment, directory: cli.directory)
        let options = ["--webdav", server.url.absoluteString, "--user", server.user]
        let vault = Self.tree(Self.vault)

        let imported = try webdavCLI.run(["import", Self.vault.path, "Tasks-Demo"] + options, timeout: 300)
        XCTAssertEqual(imported.status, 0, "every file came: " + imported.stderr)
        XCTAssertTrue(imported.stderr.contains("\(vault.count) imported, 0 already in the club"), imported.stderr)
        for path in vault.keys {
            let there = server.file(String(Self.clubPath(of: path).dropFirst()))
            XCTAssertTrue(FileManager.default.fileExists(atPath: there.path), "\(path) is not on the WebDAV server at \(there.path)")
        }
        let alone = base.appendingPathComponent("alone-webdav")
        let exported = try webdavCLI.run(["export", "Tasks-Demo", alone.path] + options, timeout: 300)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let back = RealVault.tree(alone, hidden: true)
        XCTAssertEqual(Set(back.keys), Set(vault.keys), "every file of the vault, and only those")
        for (path, data) in vault where back[path] != data { XCTFail("\(path) differs after the export from WebDAV") }
    }

    /// Every attachment kept: the PDF, the canvas, the `.base`, HTML and JSON files are listed
    /// in their folder, fetched whole, and shared by a link that gives their bytes to anyone.
    func testEveryAttachmentIsListedFetchedAndShared() throws {
        let (server, _, options) = try club()
        defer { _ = server }
        let imported = try cli.run(["import", Self.vault.path, "Tasks-Demo"] + options)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let attachments = Self.tree(Self.vault).filter { path, _ in
            let ext = (path as NSString).pathExtension.lowercased()
            return ext != "md" && !Self.pictureExtensions.contains(ext)
        }
        XCTAssertTrue(attachments.keys.contains("Test Attachments/a_pdf_file.pdf") && attachments.keys.contains("Manual Testing/Frontmatter/Frontmatter code.canvas"),
                      "\(attachments.keys.sorted())")
        for (path, data) in attachments.sorted(by: { $0.key < $1.key }) {
            let club = Self.clubPath(of: path)
            let folder = (club as NSString).deletingLastPathComponent
            let listed = try cli.run(["ls", folder] + options)
            XCTAssertEqual(listed.status, 0, listed.stderr)
            XCTAssertTrue(listed.stdout.contains((path as NSString).lastPathComponent), "ls \(folder) lists it: \(listed.stdout)")

            let copy = base.appendingPathComponent("got-\(UUID().uuidString)")
            let got = try cli.run(["get", club, copy.path] + options)
            XCTAssertEqual(got.status, 0, got.stderr)
            XCTAssertEqual(try? Data(contentsOf: copy), data, "get \(club) gives its bytes")
        }
        for path in ["Test Attachments/a_pdf_file.pdf", "Manual Testing/Frontmatter/Frontmatter code.canvas"] {
            let shared = try cli.run(["share", Self.clubPath(of: path)] + options)
            XCTAssertEqual(shared.status, 0, shared.stderr)
            let url = shared.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertTrue(url.hasPrefix(server.url + "/s/"), url)
            XCTAssertEqual(try curl(url), Self.tree(Self.vault)[path], "the share link gives \(path) to anyone")
        }
    }
}
